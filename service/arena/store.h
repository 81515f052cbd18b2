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

struct sqlite3;

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
struct Rating {
  double mu = 25.0;
  double sigma = 25.0 / 3;
  int games = 0;
};
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

class Store {
 public:
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
  ~Store();

  absl::Status SaveBot(const std::string& name, const std::string& version);
  absl::StatusOr<int64_t> NewTournament(const std::string& description);

  // Accounts (service/arena/accounts.h holds the tokens' rules).
  absl::Status AddAccount(const std::string& name, const std::string& token_hash);
  // A new token for the account (the old one stops working); also lifts a revocation.
  absl::Status SetAccountToken(const std::string& name, const std::string& token_hash);
  absl::Status RevokeAccount(const std::string& name);
  // Creates the account with this token hash, or gives an existing one this hash, keeping
  // a revocation (house accounts whose token the operator provides).
  absl::Status PutAccount(const std::string& name, const std::string& token_hash);
  absl::StatusOr<std::optional<Account>> FindAccount(const std::string& name);
  absl::StatusOr<std::optional<Account>> AccountByTokenHash(const std::string& token_hash);
  absl::StatusOr<std::vector<Account>> Accounts();
  // Records a match that starts now; sets `match->id`.
  absl::Status StartMatch(MatchRecord* match);
  // Records the moves, results and the end of a started match.
  absl::Status FinishMatch(const MatchRecord& match);

  absl::StatusOr<MatchRecord> LoadMatch(int64_t id);
  // Finished matches, oldest first; of one tournament when `tournament_id` is not 0.
  absl::StatusOr<std::vector<int64_t>> FinishedMatches(int64_t tournament_id = 0);
  absl::StatusOr<std::vector<int64_t>> Tournaments();

  absl::StatusOr<std::map<RatingKey, Rating>> LoadRatings();
  absl::Status SaveRatings(const std::map<RatingKey, Rating>& ratings);

  // A consistent copy of the whole store at `path`, taken with SQLite's online backup API
  // while the store stays in use; written to a temporary file beside `path` and renamed
  // into place, so `path` is never a half-written copy.
  absl::Status Backup(const std::string& path);

 private:
  explicit Store(sqlite3* db) : db_(db) {}
  absl::Status Exec(const std::string& sql);
  std::optional<Account> AccountLocked(const std::string& name);  // with mutex_ held
  sqlite3* db_;
  std::mutex mutex_;
};

}  // namespace gavel::arena
