#pragma once
// The game that game-agnostic tests of the service and the arena play: Sultan (short games)
// when the build has it, otherwise the build's first game, so any subset of games
// (GAVEL_GAMES) passes the same tests. A test about one particular game runs only when that
// game is built (GAVEL_HAS_GAME_<name>, defined in tests/CMakeLists.txt).
#include <algorithm>
#include <string>

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

// The full protobuf type name of a packed message, e.g. "gavel.v1.SultanState".
inline std::string TypeName(const google::protobuf::Any& any) {
  const std::string& url = any.type_url();
  return url.substr(url.rfind('/') + 1);
}

}  // namespace gavel::testing
