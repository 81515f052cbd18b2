#pragma once
// The arena's embedded store (SQLite): bots, tournaments, matches with their replays
// (engine version, game, options, seed, players, moves with state hashes), results and
// ratings. One connection, serialized by a mutex; every write is one transaction.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/core/options.h"
#include "gavel/v1/arena.pb.h"
#include "service/arena/rating.h"

namespace gavel::arena {

struct MoveRecord {
  int seat = 0;
  uint32_t move_id = 0;
  v1::MoveStatus status = v1::MOVE_STATUS_OK;
  std::string state_hash;  // of the state after the move
};

// A match and its replay. Seats held by the game's automata have an empty bot name.
struct MatchRecord {
  int64_t id = 0;
  int64_t tournament_id = 0;
  std::string game;
  int players = 0;
  uint64_t seed = 0;
  OptionMap options;
  std::string engine_version;
  std::vector<std::string> bots;  // per seat
  std::string initial_hash;
  std::vector<MoveRecord> moves;
  bool finished = false;
  std::vector<double> scores;  // per seat, when finished
  std::vector<int> ranks;
  std::vector<int> strikes;
};

// Trueskill-style skill belief: mean and standard deviation.
using RatingKey = std::pair<std::string, std::string>;  // game, bot

// A bot account: the bot name it owns and the hash of its current token (the token itself is
// never stored). Times are Unix seconds; `revoked` is 0 while the account may connect.
struct Account {
  std::string name;
  std::string token_hash;
  int64_t created = 0;
  int64_t token_set = 0;
  int64_t revoked = 0;
};

// A match of a tournament queued for whichever arena holds its bots' streams (several arenas
// on one PostgreSQL store). `ordinal` is its place in the schedule.
struct QueuedMatch {
  int64_t tournament_id = 0;
  int ordinal = 0;
  std::string game;
  uint64_t seed = 0;
  OptionMap options;
  std::vector<std::string> bots;  // one per player
};

// The arena's store: one interface, two implementations with the same schema and the same
// shared test suite (tests/arena/store_test.cc): SQLite (sqlite_store.cc), the embedded
// default for a local tournament, the demo and a single arena on a volume; PostgreSQL
// (postgres_store.cc) for hosted competitions and several arenas. Every method is one
// transaction; every implementation is safe to call from several threads.
class Store {
 public:
  // `location`: "postgresql://..." or "postgres://..." (a libpq connection URI) for
  // PostgreSQL, anything else is an SQLite file. Applies the schema's migrations.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& location);
  virtual ~Store() = default;

  virtual absl::Status SaveBot(const std::string& name, const std::string& version) = 0;
  virtual absl::StatusOr<int64_t> NewTournament(const std::string& description) = 0;
  // Records a match that starts now; sets `match->id`.
  virtual absl::Status StartMatch(MatchRecord* match) = 0;
  // Records the moves, results and the end of a started match.
  virtual absl::Status FinishMatch(const MatchRecord& match) = 0;

  virtual absl::StatusOr<MatchRecord> LoadMatch(int64_t id) = 0;
  // Finished matches, oldest first; of one tournament when `tournament_id` is not 0.
  virtual absl::StatusOr<std::vector<int64_t>> FinishedMatches(int64_t tournament_id = 0) = 0;
  virtual absl::StatusOr<std::vector<int64_t>> Tournaments() = 0;

  virtual absl::StatusOr<std::map<RatingKey, Rating>> LoadRatings() = 0;
  virtual absl::Status SaveRatings(const std::map<RatingKey, Rating>& ratings) = 0;

  // Accounts (service/arena/accounts.h holds the tokens' rules).
  virtual absl::Status AddAccount(const std::string& name, const std::string& token_hash) = 0;
  // A new token for the account (the old one stops working); also lifts a revocation.
  virtual absl::Status SetAccountToken(const std::string& name, const std::string& token_hash) = 0;
  // Creates the account with this token hash, or gives an existing one this hash, keeping
  // a revocation (house accounts whose token the operator provides).
  virtual absl::Status PutAccount(const std::string& name, const std::string& token_hash) = 0;
  virtual absl::Status RevokeAccount(const std::string& name) = 0;
  virtual absl::StatusOr<std::optional<Account>> FindAccount(const std::string& name) = 0;
  virtual absl::StatusOr<std::optional<Account>> AccountByTokenHash(const std::string& token_hash) = 0;
  virtual absl::StatusOr<std::vector<Account>> Accounts() = 0;

  // A consistent copy of the whole store at `path` while it stays in use (SQLite: the online
  // backup API, written beside `path` and renamed into place; PostgreSQL: UNIMPLEMENTED, the
  // database server's own tools back it up).
  virtual absl::Status Backup(const std::string& path) = 0;

  // The schema version the store is at (the number of migrations applied).
  virtual absl::StatusOr<int> SchemaVersion() = 0;

  // The match queue of several arenas (PostgreSQL only; UNIMPLEMENTED elsewhere). Leases
  // are timed by the database server's clock, so arenas' clocks need not agree.
  virtual absl::Status EnqueueMatches(const std::vector<QueuedMatch>& matches);
  // Takes the first queued match (or one whose lease ran out: its arena died) whose bots are
  // all among `connected_bots`, for `arena`, with a lease of `lease_ms`; nullopt when none.
  // Arenas claiming at once never get the same match (row locks, SKIP LOCKED).
  virtual absl::StatusOr<std::optional<QueuedMatch>> ClaimMatch(
      const std::string& arena, const std::vector<std::string>& connected_bots, int64_t lease_ms);
  // Extends the leases of every match `arena` is playing.
  virtual absl::Status RenewLeases(const std::string& arena, int64_t lease_ms);
  // Stores the finished match and marks its queue entry done, in one transaction, only while
  // `arena` still holds the entry: ABORTED otherwise (another arena plays it; this result
  // is dropped and its match stays unfinished), so every match counts exactly once.
  virtual absl::Status FinishQueuedMatch(const std::string& arena, const QueuedMatch& entry,
                                         const MatchRecord& match);
  // Each queue entry of the tournament in schedule order: its finished match (0 while not
  // done) and how many times an arena took it.
  struct QueueEntry {
    int64_t match_id = 0;
    int attempts = 0;
  };
  virtual absl::StatusOr<std::vector<QueueEntry>> QueueResults(int64_t tournament_id);
};

// Options as stored: "key=value;key=value".
std::string EncodeOptions(const OptionMap& options);
OptionMap DecodeOptions(const std::string& text);
int64_t UnixNow();

}  // namespace gavel::arena
