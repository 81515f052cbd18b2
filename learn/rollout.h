#pragma once
// Paired rollouts: the value of a few candidate moves for the seat to move, each played
// first and then by a base policy at every seat, in the same worlds resampled from the
// seat's view. Each world is played out once per move from the same state and seed, so
// the differences between moves are not swamped by the luck of the deal (the worlds are
// shared, not independent).
//
// Used twice: as training targets (learn/trainer.h) and as a decision-time policy, the
// rollout policy improvement of Tesauro and Galperin (1996), which measures how much a
// base policy can gain from one step of lookahead: the ceiling of what the trainer's
// distillation can learn.
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "learn/play.h"

namespace gavel::learn {

// What a seat's finished game is worth to it, in [0, 1]: half its place reward (1 best,
// 0 worst), half its share of the win. Training regresses on it; rollouts maximise it.
std::vector<float> SeatResults(const Outcome& outcome);

struct RolloutOptions {
  int worlds = 8;      // resampled worlds each candidate is played out in
  int candidates = 0;  // moves compared per decision, the base's choice included; 0: all
  // Another move replaces the base's choice only when its paired gain over it is this
  // many standard errors above zero: with many candidates and few worlds, the best mean
  // is mostly the luckiest one.
  double min_z = 0;
  int threads = 1;     // worlds played out at once; the result does not depend on it
  // > 0: after this many worlds the rest are played only if a candidate is then ahead of the
  // base's choice, so that the time goes to the decisions where the gate may open.
  int first_worlds = 0;
  // Plays the compared moves' worlds out at every seat; unset: the base. A cheaper policy
  // buys more worlds in the same time.
  Policy playouts;
  // Scores of the turn's legal moves (higher is better, e.g. a network's): the candidates
  // after the base's choice are the best scored instead of random legal moves.
  std::function<absl::StatusOr<std::vector<float>>(const Turn&)> scores;
};

struct RolloutValues {
  std::vector<double> mean;  // per move: the mean SeatResults of the seat to move
  // Per move: the standard error of its mean gain over the first move, world by world.
  std::vector<double> gain_error;
};

// Per world, each move's SeatResults for the seat to move: results[world][move].
using WorldResults = std::vector<std::vector<float>>;

// The results of `moves` in one world per seed (resampled from the view with it, then
// played out with it by `base`).
absl::StatusOr<WorldResults> PairedRolloutResults(const Game& game, const v1::View& view,
                                                  std::span<const Move> moves, const Policy& base,
                                                  std::span<const uint64_t> world_seeds, int threads = 1);

// One decision's paired rollouts, to be played with others.
struct RolloutRequest {
  v1::View view;
  std::vector<Move> moves;
  std::vector<uint64_t> world_seeds;
};
// PairedRolloutResults of every request, their worlds all played out on the same `threads`
// threads: a game's few sampled decisions keep the threads busier than each decision's
// handful of worlds on its own. The results are those of the requests one by one.
absl::StatusOr<std::vector<WorldResults>> PairedRolloutResults(const Game& game,
                                                               std::span<const RolloutRequest> requests,
                                                               const Policy& base, int threads = 1);
// The moves' means and gains over the first move; `results` holds at least one world.
RolloutValues SummarizeRollouts(const WorldResults& results);

// PairedRolloutResults summarized.
absl::StatusOr<RolloutValues> PairedRolloutValues(const Game& game, const v1::View& view,
                                                        std::span<const Move> moves,
                                                        const Policy& base,
                                                        std::span<const uint64_t> world_seeds,
                                                        int threads = 1);

// The candidates a rollout compares for `turn`: `reference` (a random legal move if none)
// first, then the `preferred` moves, then other legal moves in random order, up to `count`
// distinct moves (all legal moves when count is 0).
std::vector<Move> RolloutCandidates(const Turn& turn, std::optional<Move> reference,
                                    std::span<const Move> preferred, int count, Rng& rng);

// `legal` ordered by `scores` (one per move), highest first; equal scores keep their order.
std::vector<Move> MovesByScore(std::span<const Move> legal, std::span<const float> scores);

// Plays the candidate with the best paired-rollout value; the base policy's own choice is
// a candidate and wins ties.
Policy RolloutPolicy(const Game& game, Policy base, RolloutOptions options);

}  // namespace gavel::learn
