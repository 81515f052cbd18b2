// The learned bot's decision time, as the bot process pays it: a turn's view and its legal
// moves already described (as the arena sends them), the repository's 4-seat networks.
// One benchmark per game over the decisions of one seeded game played by Dirk at every seat.
#include <benchmark/benchmark.h>

#include "bots/in_process.h"
#include "engine/core/registry.h"

namespace gavel {
namespace {

struct Decision {
  v1::View view;
  google::protobuf::RepeatedPtrField<v1::Move> legal;
};

std::vector<Decision> DirkGame(const Game& game) {
  auto dirk = *bots::DirkInProcess(game.name());
  auto state = std::move(*game.NewGame(4, 17, {}));
  Rng rng(1);
  std::vector<Decision> decisions;
  std::vector<Move> legal;
  while (!state->finished()) {
    state->LegalMoves(legal);
    Decision decision;
    state->Observe(state->to_move(), &decision.view);
    const learn::Turn turn(*state, decision.view, legal);
    decision.legal = turn.Described();
    const Move move = *dirk(turn, rng);
    decisions.push_back(std::move(decision));
    state->ApplyLegal(move, nullptr);
  }
  return decisions;
}

void BM_LearnedChoose(benchmark::State& bench, const std::string& game_name) {
  static const auto learned = std::move(*bots::LearnedPolicy::Load(GAVEL_WEIGHTS_DIR));
  const std::vector<Decision> decisions = DirkGame(*FindGame(game_name));
  size_t next = 0, moves = 0;
  for (auto _ : bench) {
    const Decision& decision = decisions[next];
    benchmark::DoNotOptimize(learned->ChooseOrError(decision.view, decision.legal));
    moves += static_cast<size_t>(decision.legal.size());
    next = (next + 1) % decisions.size();
  }
  bench.counters["legal_moves"] = benchmark::Counter(static_cast<double>(moves) /
                                                     static_cast<double>(bench.iterations()));
}

}  // namespace
}  // namespace gavel

int main(int argc, char** argv) {
  for (const gavel::Game* game : gavel::AllGames())
    benchmark::RegisterBenchmark(("BM_LearnedChoose/" + game->name()).c_str(),
                                 gavel::BM_LearnedChoose, game->name())
        ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
