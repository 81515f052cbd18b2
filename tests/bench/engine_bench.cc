// In-process engine throughput per game: random play with legal-move generation included
// (the docs/design.md target is 1,000,000 Apply/s per core averaged over the games), legal-move
// generation alone, and the largest serialized state seen.
//
//   build/tests/bench/engine_bench --benchmark_min_time=1
#include <algorithm>

#include "benchmark/benchmark.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"

namespace gavel {
namespace {

std::unique_ptr<State> Fresh(const Game& game, int players, uint64_t seed) {
  return std::move(*game.NewGame(players, seed, {}));
}

// Random play: LegalMoves + ApplyLegal per move; a finished game is replaced by a new one.
void RandomPlay(benchmark::State& bench, const Game* game, int players) {
  Rng rng(1);
  uint64_t seed = 1;
  std::unique_ptr<State> state = Fresh(*game, players, seed);
  std::vector<Move> legal;
  int64_t applied = 0, games = 0;
  for (auto _ : bench) {
    if (state->finished()) {
      state = Fresh(*game, players, ++seed);
      ++games;
    }
    state->LegalMoves(legal);
    state->ApplyLegal(legal[rng.Below(static_cast<uint32_t>(legal.size()))], nullptr);
    ++applied;
  }
  bench.SetItemsProcessed(applied);
  bench.counters["games"] = static_cast<double>(games);
}

// Legal-move generation alone, over states sampled from random games.
void LegalMovesOnly(benchmark::State& bench, const Game* game, int players) {
  std::vector<std::unique_ptr<State>> states;
  Rng rng(2);
  std::vector<Move> legal;
  for (uint64_t seed = 1; states.size() < 512; ++seed) {
    auto state = Fresh(*game, players, seed);
    while (!state->finished()) {
      if (rng.Below(8) == 0) states.push_back(state->Clone());
      state->LegalMoves(legal);
      state->ApplyLegal(legal[rng.Below(static_cast<uint32_t>(legal.size()))], nullptr);
    }
  }
  size_t i = 0, moves = 0;
  for (auto _ : bench) {
    states[i++ % states.size()]->LegalMoves(legal);
    moves += legal.size();
    benchmark::DoNotOptimize(legal.data());
  }
  bench.SetItemsProcessed(static_cast<int64_t>(i));
  bench.counters["moves_per_call"] = static_cast<double>(moves) / static_cast<double>(i);
}

// The largest serialized full state over many random games (target: under 4 KiB).
void StateSize(benchmark::State& bench, const Game* game, int players) {
  size_t largest = 0, total = 0, count = 0;
  for (auto _ : bench) {
    Rng rng(3);
    std::vector<Move> legal;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto state = Fresh(*game, players, seed);
      while (true) {
        const size_t size = state->Bytes().size();
        largest = std::max(largest, size);
        total += size;
        ++count;
        if (state->finished()) break;
        state->LegalMoves(legal);
        state->ApplyLegal(legal[rng.Below(static_cast<uint32_t>(legal.size()))], nullptr);
      }
    }
  }
  bench.counters["max_state_bytes"] = static_cast<double>(largest);
  bench.counters["mean_state_bytes"] = static_cast<double>(total) / static_cast<double>(count);
}

void RegisterAll() {
  for (const Game* game : AllGames()) {
    const GameInfo& info = game->info();
    for (int players = info.min_players; players <= info.max_players; ++players) {
      const std::string suffix = game->name() + "/players:" + std::to_string(players);
      benchmark::RegisterBenchmark(("RandomPlay/" + suffix).c_str(), RandomPlay, game, players);
      benchmark::RegisterBenchmark(("LegalMoves/" + suffix).c_str(), LegalMovesOnly, game, players);
      benchmark::RegisterBenchmark(("StateSize/" + suffix).c_str(), StateSize, game, players)
          ->Iterations(1);
    }
  }
}

}  // namespace
}  // namespace gavel

int main(int argc, char** argv) {
  gavel::RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
