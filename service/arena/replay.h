#pragma once
// Replays: a stored match re-derived with the engine library from (game, options, seed,
// players, moves), every state checked bit for bit against the stored state hashes.
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "service/arena/store.h"

namespace gavel::arena {

// Verifies the match and returns it move by move in readable form (move texts and event
// texts). With `seat`, only the events that seat was allowed to see are shown. Fails with
// DATA_LOSS naming the first move whose state differs from the stored one.
absl::StatusOr<std::string> Replay(const MatchRecord& match, std::optional<int> seat = std::nullopt);

}  // namespace gavel::arena
