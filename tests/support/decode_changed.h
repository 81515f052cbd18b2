#pragma once
// Decoding a state whose wire form a test has damaged: what the games' tests of refused
// input share.
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "engine/core/game.h"

namespace gavel::testing {

// `state` encoded (in the format `versions_back` before its game's current one, when not 0:
// the fields format changes left behind), its game's state message (`StateProto`) changed by
// `change`, decoded by its game again.
template <typename StateProto>
absl::Status DecodeChanged(const State& state, const std::function<void(StateProto&)>& change,
                           int versions_back = 0) {
  v1::GameState full;
  if (versions_back == 0) state.Serialize(&full);
  else if (!state.SerializeEarlierFormat(versions_back, &full)) return absl::InternalError("the game has no such earlier format");
  StateProto proto;
  if (!full.state().UnpackTo(&proto)) return absl::InternalError("the state is not a " + proto.GetTypeName());
  change(proto);
  full.mutable_state()->PackFrom(proto);
  return state.game().Deserialize(full).status();
}

// DecodeChanged as a function of the change alone, returning the refusal's message (empty
// when the changed state decodes): what a test of refused input calls once per damage.
// `state` must outlive it.
template <typename StateProto>
auto RefusalOfChange(const State& state, int versions_back = 0) {
  return [&state, versions_back](const std::function<void(StateProto&)>& change) {
    return std::string(DecodeChanged<StateProto>(state, change, versions_back).message());
  };
}

}  // namespace gavel::testing
