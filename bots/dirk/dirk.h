#pragma once
// Dirk: simple, deterministic, documented rule-based policies, one file per game
// (bots/dirk/<game>.cc), found by game name. A game without an entry here is one Dirk does
// not play (and does not claim in its hello).
#include <map>
#include <memory>
#include <string>

#include "bots/policy.h"

namespace gavel::bots::dirk {

// One game's rules: a pure function of the seat's view and the legal moves.
using GamePolicy = uint32_t (*)(const v1::View& view, const LegalMoves& legal);

// Game name -> its Dirk rules.
const std::map<std::string, GamePolicy>& Policies();

// Dirk for every game in Policies().
std::unique_ptr<Policy> MakeDirk();

// Each game's rules are one function in bots/dirk/<game>.cc, registered there with
//   GAVEL_REGISTER_DIRK(sultan, ChooseSultan)
// Policies() lists the Dirk rules of the games of this build (generated gavel/dirk_games.inc,
// one GAVEL_GAME(name) line per built game that has a bots/dirk/<name>.cc); as with the
// engine's registry, referencing each game's entry point keeps a static build link-complete.

}  // namespace gavel::bots::dirk

#define GAVEL_REGISTER_DIRK(name, function)                                      \
  namespace gavel::bots::dirk::registered {                                      \
  uint32_t name(const v1::View& view, const LegalMoves& legal) {                 \
    return ::gavel::bots::dirk::function(view, legal);                           \
  }                                                                              \
  }
