#pragma once
// Tournaments: for every game, the bots that play it meet on seeded deals; each deal is
// played once per seat rotation (same seed, bots shifted one seat each time), so every bot
// holds every seat of every deal and luck of the deal cancels out. The order the bots sit
// in around the table changes from deal to deal (engine/core/seating.h), so that nobody
// always sits after the same bot. Matches run
// concurrently on a fixed number of workers; ratings update in schedule order, so the
// result does not depend on which match finished first.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "service/arena/ratings.h"
#include "service/arena/bot_hub.h"
#include "service/arena/referee.h"

namespace gavel::arena {

struct TournamentOptions {
  std::vector<std::string> games;  // empty: every game of the engine
  int deals = 2;                   // per game, each played once per seat rotation
  int players = 0;                 // seats per table; 0: as many bots as play the game,
                                   // within the game's player range
  uint64_t seed = 1;               // secret while bots play: it gives away every deal's cards
  bool duplicate_deals = false;    // every rotation of a deal the same cards (trusted bots
                                   // only: a bot may remember them); else each its own deal
  int concurrency = 4;             // matches at once
  bool progress = true;            // a progress bar on stderr
  int match_attempts = 3;          // a match the engine could not finish is played again
                                   // from the start, up to this many times in all
  int max_matches_per_bot = 0;     // matches one bot sits in at once (0: no limit besides
                                   // `concurrency`), so one slow bot cannot hold every worker
};

struct TournamentReport {
  int64_t id = 0;
  int matches = 0;
  int failed = 0;                  // matches the engine could not finish in any attempt
  int restarted = 0;               // attempts abandoned on an engine failure and played again
  std::map<std::string, std::vector<Standing>> standings;
};

// How many matches each bot sits in; a match starts only when each of its bots has a slot
// free. All of a match's slots are taken at once, so workers never hold some while
// waiting for others (no deadlock), and a match in play always frees its slots.
class MatchSlots {
 public:
  explicit MatchSlots(int per_bot) : per_bot_(per_bot) {}  // per_bot <= 0: no limit
  bool TryAcquire(const std::vector<std::string>& bots);
  void Acquire(const std::vector<std::string>& bots);  // waits for the slots
  void Release(const std::vector<std::string>& bots);

 private:
  bool Free(const std::vector<std::string>& bots);  // with mutex_ held
  const int per_bot_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::map<std::string, int> in_play_;
};

// A tournament seed nobody can guess (not 0), for a tournament whose host gave none.
uint64_t SecretSeed();

// The matches of a tournament between `bots` (hellos of connected bots).
std::vector<MatchPlan> Schedule(const TournamentOptions& options,
                                const std::vector<v1::Hello>& bots);

// Plays the schedule; once `stop` is set, matches not yet started are left out (counted
// as failed).
absl::StatusOr<TournamentReport> RunTournament(const TournamentOptions& options,
                                               const std::vector<v1::Hello>& bots,
                                               Referee& referee, Store& store,
                                               const std::atomic<bool>& stop);

// Several arenas on one PostgreSQL store: the coordinator (the arena with --tournament)
// queues the schedule in the store and waits until every queued match is finished (by any
// arena), then rates them in schedule order.
absl::StatusOr<TournamentReport> RunQueuedTournament(const TournamentOptions& options,
                                                     const std::vector<v1::Hello>& bots,
                                                     Store& store, const std::atomic<bool>& stop);

struct QueueOptions {
  std::string arena_id;    // unique per arena process
  int workers = 4;         // matches this arena plays at once
  int64_t lease_ms = 10000;  // a match whose arena stops renewing goes to another after this
};

// An arena's share of the queue: workers claim queued matches whose bots are all connected
// to this arena, play them and record them while this arena still holds them; a keeper
// renews the leases of the matches in play every lease_ms / 3.
class QueueWorkers {
 public:
  QueueWorkers(QueueOptions options, Referee& referee, BotHub& hub, Store& store);
  ~QueueWorkers();
  void Stop();  // waits for the matches in play

 private:
  void Work();
  void KeepLeases();
  bool Pause(std::chrono::milliseconds duration);  // false once stopped

  const QueueOptions options_;
  Referee& referee_;
  BotHub& hub_;
  Store& store_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace gavel::arena
