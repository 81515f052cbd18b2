// The registry: every game of this build (gavel/games.inc, generated from GAVEL_GAMES), in
// the build's order.
#include "engine/core/registry.h"

namespace gavel {
namespace registered {
#define GAVEL_GAME(name) const Game& name();
#include "gavel/games.inc"
#undef GAVEL_GAME
}  // namespace registered

const std::vector<const Game*>& AllGames() {
  static const std::vector<const Game*> games = {
#define GAVEL_GAME(name) &registered::name(),
#include "gavel/games.inc"
#undef GAVEL_GAME
  };
  return games;
}

const Game* FindGame(absl::string_view name) {
  for (const Game* game : AllGames())
    if (game->name() == name) return game;
  return nullptr;
}

std::vector<std::string> GameNames() {
  std::vector<std::string> names;
  for (const Game* game : AllGames()) names.push_back(game->name());
  return names;
}

}  // namespace gavel
