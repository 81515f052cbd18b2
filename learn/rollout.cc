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

absl::StatusOr<RolloutValues> PairedRolloutValues(const Game& game, const v1::View& view,
                                                        std::span<const Move> moves,
                                                        const Policy& base,
                                                        std::span<const uint64_t> world_seeds,
                                                        int threads) {
  if (world_seeds.empty()) return absl::InvalidArgumentError("rollouts need at least one world");
  // Each world's results have their own slot and are summed in order afterwards: the
  // means are the same for any thread count.
  const int worlds = static_cast<int>(world_seeds.size());
  std::vector<std::vector<float>> results(world_seeds.size(), std::vector<float>(moves.size()));
  std::vector<absl::Status> errors(world_seeds.size());
  ParallelFor(worlds, threads, [&](int world_index) {
    const size_t w = static_cast<size_t>(world_index);
    auto world = game.Resample(view, world_seeds[w]);
    if (!world.ok()) {
      errors[w] = world.status();
      return;
    }
    const Seat seat = (*world)->to_move();
    for (size_t i = 0; i < moves.size() && errors[w].ok(); ++i) {
      auto result = PlayOut(**world, moves[i], seat, base, world_seeds[w]);
      if (result.ok()) results[w][i] = *result;
      else errors[w] = result.status();
    }
  });
  RolloutValues values;
  values.mean.assign(moves.size(), 0);
  for (size_t w = 0; w < world_seeds.size(); ++w) {
    if (!errors[w].ok()) return errors[w];
    for (size_t i = 0; i < moves.size(); ++i) values.mean[i] += results[w][i];
  }
  for (double& mean : values.mean) mean /= worlds;
  values.gain_error.assign(moves.size(), 0);
  for (size_t i = 1; i < moves.size() && worlds > 1; ++i) {
    const double gain = values.mean[i] - values.mean[0];
    double squares = 0;
    for (const auto& world : results) squares += std::pow(world[i] - world[0] - gain, 2);
    values.gain_error[i] = std::sqrt(squares / (worlds - 1) / worlds);
  }
  return values;
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

Policy RolloutPolicy(const Game& game, Policy base, RolloutOptions options) {
  return [&game, base = std::move(base), options](const Turn& turn) -> absl::StatusOr<Move> {
    Rng& rng = turn.rng();
    auto reference = base(turn);
    if (!reference.ok() || turn.legal().size() < 2) return reference;
    const std::vector<Move> moves = RolloutCandidates(turn, *reference, {}, options.candidates, rng);
    std::vector<uint64_t> world_seeds(static_cast<size_t>(std::max(options.worlds, 1)));
    for (uint64_t& seed : world_seeds) seed = rng.Next();
    auto values = PairedRolloutValues(game, turn.view(), moves, base, world_seeds, options.threads);
    if (!values.ok()) return values.status();
    // The best significant gain, else the base's choice.
    size_t best = 0;
    for (size_t i = 1; i < moves.size(); ++i) {
      const double gain = values->mean[i] - values->mean[0];
      if (values->mean[i] > values->mean[best] && gain > options.min_z * values->gain_error[i])
        best = i;
    }
    return moves[best];
  };
}

}  // namespace gavel::learn
