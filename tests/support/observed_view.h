#pragma once
// A game's view or state as the engine wrote it, for tests of messages written by
// MessageWriter (engine/core/message_writer.h): the bytes and the message protobuf parses
// from them.
#include <string>

#include "engine/core/game.h"
#include "gavel/v1/engine.pb.h"
#include "gtest/gtest.h"

namespace gavel::testing {

template <typename ViewProto>
struct ObservedView {
  std::string bytes;  // the game's view message as written (View.view's value)
  ViewProto parsed;
};

// The view `viewer` gets of `state`; a failure when it does not parse as `ViewProto`.
template <typename ViewProto>
ObservedView<ViewProto> Observed(const State& state, Seat viewer) {
  v1::View view;
  state.Observe(viewer, &view);
  ObservedView<ViewProto> out;
  EXPECT_TRUE(view.view().UnpackTo(&out.parsed)) << "viewer " << viewer;
  out.bytes = view.view().value();
  return out;
}

// The message bytes of `state` in its current format; a failure when they do not parse as
// `StateProto`.
template <typename StateProto>
ObservedView<StateProto> Written(const State& state) {
  v1::GameState wire;
  state.Serialize(&wire);
  ObservedView<StateProto> out;
  EXPECT_TRUE(wire.state().UnpackTo(&out.parsed));
  out.bytes = wire.state().value();
  return out;
}

}  // namespace gavel::testing
