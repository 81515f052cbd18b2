#pragma once
// Dirk: simple, deterministic, documented rule-based policies, one file per game
// (policy/dirk/<game>.cc), found by game name. A game without rules here is one Dirk does not
// play (and a bot does not claim in its hello).
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/policy.h"

namespace gavel::policy::dirk {

// Dirk's rules for `game`; NotFound for a game Dirk does not play.
absl::StatusOr<Policy> Dirk(const std::string& game);
// Dirk for every game it plays, chosen by the view's game; NotFound for any other game.
Policy DirkForAllGames();
// The games Dirk plays in this build, in name order.
std::vector<std::string> DirkGames();

// One game's rules: a pure function of the seat's view and the legal moves, returning the id
// of one of them. Each is defined in policy/dirk/<game>.cc and registered there with
//   GAVEL_REGISTER_DIRK(sultan, ChooseSultan)
// The list of registered games is generated from the build's games (gavel/dirk_games.inc, one
// GAVEL_DIRK(name) line per built game that has a policy/dirk/<name>.cc); as with the engine's
// registry, referencing each game's entry point keeps a static build link-complete.
using GameRules = uint32_t (*)(const v1::View& view, const LegalMoves& legal);

}  // namespace gavel::policy::dirk

#define GAVEL_REGISTER_DIRK(name, function)                                      \
  namespace gavel::policy::dirk::registered {                                    \
  uint32_t name(const v1::View& view, const LegalMoves& legal) {                 \
    return ::gavel::policy::dirk::function(view, legal);                         \
  }                                                                              \
  }
