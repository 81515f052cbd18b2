#pragma once
// All games this build knows, by name.
#include "absl/strings/string_view.h"
#include <vector>

#include "engine/core/game.h"

namespace gavel {

// The games, in a fixed order (engine/games.cc lists them).
const std::vector<const Game*>& AllGames();
// The game named `name`, or nullptr.
const Game* FindGame(absl::string_view name);

}  // namespace gavel
