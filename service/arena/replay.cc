#include "service/arena/replay.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/core/registry.h"
#include "engine/core/status.h"
#include "service/arena/referee.h"

#ifndef GAVEL_VERSION
#define GAVEL_VERSION "unknown"
#endif

namespace gavel::arena {
namespace {

// Collects a step's events with their audiences.
class StepEvents final : public EventSink {
 public:
  std::vector<std::pair<SeatMask, std::string>> Take() { return std::exchange(events_, {}); }

 private:
  void Record(SeatMask audience, const std::string&, const google::protobuf::MessageLite&,
              absl::string_view text) override {
    events_.emplace_back(audience, std::string(text));
  }

  std::vector<std::pair<SeatMask, std::string>> events_;
};

absl::Status Mismatch(const MatchRecord& match, const std::string& where) {
  return absl::DataLossError(absl::StrCat("match ", match.id, ": the state ", where,
                                          " differs from the stored one"));
}

// Whether `state` is the one a record hashed: in the game's current format, or in an earlier
// one for records made before it changed.
bool HashMatches(const State& state, const std::string& recorded) {
  if (BytesHash(state.Bytes()) == recorded) return true;
  for (int versions_back = 1;; ++versions_back) {
    const std::string earlier = state.EarlierFormatBytes(versions_back);
    if (earlier.empty()) return false;
    if (BytesHash(earlier) == recorded) return true;
  }
}

absl::Status CheckEnd(const MatchRecord& match, const State& state) {
  if (!state.finished()) return Mismatch(match, "at the end (the game is not over)");
  const Outcome outcome = state.outcome();
  for (size_t s = 0; s < match.scores.size(); ++s)
    if (outcome.scores[s] != match.scores[s] || outcome.ranks[s] != match.ranks[s])
      return Mismatch(match, absl::StrCat("at the end (seat ", s, "'s result)"));
  return absl::OkStatus();
}

}  // namespace

absl::Status WalkReplay(const MatchRecord& match, const std::function<void(const ReplayStep&)>& visit) {
  const Game* game = FindGame(match.game);
  if (!game) return absl::NotFoundError(absl::StrCat("this build has no game ", match.game));
  StepEvents events;
  GAVEL_ASSIGN_OR_RETURN(std::unique_ptr<State> state,
                         game->NewGame(match.players, match.seed, match.options, &events));
  if (!HashMatches(*state, match.initial_hash)) return Mismatch(match, "at the start");
  visit(ReplayStep{0, nullptr, "", events.Take(), state.get()});
  for (size_t ply = 0; ply < match.moves.size(); ++ply) {
    const MoveRecord& record = match.moves[ply];
    const Move move{record.move_id};
    if (state->to_move() != record.seat)
      return Mismatch(match, absl::StrCat("before move ", ply + 1, " (another seat is to move)"));
    std::string text = state->MoveText(move);
    if (absl::Status applied = state->Apply(move, &events); !applied.ok())
      return absl::DataLossError(
          absl::StrCat("match ", match.id, ": move ", ply + 1, " is refused: ", applied.message()));
    if (!HashMatches(*state, record.state_hash))
      return Mismatch(match, absl::StrCat("after move ", ply + 1));
    visit(ReplayStep{static_cast<int>(ply) + 1, &record, std::move(text), events.Take(), state.get()});
  }
  return match.finished ? CheckEnd(match, *state) : absl::OkStatus();
}

absl::StatusOr<std::string> Replay(const MatchRecord& match, std::optional<int> seat) {
  std::string out = absl::StrFormat(
      "match %d: %s, %d players, seed %d, engine %s (this build %s)\n", match.id, match.game,
      match.players, match.seed, match.engine_version, GAVEL_VERSION);
  for (size_t s = 0; s < match.bots.size(); ++s)
    absl::StrAppendFormat(&out, "  seat %d: %s\n", s,
                          match.bots[s].empty() ? "(automaton)" : match.bots[s]);
  GAVEL_RETURN_IF_ERROR(WalkReplay(match, [&](const ReplayStep& step) {
    if (step.record != nullptr)
      absl::StrAppendFormat(&out, "  %4d. seat %d: %s%s\n", step.ply, step.record->seat, step.move_text,
                            step.record->status == v1::MOVE_STATUS_OK
                                ? ""
                                : absl::StrCat("  [", v1::MoveStatus_Name(step.record->status), "]"));
    for (const auto& [audience, text] : step.events)
      if (!seat || (audience & OnlySeat(*seat))) absl::StrAppend(&out, "      ", text, "\n");
  }));
  if (!match.finished) return absl::FailedPreconditionError(absl::StrCat("match ", match.id, " is not finished"));
  for (size_t s = 0; s < match.scores.size(); ++s)
    absl::StrAppendFormat(&out, "  seat %d: score %g, rank %d, strikes %d\n", s, match.scores[s],
                          match.ranks[s], match.strikes[s]);
  absl::StrAppendFormat(&out, "verified: %d moves, every state matches\n", match.moves.size());
  return out;
}

}  // namespace gavel::arena
