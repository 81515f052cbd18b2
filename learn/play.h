#pragma once
// Playing and evaluating policies in-process, with seats rotated and seeded deals.
#include <functional>
#include <span>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel::learn {

// A policy picks one of `legal` from the seat's view only; `rng` is its own randomness.
using Policy = std::function<absl::StatusOr<Move>(const v1::View& view, std::span<const Move> legal,
                                                  Rng& rng)>;

Policy RandomPolicy();

struct Match {
  int players = 0;
  OptionMap options;
  uint64_t seed = 0;
};

// Plays one game with policies[seat] deciding for each seat; returns the final outcome.
absl::StatusOr<Outcome> PlayGame(const Game& game, const Match& match,
                                 std::span<const Policy> policies, Rng& rng);

struct Evaluation {
  int games = 0;
  double win_rate = 0;        // shared wins count 1/k
  double win_rate_ci95 = 0;   // half-width of the normal-approximation 95% interval
  double mean_score = 0;      // the game's points
  double mean_reward = 0;     // PlaceRewards: 1 best .. 0 worst
};

// `candidate` against `opponent` in every other seat, the candidate's seat rotating
// through all seats on the same deal (seed) to cut luck.
absl::StatusOr<Evaluation> Evaluate(const Game& game, int players, const OptionMap& options,
                                    const Policy& candidate, const Policy& opponent, int games,
                                    uint64_t seed);

}  // namespace gavel::learn
