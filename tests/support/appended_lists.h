#pragma once
// Views that append fields after protobuf's part (MessageWriter, engine/core/message_writer.h)
// out of protobuf's field order.
#include "engine/core/game.h"
#include "gavel/v1/engine.pb.h"
#include "gtest/gtest.h"

namespace gavel::testing {

// The view of `viewer`, parsed. Its bytes must end with exactly what protobuf writes for
// `lists`, a message of the view's type holding only the appended fields, in the order they
// are appended.
template <typename ViewProto>
ViewProto ViewEndingWith(const State& state, Seat viewer, const ViewProto& lists) {
  v1::View view;
  state.Observe(viewer, &view);
  ViewProto shown;
  EXPECT_TRUE(view.view().UnpackTo(&shown));
  const std::string expected = lists.SerializeAsString();
  EXPECT_FALSE(expected.empty());
  EXPECT_TRUE(view.view().value().ends_with(expected)) << "the view's last bytes are not protobuf's own";
  return shown;
}

// The same for the view of the seat to move (a spectator's once the game is over).
template <typename ViewProto>
ViewProto ViewEndingWith(const State& state, const ViewProto& lists) {
  return ViewEndingWith(state, state.finished() ? kNoSeat : state.to_move(), lists);
}

}  // namespace gavel::testing
