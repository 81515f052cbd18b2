#pragma once
// The store in an SQLite file (WAL mode): the embedded default. One connection, serialized
// by a mutex; every write is one transaction.
#include <memory>
#include <mutex>
#include <string>

#include "service/arena/store.h"

struct sqlite3;

namespace gavel::arena {

class SqliteStore final : public Store {
 public:
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
  ~SqliteStore() override;

  absl::Status SaveBot(const std::string& name, const std::string& version) override;
  absl::StatusOr<int64_t> NewTournament(const std::string& description) override;
  absl::Status StartMatch(MatchRecord* match) override;
  absl::Status FinishMatch(const MatchRecord& match) override;
  absl::StatusOr<MatchRecord> LoadMatch(int64_t id) override;
  absl::StatusOr<std::vector<int64_t>> FinishedMatches(int64_t tournament_id = 0) override;
  absl::StatusOr<std::vector<int64_t>> Tournaments() override;
  absl::StatusOr<std::map<RatingKey, Rating>> LoadRatings() override;
  absl::Status SaveRatings(const std::map<RatingKey, Rating>& ratings) override;
  absl::Status AddAccount(const std::string& name, const std::string& token_hash) override;
  absl::Status SetAccountToken(const std::string& name, const std::string& token_hash) override;
  absl::Status PutAccount(const std::string& name, const std::string& token_hash) override;
  absl::Status RevokeAccount(const std::string& name) override;
  absl::StatusOr<std::optional<Account>> FindAccount(const std::string& name) override;
  absl::StatusOr<std::optional<Account>> AccountByTokenHash(const std::string& token_hash) override;
  absl::StatusOr<std::vector<Account>> Accounts() override;
  absl::Status Backup(const std::string& path) override;
  absl::StatusOr<int> SchemaVersion() override;

 private:
  explicit SqliteStore(sqlite3* db) : db_(db) {}
  absl::Status Exec(const std::string& sql);
  absl::Status Migrate();
  std::optional<Account> AccountLocked(const std::string& name);  // with mutex_ held
  sqlite3* db_;
  std::mutex mutex_;
};

}  // namespace gavel::arena
