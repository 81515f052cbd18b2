#include "learn/play.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "learn/ismcts.h"

namespace gavel::learn {

Policy RandomPolicy() {
  return [](const v1::View&, std::span<const Move> legal, Rng& rng) -> absl::StatusOr<Move> {
    return legal[rng.Below(static_cast<uint32_t>(legal.size()))];
  };
}

absl::StatusOr<Outcome> PlayGame(const Game& game, const Match& match,
                                 std::span<const Policy> policies, Rng& rng) {
  auto created = game.NewGame(match.players, match.seed, match.options);
  if (!created.ok()) return created.status();
  State& state = **created;
  if (policies.size() < static_cast<size_t>(state.seats()))
    return absl::InvalidArgumentError("a policy is needed for every seat");
  std::vector<Move> legal;
  while (!state.finished()) {
    const Seat seat = state.to_move();
    state.LegalMoves(legal);
    v1::View view;
    state.Observe(seat, &view);
    auto move = policies[seat](view, legal, rng);
    if (!move.ok()) return move.status();
    if (auto status = state.Apply(*move); !status.ok()) return status;
  }
  return state.outcome();
}

absl::StatusOr<Evaluation> Evaluate(const Game& game, int players, const OptionMap& options,
                                    const Policy& candidate, const Policy& opponent, int games,
                                    uint64_t seed) {
  Evaluation result;
  std::vector<double> wins;
  Rng rng(Rng::FromSeed(seed));
  for (int g = 0; g < games; ++g) {
    auto probe = game.NewGame(players, 0, options);
    if (!probe.ok()) return probe.status();
    const int seats = (*probe)->seats();
    // Seats of automata (decided by the rules) take no policy; rotate over the others.
    std::vector<Seat> deciders;
    for (Seat s = 0; s < seats; ++s)
      if (!(*probe)->IsAutomaton(s)) deciders.push_back(s);
    const Seat mine = deciders[static_cast<size_t>(g) % deciders.size()];
    std::vector<Policy> policies(seats, opponent);
    policies[mine] = candidate;
    const Match match{players, options, seed + static_cast<uint64_t>(g / deciders.size())};
    auto outcome = PlayGame(game, match, policies, rng);
    if (!outcome.ok()) return outcome.status();
    int winners = 0;
    for (int rank : outcome->ranks) winners += rank == 1;
    wins.push_back(outcome->ranks[mine] == 1 ? 1.0 / winners : 0.0);
    result.mean_score += outcome->scores[mine];
    result.mean_reward += PlaceRewards(*outcome)[mine];
  }
  result.games = games;
  for (double w : wins) result.win_rate += w;
  result.win_rate /= games;
  double variance = 0;
  for (double w : wins) variance += (w - result.win_rate) * (w - result.win_rate);
  variance /= std::max(1, games - 1);
  result.win_rate_ci95 = 1.96 * std::sqrt(variance / games);
  result.mean_score /= games;
  result.mean_reward /= games;
  return result;
}

}  // namespace gavel::learn
