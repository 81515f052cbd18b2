#include "policy/dirk/dirk.h"

#include <map>

#include "absl/strings/str_cat.h"

namespace gavel::policy::dirk {

namespace registered {
#define GAVEL_DIRK(name) uint32_t name(const v1::View& view, const LegalMoves& legal);
#include "gavel/dirk_games.inc"
#undef GAVEL_DIRK
}  // namespace registered

namespace {

const std::map<std::string, GameRules>& RulesByGame() {
  static const std::map<std::string, GameRules> rules = {
#define GAVEL_DIRK(name) {#name, &registered::name},
#include "gavel/dirk_games.inc"
#undef GAVEL_DIRK
  };
  return rules;
}

absl::StatusOr<GameRules> RulesOf(const std::string& game) {
  auto it = RulesByGame().find(game);
  if (it == RulesByGame().end()) return absl::NotFoundError(absl::StrCat("Dirk does not play ", game));
  return it->second;
}

absl::StatusOr<Move> Play(GameRules rules, const Turn& turn) {
  if (turn.legal().empty()) return absl::InvalidArgumentError("no legal move to choose from");
  return Move{rules(turn.view(), turn.Described())};
}

}  // namespace

absl::StatusOr<Policy> Dirk(const std::string& game) {
  auto rules = RulesOf(game);
  if (!rules.ok()) return rules.status();
  return Policy([rules = *rules](const Turn& turn) { return Play(rules, turn); });
}

Policy DirkForAllGames() {
  return [](const Turn& turn) -> absl::StatusOr<Move> {
    auto rules = RulesOf(turn.view().game());
    if (!rules.ok()) return rules.status();
    return Play(*rules, turn);
  };
}

std::vector<std::string> DirkGames() {
  std::vector<std::string> games;
  for (const auto& [game, rules] : RulesByGame()) games.push_back(game);
  return games;
}

}  // namespace gavel::policy::dirk
