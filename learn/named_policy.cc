#include "learn/named_policy.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "learn/ismcts.h"
#include "learn/learned_policy.h"
#include "policy/dirk/dirk.h"

namespace gavel::learn {

std::optional<IsmctsOptions> IsmctsOptionsNamed(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, "ismcts:")) return std::nullopt;
  const std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(name, absl::MaxSplits('/', 1));
  IsmctsOptions options;
  if (!absl::SimpleAtoi(parts.first, &options.iterations) || options.iterations <= 0) return std::nullopt;
  const bool cut = name.size() > parts.first.size();
  if (cut && (!absl::SimpleAtoi(parts.second, &options.playout_moves) || options.playout_moves <= 0))
    return std::nullopt;
  return options;
}

absl::StatusOr<Policy> PolicyNamed(absl::string_view name, const Game& game) {
  if (name == "dirk") return policy::dirk::Dirk(game.name());
  if (name == "random") return RandomPolicy();
  if (const std::optional<IsmctsOptions> options = IsmctsOptionsNamed(name)) return IsmctsPolicy(game, *options);
  if (absl::string_view file = name; absl::ConsumePrefix(&file, "learned:") && !file.empty())
    return NetworkFilePolicy(game, std::string(file));
  return absl::InvalidArgumentError(absl::StrCat("unknown policy '", name,
                                                 "' (dirk, random, ismcts:N with N > 0 iterations, ismcts:N/M with "
                                                 "play-outs cut after M > 0 moves, or learned:<weights file>)"));
}

absl::StatusOr<std::vector<Policy>> PoliciesNamed(absl::string_view names, const Game& game) {
  std::vector<Policy> policies;
  for (absl::string_view name : absl::StrSplit(names, ',', absl::SkipEmpty())) {
    auto policy = PolicyNamed(name, game);
    if (!policy.ok()) return policy.status();
    policies.push_back(*std::move(policy));
  }
  if (policies.empty()) return absl::InvalidArgumentError("no policy named");
  return policies;
}

absl::StatusOr<std::pair<std::string, std::string>> SplitMatchup(
    absl::string_view matchup, absl::FunctionRef<bool(const std::string&)> names_policy) {
  std::vector<std::pair<std::string, std::string>> readings;
  for (size_t dash = matchup.find('-'); dash != absl::string_view::npos; dash = matchup.find('-', dash + 1)) {
    std::pair<std::string, std::string> reading{matchup.substr(0, dash), matchup.substr(dash + 1)};
    if (names_policy(reading.first) && names_policy(reading.second)) readings.push_back(std::move(reading));
  }
  if (readings.size() == 1) return std::move(readings.front());
  if (readings.empty())
    return absl::InvalidArgumentError(absl::StrCat("'", matchup, "' is not candidate-opponent, two policies' names"));
  return absl::InvalidArgumentError(
      absl::StrCat("'", matchup, "' splits into two policies' names in ", readings.size(), " ways"));
}

}  // namespace gavel::learn
