// The learned bot's decision time, as the bot process pays it: a turn's view and its legal
// moves already described (as the arena sends them), the repository's 4-seat networks.
// One benchmark per game over the decisions of one seeded game played by Dirk at every seat.
// And Dirk's play-outs, as paired rollouts (learn/rollout.h) play them: one game of Dirk at
// every seat, a new deal each iteration, through the policy interface (a view and described
// moves per turn).
#include <benchmark/benchmark.h>

#include "engine/core/registry.h"
#include "learn/learned_policy.h"
#include "learn/play.h"
#include "policy/dirk/dirk.h"

namespace gavel {
namespace {

struct Decision {
  v1::View view;
  google::protobuf::RepeatedPtrField<v1::Move> legal;
};

std::vector<Decision> DirkGame(const Game& game) {
  auto dirk = *policy::dirk::Dirk(game.name());
  auto state = std::move(*game.NewGame(4, 17, {}));
  Rng rng(1);
  std::vector<Decision> decisions;
  std::vector<Move> legal;
  while (!state->finished()) {
    state->LegalMoves(legal);
    Decision decision;
    state->Observe(state->to_move(), &decision.view);
    const learn::Turn turn(*state, decision.view, legal, rng);
    decision.legal = turn.Described();
    const Move move = *dirk(turn);
    decisions.push_back(std::move(decision));
    state->ApplyLegal(move, nullptr);
  }
  return decisions;
}

void BM_LearnedChoose(benchmark::State& bench, const std::string& game_name) {
  static const auto learned = std::move(*learn::LearnedPolicy::Load(GAVEL_WEIGHTS_DIR));
  Rng rng(1);
  const std::vector<Decision> decisions = DirkGame(*FindGame(game_name));
  size_t next = 0, moves = 0;
  for (auto _ : bench) {
    const Decision& decision = decisions[next];
    std::vector<Move> ids;
    for (const v1::Move& move : decision.legal) ids.push_back(Move{move.id()});
    benchmark::DoNotOptimize(learned->Choose(learn::Turn(decision.view, ids, decision.legal, rng)));
    moves += static_cast<size_t>(decision.legal.size());
    next = (next + 1) % decisions.size();
  }
  bench.counters["legal_moves"] = benchmark::Counter(static_cast<double>(moves) /
                                                     static_cast<double>(bench.iterations()));
}

void BM_DirkPlayOut(benchmark::State& bench, const Game* game, int players) {
  const policy::Policy dirk = *policy::dirk::Dirk(game->name());
  Rng rng(1);
  uint64_t deal = 0;
  size_t moves = 0;
  for (auto _ : bench) {
    auto state = std::move(*game->NewGame(players, ++deal, {}));
    const absl::Status played = learn::PlayToEnd(*state, [&](const learn::Turn& turn, Seat) {
      ++moves;
      return dirk(turn);
    }, rng);
    if (!played.ok()) bench.SkipWithError(played.ToString().c_str());
  }
  bench.counters["moves_per_s"] = benchmark::Counter(static_cast<double>(moves), benchmark::Counter::kIsRate);
}

}  // namespace
}  // namespace gavel

int main(int argc, char** argv) {
  for (const gavel::Game* game : gavel::AllGames())
    benchmark::RegisterBenchmark(("BM_LearnedChoose/" + game->name()).c_str(),
                                 gavel::BM_LearnedChoose, game->name())
        ->Unit(benchmark::kMicrosecond);
  for (const gavel::Game* game : gavel::AllGames())
    for (int players = game->info().min_players; players <= game->info().max_players; ++players)
      benchmark::RegisterBenchmark(("BM_DirkPlayOut/" + game->name() + "/" + std::to_string(players)).c_str(),
                                   gavel::BM_DirkPlayOut, game, players)
          ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
