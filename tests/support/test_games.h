#pragma once
// The game that game-agnostic tests of the service and the arena play: Sultan (short games)
// when the build has it, otherwise the build's first game, so any subset of games
// (GAVEL_GAMES) passes the same tests. A test about one particular game runs only when that
// game is built (GAVEL_HAS_GAME_<name>, defined in tests/CMakeLists.txt).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/registry.h"

namespace gavel::testing {

inline const Game& TestGame() {
  const Game* sultan = FindGame("sultan");
  return sultan != nullptr ? *sultan : *AllGames().front();
}

// `wanted` players, or the nearest count the test game allows.
inline int TestPlayers(int wanted) {
  const GameInfo& info = TestGame().info();
  return std::clamp(wanted, info.min_players, info.max_players);
}

// Every game of the build at every table size it allows.
inline std::vector<std::pair<const Game*, int>> EveryTableSize() {
  std::vector<std::pair<const Game*, int>> tables;
  for (const Game* game : AllGames())
    for (int players = game->info().min_players; players <= game->info().max_players; ++players)
      tables.emplace_back(game, players);
  return tables;
}

// A NewGame request for `game` at `players` with `seed`.
inline v1::NewGameRequest NewGameRequestFor(const Game& game, int players, uint64_t seed) {
  v1::NewGameRequest request;
  request.set_game(game.name());
  request.set_players(players);
  request.set_seed(seed);
  return request;
}

// The full protobuf type name of a packed message, e.g. "gavel.v1.SultanState".
inline std::string TypeName(const google::protobuf::Any& any) {
  const std::string& url = any.type_url();
  return url.substr(url.rfind('/') + 1);
}

}  // namespace gavel::testing
