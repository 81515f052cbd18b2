// The registry: every game of this build, in a fixed order.
#include "engine/core/registry.h"
#include "engine/sultan/sultan.h"

namespace gavel {

const std::vector<const Game*>& AllGames() {
  static const std::vector<const Game*> games = {&sultan::SultanGame()};
  return games;
}

const Game* FindGame(absl::string_view name) {
  for (const Game* game : AllGames())
    if (game->name() == name) return game;
  return nullptr;
}

}  // namespace gavel
