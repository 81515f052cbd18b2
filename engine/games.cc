// The registry: every game of this build, in a fixed order.
#include "engine/core/registry.h"
#include "engine/carat/carat.h"
#include "engine/mercado/mercado.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/morgenland/morgenland.h"
#include "engine/sultan/sultan.h"

namespace gavel {

const std::vector<const Game*>& AllGames() {
  static const std::vector<const Game*> games = {
      &sultan::SultanGame(), &moonlight_market::MoonlightMarketGame(), &carat::CaratGame(),
      &mercado::MercadoGame(), &morgenland::MorgenlandGame()};
  return games;
}

const Game* FindGame(absl::string_view name) {
  for (const Game* game : AllGames())
    if (game->name() == name) return game;
  return nullptr;
}

}  // namespace gavel
