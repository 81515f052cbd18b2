#pragma once
// The games' tests of their earlier state formats: random play, and an earlier format's
// state read back.
#include <functional>
#include <vector>

#include "engine/core/game.h"
#include "engine/core/rng.h"
#include "gtest/gtest.h"

namespace gavel::testing {

// Plays `state` to its end (at most `max_steps` moves) with random legal moves from `seed`,
// calling `check` on every state on the way, the first and the last included.
inline void PlayRandomly(State& state, uint64_t seed, const std::function<void(const State&)>& check,
                         int max_steps = 5000) {
  Rng rng(seed);
  std::vector<Move> legal;
  for (int step = 0;; ++step) {
    check(state);
    if (state.finished() || step == max_steps || ::testing::Test::HasFatalFailure()) return;
    state.LegalMoves(legal);
    ASSERT_TRUE(state.Apply(legal[rng.Below(static_cast<uint32_t>(legal.size()))]).ok());
  }
}

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
