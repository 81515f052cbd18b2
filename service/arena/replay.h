#pragma once
// Replays: a stored match re-derived with the engine library from (game, options, seed,
// players, moves), every state checked bit for bit against the stored state hashes.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "service/arena/store.h"

namespace gavel::arena {

// One step of a replay: the state after a move (ply 0: the start, `record` null), the
// move's text and the events the step emitted, each with its audience.
struct ReplayStep {
  int ply = 0;
  const MoveRecord* record = nullptr;
  std::string move_text;
  std::vector<std::pair<SeatMask, std::string>> events;
  const State* state = nullptr;
};

// Re-derives the match step by step, checking each state against its stored hash, and
// calls `visit` for each. A finished match must end finished with its stored results; an
// unfinished one (being played) stops at its last stored move. DATA_LOSS names the first
// step that differs.
absl::Status WalkReplay(const MatchRecord& match, const std::function<void(const ReplayStep&)>& visit);

// Verifies the match and returns it move by move in readable form (move texts and event
// texts). With `seat`, only the events that seat was allowed to see are shown. Fails with
// DATA_LOSS naming the first move whose state differs from the stored one.
absl::StatusOr<std::string> Replay(const MatchRecord& match, std::optional<int> seat = std::nullopt);

}  // namespace gavel::arena
