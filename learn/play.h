#pragma once
// Playing and evaluating policies in-process, with seats rotated and seeded deals.
#include <functional>
#include <optional>
#include <span>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "engine/core/rng.h"
#include "policy/policy.h"

namespace gavel::learn {

// The one policy type (policy/policy.h), used by name here.
using policy::Policy;
using policy::RandomPolicy;
using policy::Turn;

// Decides the move of the seat to move at each turn of PlayToEnd.
using Decider = std::function<absl::StatusOr<Move>(const Turn& turn, Seat seat)>;

// Plays `state` to its end, every move from `decide`; an illegal move is an error. The
// turns carry `rng` as the policies' randomness.
absl::Status PlayToEnd(State& state, const Decider& decide, Rng& rng);

struct Match {
  int players = 0;
  OptionMap options;
  uint64_t seed = 0;
};

// Plays one game with policies[seat] deciding for each seat; returns the final outcome.
absl::StatusOr<Outcome> PlayGame(const Game& game, const Match& match,
                                 std::span<const Policy> policies, Rng& rng);

// body(i) for every i in [0, count), spread over `threads` threads (each takes the next i
// when it is free); the caller gives each i its own result slot, so results do not depend
// on `threads` or on which thread ran which i.
void ParallelFor(int count, int threads, const std::function<void(int)>& body);

// The generator of game `index` of a run seeded `seed`: every game its own, however many
// threads play them.
inline Rng GameRng(uint64_t seed, uint64_t index) {
  return Rng(Rng::FromSeed(seed ^ (0x9e3779b97f4a7c15ULL * (index + 1))));
}

// Mean of `values` and the half-width of its normal-approximation 95% interval.
std::pair<double, double> MeanAndCi95(const std::vector<double>& values);

struct Evaluation {
  int games = 0;
  double win_rate = 0;         // shared wins count 1/k
  double win_rate_ci95 = 0;    // half-width of the normal-approximation 95% interval
  double mean_score = 0;       // the game's points
  double mean_score_ci95 = 0;  // half-width, as above
  double mean_reward = 0;      // PlaceRewards: 1 best .. 0 worst
};

// `candidate` against `opponent` in every other seat, the candidate's seat rotating
// through all seats on the same deal (seed) to cut luck. Games are spread over `threads`;
// every game has its own seeds, so the result does not depend on the thread count.
absl::StatusOr<Evaluation> Evaluate(const Game& game, int players, const OptionMap& options,
                                    const Policy& candidate, const Policy& opponent, int games,
                                    uint64_t seed, int threads = 1);

// The same against a population: on deal d the k-th other seat is played by
// opponents[(d + k) % size], so every member meets the candidate equally often, alone at a
// two-seat table and mixed with the others at larger ones.
absl::StatusOr<Evaluation> Evaluate(const Game& game, int players, const OptionMap& options,
                                    const Policy& candidate, std::span<const Policy> opponents,
                                    int games, uint64_t seed, int threads = 1);

}  // namespace gavel::learn
