#pragma once
// Decoding a state whose wire form a test has damaged: what the games' tests of refused
// input share.
#include <functional>

#include "absl/status/status.h"
#include "engine/core/game.h"

namespace gavel::testing {

// `state` encoded (in its game's previous format when `previous_format`: the fields a
// format change left behind), its game's state message (`StateProto`) changed by `change`,
// decoded by its game again.
template <typename StateProto>
absl::Status DecodeChanged(const State& state, const std::function<void(StateProto&)>& change,
                           bool previous_format = false) {
  v1::GameState full;
  if (!previous_format) state.Serialize(&full);
  else if (!state.SerializePreviousFormat(&full)) return absl::InternalError("the game has one state format");
  StateProto proto;
  if (!full.state().UnpackTo(&proto)) return absl::InternalError("the state is not a " + proto.GetTypeName());
  change(proto);
  full.mutable_state()->PackFrom(proto);
  return state.game().Deserialize(full).status();
}

}  // namespace gavel::testing
