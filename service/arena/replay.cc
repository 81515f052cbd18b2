#include "service/arena/replay.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/core/registry.h"
#include "service/arena/referee.h"

#ifndef GAVEL_VERSION
#define GAVEL_VERSION "unknown"
#endif

namespace gavel::arena {
namespace {

// Collects event texts, keeping those the chosen seat may see (all without a seat).
class EventTexts final : public EventSink {
 public:
  explicit EventTexts(std::optional<int> seat) : seat_(seat) {}
  void Emit(SeatMask audience, const google::protobuf::Message&, std::string text) override {
    if (!seat_ || (audience & OnlySeat(*seat_))) absl::StrAppend(&lines_, "      ", text, "\n");
  }
  std::string Take() { return std::exchange(lines_, ""); }

 private:
  std::optional<int> seat_;
  std::string lines_;
};

absl::Status Mismatch(const MatchRecord& match, const std::string& where) {
  return absl::DataLossError(absl::StrCat("match ", match.id, ": the state ", where,
                                          " differs from the stored one"));
}

}  // namespace

absl::StatusOr<std::string> Replay(const MatchRecord& match, std::optional<int> seat) {
  const Game* game = FindGame(match.game);
  if (!game) return absl::NotFoundError(absl::StrCat("this build has no game ", match.game));
  EventTexts events(seat);
  auto state = game->NewGame(match.players, match.seed, match.options, &events);
  if (!state.ok()) return state.status();
  std::string out = absl::StrFormat(
      "match %d: %s, %d players, seed %d, engine %s (this build %s)\n", match.id, match.game,
      match.players, match.seed, match.engine_version, GAVEL_VERSION);
  for (size_t s = 0; s < match.bots.size(); ++s)
    absl::StrAppendFormat(&out, "  seat %d: %s\n", s,
                          match.bots[s].empty() ? "(automaton)" : match.bots[s]);
  absl::StrAppend(&out, events.Take());
  if (BytesHash((*state)->Bytes()) != match.initial_hash) return Mismatch(match, "at the start");
  for (size_t ply = 0; ply < match.moves.size(); ++ply) {
    const MoveRecord& record = match.moves[ply];
    const Move move{record.move_id};
    if ((*state)->to_move() != record.seat)
      return Mismatch(match, absl::StrCat("before move ", ply + 1, " (another seat is to move)"));
    const std::string text = (*state)->MoveText(move);
    if (absl::Status applied = (*state)->Apply(move, &events); !applied.ok())
      return absl::DataLossError(
          absl::StrCat("match ", match.id, ": move ", ply + 1, " is refused: ", applied.message()));
    absl::StrAppendFormat(&out, "  %4d. seat %d: %s%s\n", ply + 1, record.seat, text,
                          record.status == v1::MOVE_STATUS_OK
                              ? ""
                              : absl::StrCat("  [", v1::MoveStatus_Name(record.status), "]"));
    absl::StrAppend(&out, events.Take());
    if (BytesHash((*state)->Bytes()) != record.state_hash)
      return Mismatch(match, absl::StrCat("after move ", ply + 1));
  }
  if (!(*state)->finished()) return Mismatch(match, "at the end (the game is not over)");
  const Outcome outcome = (*state)->outcome();
  for (size_t s = 0; s < match.scores.size(); ++s) {
    if (outcome.scores[s] != match.scores[s] || outcome.ranks[s] != match.ranks[s])
      return Mismatch(match, absl::StrCat("at the end (seat ", s, "'s result)"));
    absl::StrAppendFormat(&out, "  seat %d: score %g, rank %d, strikes %d\n", s,
                          outcome.scores[s], outcome.ranks[s], match.strikes[s]);
  }
  absl::StrAppendFormat(&out, "verified: %d moves, every state matches\n", match.moves.size());
  return out;
}

}  // namespace gavel::arena
