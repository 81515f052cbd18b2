#pragma once
// The store in PostgreSQL (libpqxx): for hosted competitions and several arenas sharing one
// database. One connection per store, serialized by a mutex; every method is one
// transaction. A lost connection fails the call in progress (UNAVAILABLE) and is opened
// again by the next one.
#include <memory>
#include <mutex>
#include <string>

#include "service/arena/store.h"

namespace gavel::arena {

class PostgresStore final : public Store {
 public:
  // `uri`: a libpq connection URI, e.g. postgresql://user@host/db or
  // postgresql:///db?host=/run/postgresql. Applies the migrations (under an advisory lock,
  // so arenas starting together apply each once).
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& uri);
  ~PostgresStore() override;

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
  absl::Status EnqueueMatches(const std::vector<QueuedMatch>& matches) override;
  absl::StatusOr<std::optional<QueuedMatch>> ClaimMatch(
      const std::string& arena, const std::vector<std::string>& connected_bots, int64_t lease_ms) override;
  absl::Status RenewLeases(const std::string& arena, int64_t lease_ms) override;
  absl::Status FinishQueuedMatch(const std::string& arena, const QueuedMatch& entry,
                                 const MatchRecord& match) override;
  absl::StatusOr<std::vector<QueueEntry>> QueueResults(int64_t tournament_id) override;

 private:
  class Transaction;
  struct Connection;  // a pqxx::connection (kept out of this header)
  explicit PostgresStore(std::string uri);
  absl::Status Migrate();

  const std::string uri_;
  std::mutex mutex_;
  std::unique_ptr<Connection> connection_;  // null until first use or after a loss
};

}  // namespace gavel::arena
