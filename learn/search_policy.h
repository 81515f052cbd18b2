#pragma once
// The search bot's policy: ISMCTS (learn/ismcts.h) guided by the learned network. At the root
// each move gets a prior: half on the learned bot's own choice, half spread by a softmax of
// the network's scores (scaled by their spread, so any network's score units work); the root
// selects by PUCT, so the time budget goes to the moves the network likes and the search
// corrects it where play-outs disagree. Below the root and in play-outs it is plain ISMCTS.
// Where the weights hold a value network for the table (learn/value_network.h), play-outs
// stop early and it judges how each seat stands. Where no network fits the table it is plain
// ISMCTS. In Mercado it searches by paired rollouts instead (SearchMethod).
#include <optional>

#include "learn/ismcts.h"
#include "learn/learned_policy.h"

namespace gavel::learn {

enum class SearchMethod {
  kIsmcts,  // as above
  // Paired rollouts (learn/rollout.h): the learned bot's choice against the network's best
  // scored other move, each played first and then by Dirk's rules at every seat in the same
  // resampled worlds; the other move is played only for a gain of two standard errors. A
  // few worlds first, the rest only where the other move then leads, so the time goes to
  // the decisions where the choice may change. The budget is counted in worlds, not time:
  // the same moves from a seed on any machine.
  kPairedRollouts,
};

// The method of the search bot in `game`: paired rollouts in Mercado, where random play-outs
// mislead and the network's own are too slow for ISMCTS at 10 ms to overrule it (0.251 of
// 2,000 games against three learned bots), and paired rollouts by Dirk's rules won 0.344 of
// the same 2,000 at 10.1 ms a decision on average (docs/learning.md); ISMCTS elsewhere.
SearchMethod DefaultSearchMethod(absl::string_view game);

struct SearchOptions {
  double time_ms = 10;        // per decision, the network's scoring included
  // > 0: this many ISMCTS iterations a decision instead of `time_ms`, so that a seed gives the
  // same moves on any machine and under any load.
  int iterations = 0;
  double prior_weight = 1.0;  // PUCT's weight of the priors against the mean rewards
  double choice_share = 0.5;  // of the prior given to the learned bot's own choice
  // IsmctsOptions::playout_moves (0: play-outs to the end); < 0: the game's own default,
  // DefaultPlayoutMoves.
  int playout_moves = -1;
  // The play-out length the search uses in `game`.
  int PlayoutMovesIn(absl::string_view game) const;
  // The players' moves in play-outs by the learned bot (each from its own view) instead of at
  // random.
  bool learned_playouts = false;
  // With a value network for the table (LearnedPolicy::ValueFor): play-outs stop after this
  // many moves and the network's values of every seat are the rewards (0: at the new leaf).
  // < 0: the value networks are not used.
  int value_playout_moves = kValuePlayoutMoves;
  // In Morgenland (the one game with value networks), 40 moves and the value network won
  // 0.244 of 800 games against four learned bots where the scores so far after 40 moves won
  // 0.204 on the same deals, and 0.04-0.06 more at three and four players (docs/learning.md).
  static constexpr int kValuePlayoutMoves = 40;
  std::optional<SearchMethod> method = std::nullopt;  // unset: the game's DefaultSearchMethod
  SearchMethod MethodIn(absl::string_view game) const { return method.value_or(DefaultSearchMethod(game)); }
  // Paired rollouts: the worlds played at every decision, and at most where the other move
  // then leads. `time_ms` and `iterations` are ISMCTS's.
  int paired_first_worlds = 3;
  int paired_worlds = 12;
};

// How many moves the search bot's play-outs run by default in `game`: 0 (to the end) but where
// random play-outs run far longer than games do.
int DefaultPlayoutMoves(absl::string_view game);

// The search's settings for a turn of `view`'s table (its seed, budget and play-out policy
// aside): the prior weight, the play-out length, and the table's value network at the
// play-outs' end if the weights hold one and `options` use it. `learned` must outlive them.
IsmctsOptions SearchSettings(const LearnedPolicy& learned, const v1::View& view, const SearchOptions& options);
// Sets `search`'s budget for a turn whose network scoring took `scoring_ms`: `options`'
// iterations, or what is left of its time.
void SetBudget(const SearchOptions& options, double scoring_ms, IsmctsOptions* search);

// `learned` must outlive the policy. Safe to call from several threads at once.
Policy SearchPolicy(const LearnedPolicy& learned, SearchOptions options);

// The root priors for a turn (one per legal move, summing to 1); NotFound without a network.
absl::StatusOr<std::vector<double>> NetworkPriors(const LearnedPolicy& learned, const Turn& turn,
                                                  double choice_share);

}  // namespace gavel::learn
