#pragma once
// The games' tests of their earlier state formats: an earlier format's state read back.

#include "engine/core/game.h"
#include "gtest/gtest.h"
#include "tests/support/random_play.h"

namespace gavel::testing {

// `state` written in the format `versions_back` before its game's current one must decode
// into the same state; that format's message is returned for the caller's checks of its form.
template <typename StateProto>
StateProto ExpectEarlierFormatReadsBack(const State& state, int versions_back) {
  v1::GameState earlier;
  StateProto form;
  EXPECT_TRUE(state.SerializeEarlierFormat(versions_back, &earlier)) << versions_back << " formats back";
  auto decoded = state.game().Deserialize(earlier);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (decoded.ok()) {
    EXPECT_EQ((*decoded)->Bytes(), state.Bytes()) << versions_back << " formats back";
  }
  EXPECT_TRUE(earlier.state().UnpackTo(&form));
  return form;
}

}  // namespace gavel::testing
