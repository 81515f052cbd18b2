#include "learn/rollout.h"

#include <algorithm>
#include <cmath>

#include "engine/core/status.h"
#include "learn/ismcts.h"
#include "learn/play.h"

namespace gavel::learn {
namespace {

// Plays `first` in `world`, then `base` at every seat to the end; the result of `seat`.
absl::StatusOr<float> PlayOut(const State& world, Move first, Seat seat, const Policy& base,
                               uint64_t seed) {
  std::unique_ptr<State> state = world.Clone();
  GAVEL_RETURN_IF_ERROR(state->Apply(first));
  Rng rng(Rng::FromSeed(seed));
  if (auto played = PlayToEnd(*state, [&](const Turn& turn, Seat) { return base(turn); }, rng);
      !played.ok())
    return played;
  return SeatResults(state->outcome())[static_cast<size_t>(seat)];
}

}  // namespace

std::vector<float> SeatResults(const Outcome& outcome) {
  const std::vector<double> places = PlaceRewards(outcome);
  int winners = 0;
  for (int rank : outcome.ranks) winners += rank == 1;
  std::vector<float> results;
  for (size_t seat = 0; seat < places.size(); ++seat) {
    const double win = outcome.ranks[seat] == 1 ? 1.0 / winners : 0.0;
    results.push_back(static_cast<float>((places[seat] + win) / 2));
  }
  return results;
}

absl::StatusOr<WorldResults> PairedRolloutResults(const Game& game, const v1::View& view,
                                                  std::span<const Move> moves, const Policy& base,
                                                  std::span<const uint64_t> world_seeds, int threads) {
  const RolloutRequest request{view, {moves.begin(), moves.end()}, {world_seeds.begin(), world_seeds.end()}};
  auto results = PairedRolloutResults(game, std::span<const RolloutRequest>(&request, 1), base, threads);
  if (!results.ok()) return results.status();
  return std::move(results->front());
}

absl::StatusOr<std::vector<WorldResults>> PairedRolloutResults(const Game& game,
                                                               std::span<const RolloutRequest> requests,
                                                               const Policy& base, int threads) {
  // Every world of every request is one task with its own result slot; the results do not
  // depend on which thread plays which.
  std::vector<WorldResults> results;
  std::vector<std::pair<size_t, size_t>> tasks;  // request, world
  for (size_t r = 0; r < requests.size(); ++r) {
    const RolloutRequest& request = requests[r];
    if (request.world_seeds.empty()) return absl::InvalidArgumentError("rollouts need at least one world");
    results.emplace_back(request.world_seeds.size(), std::vector<float>(request.moves.size()));
    for (size_t w = 0; w < request.world_seeds.size(); ++w) tasks.emplace_back(r, w);
  }
  std::vector<absl::Status> errors(tasks.size());
  ParallelFor(static_cast<int>(tasks.size()), threads, [&](int task) {
    const auto [r, w] = tasks[static_cast<size_t>(task)];
    const RolloutRequest& request = requests[r];
    absl::Status& error = errors[static_cast<size_t>(task)];
    auto world = game.Resample(request.view, request.world_seeds[w]);
    if (!world.ok()) {
      error = world.status();
      return;
    }
    const Seat seat = (*world)->to_move();
    for (size_t i = 0; i < request.moves.size() && error.ok(); ++i) {
      auto result = PlayOut(**world, request.moves[i], seat, base, request.world_seeds[w]);
      if (result.ok()) results[r][w][i] = *result;
      else error = result.status();
    }
  });
  for (const absl::Status& error : errors) GAVEL_RETURN_IF_ERROR(error);
  return results;
}

RolloutValues SummarizeRollouts(const WorldResults& results) {
  const size_t moves = results.front().size();
  const double worlds = static_cast<double>(results.size());
  RolloutValues values;
  values.mean.assign(moves, 0);
  for (const auto& world : results)
    for (size_t i = 0; i < moves; ++i) values.mean[i] += world[i];
  for (double& mean : values.mean) mean /= worlds;
  values.gain_error.assign(moves, 0);
  for (size_t i = 1; i < moves && results.size() > 1; ++i) {
    const double gain = values.mean[i] - values.mean[0];
    double squares = 0;
    for (const auto& world : results) squares += std::pow(world[i] - world[0] - gain, 2);
    values.gain_error[i] = std::sqrt(squares / (worlds - 1) / worlds);
  }
  return values;
}

absl::StatusOr<RolloutValues> PairedRolloutValues(const Game& game, const v1::View& view,
                                                        std::span<const Move> moves,
                                                        const Policy& base,
                                                        std::span<const uint64_t> world_seeds,
                                                        int threads) {
  auto results = PairedRolloutResults(game, view, moves, base, world_seeds, threads);
  if (!results.ok()) return results.status();
  return SummarizeRollouts(*results);
}

std::vector<Move> RolloutCandidates(const Turn& turn, std::optional<Move> reference,
                                    std::span<const Move> preferred, int count, Rng& rng) {
  std::vector<Move> others(turn.legal().begin(), turn.legal().end());
  rng.Shuffle(others.data(), static_cast<int>(others.size()));
  std::vector<Move> moves = {reference.value_or(others.front())};
  auto add = [&](Move move) {
    if ((count <= 0 || moves.size() < static_cast<size_t>(count)) &&
        std::find(moves.begin(), moves.end(), move) == moves.end())
      moves.push_back(move);
  };
  for (Move move : preferred) add(move);
  for (Move move : others) add(move);
  return moves;
}

std::vector<Move> MovesByScore(std::span<const Move> legal, std::span<const float> scores) {
  std::vector<size_t> order(legal.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::vector<Move> moves;
  for (size_t i : order) moves.push_back(legal[i]);
  return moves;
}

Policy RolloutPolicy(const Game& game, Policy base, RolloutOptions options) {
  if (!options.playouts) options.playouts = base;
  return [&game, base = std::move(base), options](const Turn& turn) -> absl::StatusOr<Move> {
    Rng& rng = turn.rng();
    auto reference = base(turn);
    if (!reference.ok() || turn.legal().size() < 2) return reference;
    std::vector<Move> preferred;
    if (options.scores) {
      auto scores = options.scores(turn);
      if (!scores.ok()) return scores.status();
      preferred = MovesByScore(turn.legal(), *scores);
    }
    const std::vector<Move> moves = RolloutCandidates(turn, *reference, preferred, options.candidates, rng);
    std::vector<uint64_t> world_seeds(static_cast<size_t>(std::max(options.worlds, 1)));
    for (uint64_t& seed : world_seeds) seed = rng.Next();
    const std::span<const uint64_t> seeds(world_seeds);
    const size_t first = options.first_worlds > 0 ? std::min<size_t>(options.first_worlds, seeds.size()) : seeds.size();
    auto results = PairedRolloutResults(game, turn.view(), moves, options.playouts, seeds.first(first), options.threads);
    if (!results.ok()) return results.status();
    const std::vector<double> early = SummarizeRollouts(*results).mean;
    const bool a_candidate_leads = std::max_element(early.begin(), early.end()) != early.begin();
    if (first < seeds.size() && a_candidate_leads) {
      auto rest = PairedRolloutResults(game, turn.view(), moves, options.playouts, seeds.subspan(first), options.threads);
      if (!rest.ok()) return rest.status();
      results->insert(results->end(), rest->begin(), rest->end());
    }
    const RolloutValues values = SummarizeRollouts(*results);
    // The best significant gain, else the base's choice.
    size_t best = 0;
    for (size_t i = 1; i < moves.size(); ++i) {
      const double gain = values.mean[i] - values.mean[0];
      if (values.mean[i] > values.mean[best] && gain > options.min_z * values.gain_error[i])
        best = i;
    }
    return moves[best];
  };
}

}  // namespace gavel::learn
