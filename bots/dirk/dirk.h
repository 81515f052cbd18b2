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

// bots/dirk/sultan.cc
uint32_t ChooseSultan(const v1::View& view, const LegalMoves& legal);
// bots/dirk/morgenland.cc
uint32_t ChooseMorgenland(const v1::View& view, const LegalMoves& legal);
// bots/dirk/mercado.cc
uint32_t ChooseMercado(const v1::View& view, const LegalMoves& legal);
// bots/dirk/moonlight_market.cc
uint32_t ChooseMoonlightMarket(const v1::View& view, const LegalMoves& legal);
// bots/dirk/carat.cc
uint32_t ChooseCarat(const v1::View& view, const LegalMoves& legal);

}  // namespace gavel::bots::dirk
