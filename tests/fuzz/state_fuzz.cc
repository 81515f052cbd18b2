// libFuzzer target: untrusted states and views of every game. Whatever the bytes, decoding
// either refuses them with INVALID_ARGUMENT or yields a state that plays on: the mover
// always has a legal move, every view and resample works, the wire form round-trips.
// Any violation aborts (a finding); ASan and UBSan catch memory and arithmetic errors.
//
// Input: byte 0 picks the game, byte 1 the mode (even: a state, odd: a view), the rest is
// the game's message bytes (the value inside the Any).
// With GAVEL_FUZZ_WRITE_CORPUS=DIR set, it writes a seed corpus from random games and exits.
#include <algorithm>
#include <memory>

#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "tests/fuzz/fuzz_support.h"

namespace gavel {
namespace {

using fuzzing::Require;

// The Any type URLs of a game's state and view messages.
struct TypeUrls {
  std::string state, view;
};

const TypeUrls& UrlsOf(const Game& game) {
  static std::map<const Game*, TypeUrls> cache;
  auto [it, fresh] = cache.try_emplace(&game);
  if (fresh) {
    auto state = std::move(*game.NewGame(game.info().min_players, 1, {}));
    v1::GameState wire;
    state->Serialize(&wire);
    v1::View view;
    state->Observe(0, &view);
    it->second = {wire.state().type_url(), view.view().type_url()};
  }
  return it->second;
}

// Plays a decoded state forward, checking what every reachable state must satisfy.
void Exercise(State& state, uint64_t seed) {
  const Game& game = state.game();
  Rng rng(seed);
  std::vector<Move> legal;
  for (int step = 0; step < 300 && !state.finished(); ++step) {
    state.LegalMoves(legal);
    Require(!legal.empty(), "the seat to move has no legal move");
    const Seat mover = state.to_move();
    Require(mover >= 0 && mover < state.seats(), "the seat to move is out of range");
    v1::GameState wire;
    state.Serialize(&wire);
    auto again = game.Deserialize(wire);
    Require(again.ok(), "a reachable state fails validation:", again.status());
    Require((*again)->Bytes() == state.Bytes(), "the wire round trip changed the state");
    v1::View view;
    state.Observe(mover, &view);
    auto resampled = game.Resample(view, rng.Next());
    Require(resampled.ok(), "the mover's view cannot be resampled");
    Features features;
    Require(game.Featurize(view, legal, &features).ok(), "features failed");
    EventLog log;
    state.ApplyLegal(legal[rng.Below(static_cast<uint32_t>(legal.size()))],
                     step % 3 == 0 ? &log : nullptr);
  }
  state.outcome();
}

// Seeds per game and player count, spread evenly over a random game. A few are enough: the
// fuzzer, guided by the engine's coverage, finds the rest, and every seed is run once before
// fuzzing starts (1,554 seeds, every tenth state of each game, took CTest's state_fuzz 216 s
// of its 60).
constexpr size_t kSeedsPerTable = 12;

// The state and the mover's view of `state`, as two seeds of game `index`.
void WriteSeeds(const State& state, size_t index, fuzzing::CorpusWriter& corpus) {
  v1::GameState wire;
  state.Serialize(&wire);
  v1::View view;
  state.Observe(state.to_move(), &view);
  corpus.Write(state.game().name(), {static_cast<uint8_t>(index), 0}, wire.state().value());
  corpus.Write(state.game().name(), {static_cast<uint8_t>(index), 1}, view.view().value());
}

void WriteCorpus(fuzzing::CorpusWriter& corpus) {
  const auto& games = AllGames();
  for (size_t index = 0; index < games.size(); ++index) {
    const Game& game = *games[index];
    for (int players = game.info().min_players; players <= game.info().max_players; ++players) {
      auto created = game.NewGame(players, 7, {});
      if (!created.ok()) continue;
      auto state = std::move(*created);
      Rng rng(players);
      std::vector<Move> legal;
      std::vector<std::unique_ptr<State>> states;  // the game's states in order
      while (!state->finished()) {
        states.push_back(state->Clone());
        state->LegalMoves(legal);
        state->ApplyLegal(legal[rng.Below(static_cast<uint32_t>(legal.size()))], nullptr);
      }
      const size_t seeds = std::min(kSeedsPerTable, states.size());
      for (size_t i = 0; i < seeds; ++i) WriteSeeds(*states[i * states.size() / seeds], index, corpus);
    }
  }
}

}  // namespace
}  // namespace gavel

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gavel::fuzzing::InitializeFuzzTarget(&gavel::WriteCorpus);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gavel;
  if (size < 2) return 0;
  const auto& games = AllGames();
  const Game& game = *games[data[0] % games.size()];
  const std::string payload(reinterpret_cast<const char*>(data) + 2, size - 2);
  const uint64_t seed = size * 2654435761u + data[size - 1];
  if (data[1] % 2 == 0) {
    v1::GameState wire;
    wire.set_game(game.name());
    wire.mutable_state()->set_type_url(UrlsOf(game).state);
    wire.mutable_state()->set_value(payload);
    auto state = game.Deserialize(wire);
    if (!state.ok()) {
      Require(state.status().code() == absl::StatusCode::kInvalidArgument, "not INVALID_ARGUMENT");
      return 0;
    }
    Exercise(**state, seed);
  } else {
    v1::View view;
    view.set_game(game.name());
    view.mutable_view()->set_type_url(UrlsOf(game).view);
    view.mutable_view()->set_value(payload);
    auto state = game.Resample(view, seed);
    if (!state.ok()) {
      Require(state.status().code() == absl::StatusCode::kInvalidArgument, "not INVALID_ARGUMENT");
      return 0;
    }
    Exercise(**state, seed);
  }
  return 0;
}
