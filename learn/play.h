#pragma once
// Playing and evaluating policies in-process, with seats rotated and seeded deals.
#include <functional>
#include <optional>
#include <span>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel::learn {

// One decision as a seat sees it: its view and the legal moves. The moves' detail messages
// (what a bot receives over the wire) are given, or built from the state on first use.
class Turn {
 public:
  Turn(const State& state, const v1::View& view, std::span<const Move> legal)
      : state_(&state), view_(view), legal_(legal) {}
  Turn(const v1::View& view, std::span<const Move> legal,
       const google::protobuf::RepeatedPtrField<v1::Move>& described)
      : described_given_(&described), view_(view), legal_(legal) {}
  const v1::View& view() const { return view_; }
  std::span<const Move> legal() const { return legal_; }
  // The legal moves with id and detail, as the arena sends them.
  const google::protobuf::RepeatedPtrField<v1::Move>& Described() const;

 private:
  const State* state_ = nullptr;  // only to describe moves: a policy never sees the full state
  const google::protobuf::RepeatedPtrField<v1::Move>* described_given_ = nullptr;
  const v1::View& view_;
  std::span<const Move> legal_;
  mutable std::optional<google::protobuf::RepeatedPtrField<v1::Move>> described_;
};

// A policy picks one of the legal moves from the seat's view only; `rng` is its own
// randomness. Policies must be safe to call from several threads at once.
using Policy = std::function<absl::StatusOr<Move>(const Turn& turn, Rng& rng)>;

Policy RandomPolicy();

// Decides the move of the seat to move at each turn of PlayToEnd.
using Decider = std::function<absl::StatusOr<Move>(const Turn& turn, Seat seat)>;

// Plays `state` to its end, every move from `decide`; an illegal move is an error.
absl::Status PlayToEnd(State& state, const Decider& decide);

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

}  // namespace gavel::learn
