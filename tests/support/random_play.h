#pragma once
// Random play for tests that walk through the states of whole games.
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

}  // namespace gavel::testing
