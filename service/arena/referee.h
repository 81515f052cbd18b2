#pragma once
// The referee: plays one match between connected bots. It holds the state, sends each bot
// only its seat's view and legal moves, runs the clock and applies the fault rule
// (arena.proto, "Referee rules"), so every match finishes whatever the bots do.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "service/arena/arena_metrics.h"
#include "service/arena/bot_hub.h"
#include "service/arena/engine_backend.h"
#include "service/arena/live_matches.h"
#include "service/arena/store.h"

namespace gavel::arena {

using Moves = google::protobuf::RepeatedPtrField<v1::Move>;

struct RefereeOptions {
  uint32_t move_ms = 1000;
  uint32_t bank_ms = 10000;
  int max_strikes = 3;
};

struct MatchPlan {
  int64_t tournament_id = 0;
  std::string game;
  uint64_t seed = 0;
  OptionMap options;
  std::vector<std::string> bots;  // one per player; they take the non-automaton seats in order
};

class Referee {
 public:
  // `metrics` may be null.
  Referee(EngineBackend* engine, BotHub* hub, Store* store, RefereeOptions options,
          ArenaMetrics* metrics = nullptr)
      : engine_(engine), hub_(hub), store_(store), options_(options), metrics_(metrics) {}

  // Plays the match to its end and stores it. An error is the engine's or the store's,
  // never a bot's (bots' faults are moves with a fault status); the match is left
  // unfinished in the store and may be played again from the start.
  // `finish` records the finished match instead of Store::FinishMatch (the match queue of
  // several arenas records it only while this arena still holds the match).
  absl::StatusOr<MatchRecord> Play(
      const MatchPlan& plan,
      const std::function<absl::Status(const MatchRecord&)>& finish = nullptr);

  ArenaMetrics* metrics() const { return metrics_; }
  // Publishes the matches in play, move by move (for the pages); null: none.
  void set_live(LiveMatches* live) { live_ = live; }

  // The mover's legal moves and view, as the engine's last call returned them.
  struct Turn {
    Moves legal;
    v1::View view;
  };

 private:
  struct Seat {
    std::string bot;  // empty for an automaton seat
    int strikes = 0;
    int64_t bank_ms = 0;
  };
  // The move for `seat` and how it came about: the bot's, or the fallback's after a fault.
  absl::StatusOr<MoveRecord> Decide(const MatchRecord& match, int seat, Seat& player, Turn& turn);
  // The bot's own answer or a fault status.
  absl::StatusOr<TurnAnswer> AskBot(const MatchRecord& match, int seat, Seat& player, Turn& turn);
  void SendResults(const MatchRecord& match, const v1::GameStatus& status);

  EngineBackend* engine_;
  BotHub* hub_;
  Store* store_;
  RefereeOptions options_;
  ArenaMetrics* metrics_;
  LiveMatches* live_ = nullptr;
};

// FNV-1a 64 of a state's deterministic serialization, as hex: the per-move fingerprint
// replays are verified against (the engine's Include.state_hash, in the same form).
std::string BytesHash(const std::string& bytes);

}  // namespace gavel::arena
