#pragma once
// All games this build knows, by name.
//
// A game registers itself with one line in its own folder:
//   GAVEL_REGISTER_GAME(sultan, sultan::SultanGame)
// The build's game list (CMake option GAVEL_GAMES, default: every game folder) becomes the
// generated X-macro file gavel/games.inc, one GAVEL_GAME(name) line per game, which this
// registry and everything else that is per game (Dirk's rules, tests) expand. A game left
// out of GAVEL_GAMES is not compiled and not referenced anywhere.
//
// Why not a static registrar object, as some engines use: the games are static libraries,
// and a linker drops an archive member nobody references, registrar and all. Referencing
// each game's entry point from the generated list keeps every build link-complete.
#include <vector>

#include "absl/strings/string_view.h"
#include "engine/core/game.h"

// Defines the registry's entry point for game `name` (its `Game::name()`).
#define GAVEL_REGISTER_GAME(name, game_function)              \
  namespace gavel::registered {                               \
  const ::gavel::Game& name() { return ::gavel::game_function(); } \
  }

namespace gavel {

// The games, in the build's order.
const std::vector<const Game*>& AllGames();
// The game named `name`, or nullptr.
const Game* FindGame(absl::string_view name);
// The names of AllGames(), in order.
std::vector<std::string> GameNames();

}  // namespace gavel
