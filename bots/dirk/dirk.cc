#include "bots/dirk/dirk.h"

namespace gavel::bots::dirk {

namespace registered {
#define GAVEL_GAME(name) uint32_t name(const v1::View& view, const LegalMoves& legal);
#include "gavel/dirk_games.inc"
#undef GAVEL_GAME
}  // namespace registered

const std::map<std::string, GamePolicy>& Policies() {
  static const std::map<std::string, GamePolicy> policies = {
#define GAVEL_GAME(name) {#name, &registered::name},
#include "gavel/dirk_games.inc"
#undef GAVEL_GAME
  };
  return policies;
}

namespace {

class Dirk final : public Policy {
 public:
  std::vector<std::string> Games() const override {
    std::vector<std::string> games;
    for (const auto& [game, policy] : Policies()) games.push_back(game);
    return games;
  }
  // The arena sends turns only for games named in the hello; anything else gets the
  // first legal move rather than a crash.
  uint32_t Choose(const v1::View& view, const LegalMoves& legal) override {
    auto it = Policies().find(view.game());
    return it == Policies().end() ? legal.Get(0).id() : it->second(view, legal);
  }
};

}  // namespace

std::unique_ptr<Policy> MakeDirk() { return std::make_unique<Dirk>(); }

}  // namespace gavel::bots::dirk
