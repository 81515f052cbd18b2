#pragma once
// Information-set Monte Carlo tree search (Cowling, Powley, Whitehouse 2012, SO-ISMCTS):
// each iteration resamples a full state from the seat's view (so it never uses hidden
// information), descends one shared tree of moves with UCB1 over availability counts,
// plays the rest at random and backs up each seat's reward.
#include <cstdint>
#include <functional>
#include <span>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "learn/play.h"

namespace gavel::learn {

struct IsmctsOptions {
  int iterations = 400;       // per decision; ignored when time_budget_ms > 0
  double time_budget_ms = 0;  // > 0: search until this much time has passed
  double exploration = 0.7;   // UCB1 constant, rewards are in [0, 1]
  uint64_t seed = 1;
  // With root priors (IsmctsChoose): the weight of a move's prior against its mean reward at
  // the root (PUCT), where moves are tried in the priors' order instead of all once first.
  double prior_weight = 1.0;
  // > 0: a play-out stops after this many moves, and each seat's reward is then its place by
  // the scores so far (Outcome::scores), for games whose random play-outs run long.
  int playout_moves = 0;
  // Plays the players' moves of a play-out from their views, if set (automata and unset:
  // random). Must outlive the search; an error from it ends the search with that error.
  const Policy* playout_policy = nullptr;
  // Each seat's reward in [0, 1] where a play-out stops before the end (e.g. a value
  // network's, learn/value_network.h), if set; play-outs then stop after playout_moves moves,
  // 0 meaning at the new leaf itself, and finished games still reward their places.
  std::function<absl::StatusOr<std::vector<double>>(const State&)> leaf_values;
};

// Reward of each seat at the end of a game: 1 for the best place, 0 for the worst,
// linear in between (shared places share the reward).
std::vector<double> PlaceRewards(const Outcome& outcome);
// The same for an unfinished game, by its scores so far (equal scores share a place).
std::vector<double> ProvisionalRewards(const Outcome& outcome);

// What a search found at the root, per move of `legal`: how often it was played there and
// its mean reward for the seat to move (0 where never played). `chosen` is the most visited
// (the first among equals). A single legal move is chosen without a search.
struct IsmctsRoot {
  std::vector<int> visits;
  std::vector<double> mean_reward;
  size_t chosen = 0;
};

absl::StatusOr<IsmctsRoot> IsmctsSearch(const Game& game, const v1::View& view,
                                        std::span<const Move> legal, const IsmctsOptions& options,
                                        std::span<const double> root_priors = {});

// The move ISMCTS chooses for the seat whose view this is, among `legal`. `root_priors`, if
// given, holds a probability for each of `legal` (e.g. from a network): the root then selects
// by PUCT (AlphaZero's rule: mean + weight * prior * sqrt(parent visits) / (1 + visits)), so a
// search that cannot try every move in its budget spends it on the likely ones.
absl::StatusOr<Move> IsmctsChoose(const Game& game, const v1::View& view,
                                  std::span<const Move> legal, const IsmctsOptions& options,
                                  std::span<const double> root_priors = {});

// ISMCTS as a Policy: each decision searches with a seed drawn from the turn's generator.
Policy IsmctsPolicy(const Game& game, IsmctsOptions options);
// The same for every game of this build, by the view's game.
Policy IsmctsPolicy(IsmctsOptions options);

}  // namespace gavel::learn
