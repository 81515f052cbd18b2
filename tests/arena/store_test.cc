// One suite for both stores: every test runs against SQLite and against a real PostgreSQL
// server (started by the test; tests/support/postgres_server.h).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <limits>
#include <thread>

#include <sqlite3.h>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/arena/store.h"
#include "tests/support/child_process.h"
#include "tests/support/postgres_server.h"

namespace gavel::arena {
namespace {

using ::testing::ElementsAre;

enum class Kind { kSqlite, kPostgres };

std::string Name(const ::testing::TestParamInfo<Kind>& info) {
  return info.param == Kind::kSqlite ? "Sqlite" : "Postgres";
}

class StoreTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    static std::atomic<int> count{0};
    const std::string name = absl::StrCat("store_test_", getpid(), "_", count++);
    if (GetParam() == Kind::kSqlite) {
      location_ = absl::StrCat(::gavel::testing::BuildDir(), "/", name, ".db");
      RemoveFiles();
    } else {
      ::gavel::testing::PostgresServer* server = ::gavel::testing::SharedPostgres();
      ASSERT_NE(server, nullptr) << "the PostgreSQL server did not start";
      auto uri = server->NewDatabase(name);
      ASSERT_TRUE(uri.ok()) << uri.status();
      location_ = *uri;
    }
    store_ = Open();
  }
  void TearDown() override {
    store_.reset();
    if (GetParam() == Kind::kSqlite) RemoveFiles();
  }
  std::unique_ptr<Store> Open() {
    auto store = Store::Open(location_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }
  void RemoveFiles() const {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((location_ + suffix).c_str());
  }

  std::string location_;
  std::unique_ptr<Store> store_;
};

MatchRecord AMatch(int64_t tournament, int moves) {
  MatchRecord match;
  match.tournament_id = tournament;
  match.game = "sultan";
  match.players = 3;
  match.seed = std::numeric_limits<uint64_t>::max() - 7;  // beyond a signed 64-bit integer
  match.options = {{"variant", "advanced"}, {"rounds", "2"}};
  match.engine_version = "1.2.3";
  match.initial_hash = "00ff00ff00ff00ff";
  match.bots = {"alice", "", "bob"};
  for (int ply = 0; ply < moves; ++ply)
    match.moves.push_back(MoveRecord{ply % 3, static_cast<uint32_t>(ply * 1000 + 7),
                                     ply % 5 ? v1::MOVE_STATUS_OK : v1::MOVE_STATUS_TIMEOUT,
                                     absl::StrCat("hash", ply)});
  match.finished = true;
  match.scores = {12.5, 3, 40};
  match.ranks = {2, 3, 1};
  match.strikes = {0, 0, 1};
  return match;
}

TEST_P(StoreTest, AFinishedMatchComesBackAsItWasStored) {
  auto tournament = store_->NewTournament("test");
  ASSERT_TRUE(tournament.ok()) << tournament.status();
  MatchRecord match = AMatch(*tournament, 250);
  ASSERT_TRUE(store_->StartMatch(&match).ok());
  EXPECT_GT(match.id, 0);
  ASSERT_TRUE(store_->FinishMatch(match).ok());
  auto loaded = store_->LoadMatch(match.id);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->tournament_id, *tournament);
  EXPECT_EQ(loaded->game, match.game);
  EXPECT_EQ(loaded->players, 3);
  EXPECT_EQ(loaded->seed, match.seed);
  EXPECT_EQ(loaded->options, match.options);
  EXPECT_EQ(loaded->engine_version, match.engine_version);
  EXPECT_EQ(loaded->initial_hash, match.initial_hash);
  EXPECT_TRUE(loaded->finished);
  EXPECT_EQ(loaded->bots, match.bots);
  EXPECT_EQ(loaded->scores, match.scores);
  EXPECT_EQ(loaded->ranks, match.ranks);
  EXPECT_EQ(loaded->strikes, match.strikes);
  ASSERT_EQ(loaded->moves.size(), match.moves.size());
  for (size_t ply = 0; ply < match.moves.size(); ++ply) {
    EXPECT_EQ(loaded->moves[ply].seat, match.moves[ply].seat);
    EXPECT_EQ(loaded->moves[ply].move_id, match.moves[ply].move_id);
    EXPECT_EQ(loaded->moves[ply].status, match.moves[ply].status);
    EXPECT_EQ(loaded->moves[ply].state_hash, match.moves[ply].state_hash);
  }
  EXPECT_EQ(store_->LoadMatch(match.id + 100).status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreTest, OnlyFinishedMatchesAreListedPerTournament) {
  const int64_t first = *store_->NewTournament("first");
  const int64_t second = *store_->NewTournament("second");
  EXPECT_THAT(*store_->Tournaments(), ElementsAre(first, second));
  MatchRecord a = AMatch(first, 3), b = AMatch(second, 3), abandoned = AMatch(first, 3);
  for (MatchRecord* match : {&a, &abandoned, &b}) ASSERT_TRUE(store_->StartMatch(match).ok());
  ASSERT_TRUE(store_->FinishMatch(a).ok());
  ASSERT_TRUE(store_->FinishMatch(b).ok());
  EXPECT_THAT(*store_->FinishedMatches(), ElementsAre(a.id, b.id));
  EXPECT_THAT(*store_->FinishedMatches(first), ElementsAre(a.id));
  EXPECT_THAT(*store_->FinishedMatches(second), ElementsAre(b.id));
  auto loaded = store_->LoadMatch(abandoned.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(loaded->finished);
  EXPECT_TRUE(loaded->moves.empty());
}

TEST_P(StoreTest, RatingsAreSavedAndReplaced) {
  ASSERT_TRUE(store_->SaveRatings({{{"sultan", "alice"}, Rating{30, 2, 10}},
                                   {{"carat", "alice"}, Rating{20, 5, 1}}}).ok());
  ASSERT_TRUE(store_->SaveRatings({{{"sultan", "alice"}, Rating{31.5, 1.5, 11}}}).ok());
  auto ratings = store_->LoadRatings();
  ASSERT_TRUE(ratings.ok()) << ratings.status();
  ASSERT_EQ(ratings->size(), 2u);
  const Rating& sultan = ratings->at({"sultan", "alice"});
  EXPECT_EQ(sultan.mu, 31.5);
  EXPECT_EQ(sultan.sigma, 1.5);
  EXPECT_EQ(sultan.games, 11);
  EXPECT_EQ(ratings->at({"carat", "alice"}).games, 1);
  EXPECT_TRUE(store_->SaveBot("alice", "1").ok());
  EXPECT_TRUE(store_->SaveBot("alice", "2").ok());
}

TEST_P(StoreTest, AccountsKeepTheirTokenHashAndRevocation) {
  const std::string hash(32, '\xa5'), other(32, '\x01'), third(32, '\x7f');
  ASSERT_TRUE(store_->AddAccount("alice", hash).ok());
  EXPECT_EQ(store_->AddAccount("alice", other).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->AddAccount("bob", hash).code(), absl::StatusCode::kAlreadyExists);  // same token
  auto found = store_->AccountByTokenHash(hash);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->name, "alice");
  EXPECT_EQ((*found)->token_hash, hash);
  EXPECT_EQ((*found)->revoked, 0);

  ASSERT_TRUE(store_->RevokeAccount("alice").ok());
  EXPECT_NE((*store_->FindAccount("alice"))->revoked, 0);
  ASSERT_TRUE(store_->PutAccount("alice", other).ok());  // keeps the revocation
  EXPECT_NE((*store_->FindAccount("alice"))->revoked, 0);
  EXPECT_FALSE(store_->AccountByTokenHash(hash)->has_value());
  ASSERT_TRUE(store_->SetAccountToken("alice", third).ok());  // lifts it
  EXPECT_EQ((*store_->FindAccount("alice"))->revoked, 0);
  EXPECT_EQ((*store_->FindAccount("alice"))->token_hash, third);

  ASSERT_TRUE(store_->PutAccount("carol", hash).ok());
  EXPECT_EQ(store_->RevokeAccount("nobody").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->SetAccountToken("nobody", hash).code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(store_->FindAccount("nobody")->has_value());
  auto accounts = store_->Accounts();
  ASSERT_TRUE(accounts.ok());
  ASSERT_EQ(accounts->size(), 2u);
  EXPECT_EQ((*accounts)[0].name, "alice");
  EXPECT_EQ((*accounts)[1].name, "carol");
}

TEST_P(StoreTest, ReopeningKeepsEverythingAndAppliesNoMigrationTwice) {
  auto version = store_->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 3);
  const int64_t tournament = *store_->NewTournament("kept");
  ASSERT_TRUE(store_->AddAccount("alice", std::string(32, 'x')).ok());
  store_.reset();
  store_ = Open();
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(*store_->SchemaVersion(), 3);
  EXPECT_THAT(*store_->Tournaments(), ElementsAre(tournament));
  EXPECT_TRUE(store_->FindAccount("alice")->has_value());
}

// Several threads write at once (the arena's match workers): nothing is lost.
TEST_P(StoreTest, ConcurrentWritersLoseNothing) {
  const int64_t tournament = *store_->NewTournament("busy");
  constexpr int kThreads = 4, kMatchesEach = 10;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kMatchesEach; ++i) {
        MatchRecord match = AMatch(tournament, 20);
        if (!store_->StartMatch(&match).ok() || !store_->FinishMatch(match).ok()) ++failures;
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(store_->FinishedMatches(tournament)->size(), static_cast<size_t>(kThreads * kMatchesEach));
}

TEST_P(StoreTest, BackupCopiesAnSqliteStoreAndIsLeftToPostgresOwnTools) {
  ASSERT_TRUE(store_->AddAccount("alice", std::string(32, 'x')).ok());
  const std::string copy = absl::StrCat(::gavel::testing::BuildDir(), "/store_test_copy_", getpid(), ".db");
  const absl::Status backup = store_->Backup(copy);
  if (GetParam() == Kind::kPostgres) {
    EXPECT_EQ(backup.code(), absl::StatusCode::kUnimplemented);
    return;
  }
  ASSERT_TRUE(backup.ok()) << backup;
  auto copied = Store::Open(copy);
  ASSERT_TRUE(copied.ok());
  EXPECT_TRUE((*copied)->FindAccount("alice")->has_value());
  copied->reset();
  std::remove(copy.c_str());
}

std::vector<QueuedMatch> AQueue(int64_t tournament) {
  std::vector<QueuedMatch> queue;
  const std::vector<std::vector<std::string>> tables = {{"a", "b"}, {"b", "c"}, {"a", "b"}, {"c", "a"}};
  for (size_t i = 0; i < tables.size(); ++i)
    queue.push_back(QueuedMatch{tournament, static_cast<int>(i), "sultan", 1000 + i, {{"rounds", "2"}}, tables[i]});
  return queue;
}

// The queue of several arenas: a match goes to an arena that has all its bots; two arenas
// never hold the same match; a match whose lease ran out goes to another arena, and only
// the arena holding it can record its result.
TEST_P(StoreTest, QueuedMatchesGoToArenasWithTheirBotsExactlyOnce) {
  const int64_t tournament = *store_->NewTournament("queued");
  const absl::Status queued = store_->EnqueueMatches(AQueue(tournament));
  if (GetParam() == Kind::kSqlite) {
    EXPECT_EQ(queued.code(), absl::StatusCode::kUnimplemented);
    return;
  }
  ASSERT_TRUE(queued.ok()) << queued;
  auto first = store_->ClaimMatch("arena1", {"a", "b"}, 60000);
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status();
  EXPECT_EQ((*first)->ordinal, 0);
  EXPECT_EQ((*first)->bots, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*first)->seed, 1000u);
  EXPECT_EQ((*first)->options, (OptionMap{{"rounds", "2"}}));
  auto second = store_->ClaimMatch("arena2", {"a", "b", "x"}, 60000);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->ordinal, 2);  // 0 is taken, 1 needs c
  EXPECT_FALSE(store_->ClaimMatch("arena2", {"a", "b"}, 60000)->has_value());

  // arena1 "dies": its lease is already over (a negative lease), so arena3 takes match 0.
  ASSERT_TRUE(store_->RenewLeases("arena1", -1).ok());
  auto taken_over = store_->ClaimMatch("arena3", {"a", "b", "c"}, 60000);
  ASSERT_TRUE(taken_over.ok() && taken_over->has_value());
  EXPECT_EQ((*taken_over)->ordinal, 0);

  MatchRecord late = AMatch(tournament, 5), played = AMatch(tournament, 5);
  ASSERT_TRUE(store_->StartMatch(&late).ok());
  ASSERT_TRUE(store_->StartMatch(&played).ok());
  EXPECT_EQ(store_->FinishQueuedMatch("arena1", **first, late).code(), absl::StatusCode::kAborted);
  ASSERT_TRUE(store_->FinishQueuedMatch("arena3", **taken_over, played).ok());
  EXPECT_EQ(store_->FinishQueuedMatch("arena3", **taken_over, played).code(), absl::StatusCode::kAborted);
  auto results = store_->QueueResults(tournament);
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results->size(), 4u);
  EXPECT_EQ((*results)[0].match_id, played.id);
  EXPECT_EQ((*results)[0].attempts, 2);
  EXPECT_EQ((*results)[1].match_id, 0);
  EXPECT_EQ((*results)[2].attempts, 1);
  EXPECT_THAT(*store_->FinishedMatches(tournament), ElementsAre(played.id));
  EXPECT_FALSE(store_->LoadMatch(late.id)->finished);
}

// Arenas claiming at the same time never get the same match.
TEST_P(StoreTest, ConcurrentClaimsNeverShareAMatch) {
  const int64_t tournament = *store_->NewTournament("contended");
  std::vector<QueuedMatch> queue;
  for (int i = 0; i < 60; ++i) queue.push_back(QueuedMatch{tournament, i, "sultan", 1, {}, {"a", "b"}});
  if (GetParam() == Kind::kSqlite) {  // one arena per SQLite store: no queue
    EXPECT_EQ(store_->ClaimMatch("arena", {"a", "b"}, 60000).status().code(), absl::StatusCode::kUnimplemented);
    return;
  }
  ASSERT_TRUE(store_->EnqueueMatches(queue).ok());
  std::vector<std::unique_ptr<Store>> arenas;
  for (int i = 0; i < 3; ++i) arenas.push_back(Open());
  std::vector<std::vector<int>> claimed(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      for (;;) {
        auto match = arenas[i]->ClaimMatch(absl::StrCat("arena", i), {"a", "b"}, 60000);
        if (!match.ok() || !match->has_value()) return;
        claimed[i].push_back((*match)->ordinal);
      }
    });
  for (std::thread& thread : threads) thread.join();
  std::vector<int> all;
  for (const auto& some : claimed) all.insert(all.end(), some.begin(), some.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), 60u);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(all[i], i);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreTest, ::testing::Values(Kind::kSqlite, Kind::kPostgres), Name);

// A store written by a newer build is refused rather than misread.
TEST(SqliteStore, ANewerSchemaIsRefused) {
  const std::string path = absl::StrCat(::gavel::testing::BuildDir(), "/store_test_newer_", getpid(), ".db");
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(Store::Open(path).status().code(), absl::StatusCode::kFailedPrecondition);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gavel::arena
