#pragma once
// Opponents by name, spelled the same in gavel-train and gavel-eval: "dirk" (the rules'
// heuristic player), "random", "ismcts:N" (ISMCTS at N iterations per decision),
// "ismcts:N/M" (the same with play-outs cut after M moves, the scores so far ranking the
// seats: IsmctsOptions::playout_moves) and "learned:<file>" (one network's weights file, e.g.
// a past snapshot).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"
#include "learn/ismcts.h"
#include "learn/play.h"

namespace gavel::learn {

absl::StatusOr<Policy> PolicyNamed(absl::string_view name, const Game& game);

// The search a name "ismcts:N" or "ismcts:N/M" (N, M > 0) describes, else nothing.
std::optional<IsmctsOptions> IsmctsOptionsNamed(absl::string_view name);

// A comma-separated list of such names, in order (a name given twice plays twice as often).
absl::StatusOr<std::vector<Policy>> PoliciesNamed(absl::string_view names, const Game& game);

// "candidate-opponent" split into its two names. A name may hold a '-' itself
// (learned:<a path>), so it splits at the one '-' where `names_policy` accepts both sides;
// none or several such places is an InvalidArgument error.
absl::StatusOr<std::pair<std::string, std::string>> SplitMatchup(
    absl::string_view matchup, absl::FunctionRef<bool(const std::string&)> names_policy);

}  // namespace gavel::learn
