#include "learn/play.h"

#include <cmath>
#include <thread>

#include "absl/strings/str_cat.h"
#include "learn/ismcts.h"

namespace gavel::learn {
namespace {

// A game's result for the candidate seat.
struct SeatResult {
  double win = 0;  // 1/k for a win shared by k seats
  double score = 0;
  double reward = 0;
};

absl::StatusOr<SeatResult> PlayRotated(const Game& game, int players, const OptionMap& options,
                                       const Policy& candidate, const Policy& opponent,
                                       int index, uint64_t seed) {
  auto probe = game.NewGame(players, 0, options);
  if (!probe.ok()) return probe.status();
  const int seats = (*probe)->seats();
  // Seats of automata (decided by the rules) take no policy; rotate over the others.
  std::vector<Seat> deciders;
  for (Seat s = 0; s < seats; ++s)
    if (!(*probe)->IsAutomaton(s)) deciders.push_back(s);
  const Seat mine = deciders[static_cast<size_t>(index) % deciders.size()];
  std::vector<Policy> policies(seats, opponent);
  policies[mine] = candidate;
  const Match match{players, options, seed + static_cast<uint64_t>(index) / deciders.size()};
  Rng rng(Rng::FromSeed(seed ^ (0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(index) + 1))));
  auto outcome = PlayGame(game, match, policies, rng);
  if (!outcome.ok()) return outcome.status();
  int winners = 0;
  for (int rank : outcome->ranks) winners += rank == 1;
  return SeatResult{outcome->ranks[mine] == 1 ? 1.0 / winners : 0.0, outcome->scores[mine],
                    PlaceRewards(*outcome)[mine]};
}

// Mean and 95% half-width of `values`.
std::pair<double, double> MeanAndCi95(const std::vector<double>& values) {
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double variance = 0;
  for (double v : values) variance += (v - mean) * (v - mean);
  variance /= std::max<double>(1, static_cast<double>(values.size()) - 1);
  return {mean, 1.96 * std::sqrt(variance / static_cast<double>(values.size()))};
}

}  // namespace

const google::protobuf::RepeatedPtrField<v1::Move>& Turn::Described() const {
  if (described_given_ != nullptr) return *described_given_;
  if (!described_) {
    described_.emplace();
    for (Move move : legal_) {
      v1::Move* described = described_->Add();
      described->set_id(move.id);
      state_->MoveDetail(move, described->mutable_detail());
    }
  }
  return *described_;
}

Policy RandomPolicy() {
  return [](const Turn& turn, Rng& rng) -> absl::StatusOr<Move> {
    return turn.legal()[rng.Below(static_cast<uint32_t>(turn.legal().size()))];
  };
}

absl::Status PlayToEnd(State& state, const Decider& decide) {
  std::vector<Move> legal;
  v1::View view;
  while (!state.finished()) {
    const Seat seat = state.to_move();
    state.LegalMoves(legal);
    view.Clear();
    state.Observe(seat, &view);
    auto move = decide(Turn(state, view, legal), seat);
    if (!move.ok()) return move.status();
    if (auto status = state.Apply(*move); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<Outcome> PlayGame(const Game& game, const Match& match,
                                 std::span<const Policy> policies, Rng& rng) {
  auto created = game.NewGame(match.players, match.seed, match.options);
  if (!created.ok()) return created.status();
  State& state = **created;
  if (policies.size() < static_cast<size_t>(state.seats()))
    return absl::InvalidArgumentError("a policy is needed for every seat");
  auto played = PlayToEnd(state, [&](const Turn& turn, Seat seat) { return policies[seat](turn, rng); });
  if (!played.ok()) return played;
  return state.outcome();
}

absl::StatusOr<Evaluation> Evaluate(const Game& game, int players, const OptionMap& options,
                                    const Policy& candidate, const Policy& opponent, int games,
                                    uint64_t seed, int threads) {
  if (games <= 0) return absl::InvalidArgumentError("an evaluation needs at least one game");
  threads = std::clamp(threads, 1, games);
  std::vector<absl::StatusOr<SeatResult>> results(static_cast<size_t>(games));
  auto worker = [&](int first) {
    for (int g = first; g < games; g += threads)
      results[static_cast<size_t>(g)] =
          PlayRotated(game, players, options, candidate, opponent, g, seed);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (std::thread& thread : pool) thread.join();

  std::vector<double> wins, scores;
  Evaluation result;
  for (const auto& played : results) {
    if (!played.ok()) return played.status();
    wins.push_back(played->win);
    scores.push_back(played->score);
    result.mean_reward += played->reward;
  }
  result.games = games;
  std::tie(result.win_rate, result.win_rate_ci95) = MeanAndCi95(wins);
  std::tie(result.mean_score, result.mean_score_ci95) = MeanAndCi95(scores);
  result.mean_reward /= games;
  return result;
}

}  // namespace gavel::learn
