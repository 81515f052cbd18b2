#include "learn/search_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "learn/rollout.h"
#include "policy/dirk/dirk.h"

namespace gavel::learn {

absl::StatusOr<std::vector<double>> NetworkPriors(const LearnedPolicy& learned, const Turn& turn,
                                                  double choice_share) {
  auto scores = learned.Scores(turn);
  if (!scores.ok()) return scores.status();
  auto choice = learned.Choose(turn);
  if (!choice.ok()) return choice.status();
  const size_t n = scores->size();
  const double best = *std::max_element(scores->begin(), scores->end());
  double mean = 0, spread = 0;
  for (float score : *scores) mean += score;
  mean /= static_cast<double>(n);
  for (float score : *scores) spread += (score - mean) * (score - mean);
  spread = std::max(std::sqrt(spread / static_cast<double>(n)), 1e-6);
  std::vector<double> priors(n);
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += priors[i] = std::exp(((*scores)[i] - best) / spread);
  for (size_t i = 0; i < n; ++i) {
    priors[i] = (1 - choice_share) * priors[i] / total;
    if (turn.legal()[i] == *choice) priors[i] += choice_share;
  }
  return priors;
}

int DefaultPlayoutMoves(absl::string_view game) {
  // A random game of Morgenland at four seats takes about 2,740 moves against about 360 for a
  // played one, so the end of a random play-out says little about where it began; cut at 40
  // moves, one search seat won 0.330 of 400 games against three learned bots (0.242 to the
  // end; docs/learning.md).
  return game == "morgenland" ? 40 : 0;
}

SearchMethod DefaultSearchMethod(absl::string_view game) {
  return game == "mercado" ? SearchMethod::kPairedRollouts : SearchMethod::kIsmcts;
}

int SearchOptions::PlayoutMovesIn(absl::string_view game) const {
  return playout_moves >= 0 ? playout_moves : DefaultPlayoutMoves(game);
}

IsmctsOptions SearchSettings(const LearnedPolicy& learned, const v1::View& view, const SearchOptions& options) {
  IsmctsOptions search;
  search.prior_weight = options.prior_weight;
  search.playout_moves = options.PlayoutMovesIn(view.game());
  if (const ValueNetwork* value = learned.ValueFor(view); value && options.value_playout_moves >= 0) {
    search.playout_moves = options.value_playout_moves;
    search.leaf_values = [value](const State& state) { return value->SeatValues(state); };
  }
  return search;
}

void SetBudget(const SearchOptions& options, double scoring_ms, IsmctsOptions* search) {
  if (options.iterations > 0) {
    search->iterations = options.iterations;
    search->time_budget_ms = 0;
    return;
  }
  search->time_budget_ms = std::max(options.time_ms - scoring_ms, 1e-3);
}

namespace {

// The paired rollouts of each game of this build that searches by them and that Dirk plays.
std::map<std::string, Policy> PairedRolloutPolicies(const LearnedPolicy& learned, const SearchOptions& options) {
  std::map<std::string, Policy> policies;
  for (const Game* game : AllGames()) {
    if (options.MethodIn(game->name()) != SearchMethod::kPairedRollouts) continue;
    auto dirk = policy::dirk::Dirk(game->name());
    if (!dirk.ok()) continue;
    RolloutOptions rollouts;
    rollouts.worlds = options.paired_worlds;
    rollouts.first_worlds = options.paired_first_worlds;
    rollouts.candidates = 2;
    rollouts.min_z = 2;
    rollouts.playouts = *std::move(dirk);
    rollouts.scores = [&learned](const Turn& turn) { return learned.Scores(turn); };
    policies.emplace(game->name(), RolloutPolicy(*game, learned.AsPolicy(), std::move(rollouts)));
  }
  return policies;
}

}  // namespace

Policy SearchPolicy(const LearnedPolicy& learned, SearchOptions options) {
  auto playout = options.learned_playouts ? std::make_shared<const Policy>(learned.AsPolicy()) : nullptr;
  auto paired = std::make_shared<const std::map<std::string, Policy>>(PairedRolloutPolicies(learned, options));
  return [&learned, options, playout, paired](const Turn& turn) -> absl::StatusOr<Move> {
    const auto start = std::chrono::steady_clock::now();
    const Game* game = FindGame(turn.view().game());
    if (game == nullptr)
      return absl::NotFoundError(absl::StrCat("this build has no game ", turn.view().game()));
    if (turn.legal().size() == 1) return turn.legal().front();
    if (auto rollouts = paired->find(game->name()); rollouts != paired->end() && learned.HasNetworkFor(turn.view()))
      return rollouts->second(turn);
    auto priors = NetworkPriors(learned, turn, options.choice_share);
    IsmctsOptions search = SearchSettings(learned, turn.view(), options);
    search.seed = turn.rng().Next();
    search.playout_policy = playout.get();
    const std::chrono::duration<double, std::milli> scoring = std::chrono::steady_clock::now() - start;
    SetBudget(options, scoring.count(), &search);
    if (!priors.ok()) return IsmctsChoose(*game, turn.view(), turn.legal(), search);  // no network
    return IsmctsChoose(*game, turn.view(), turn.legal(), search, *priors);
  };
}

}  // namespace gavel::learn
