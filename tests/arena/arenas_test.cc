// Several arenas sharing one PostgreSQL store: three arenas on loopback, every bot connected
// to each of them, one arena killed in the middle of a tournament. Every match finishes
// exactly once, every stored match verifies, and the standings are those of the same
// tournament played by one arena on an SQLite store.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/arena/store.h"
#include "tests/arena/arena_cluster.h"
#include "tests/support/child_process.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_games.h"

namespace gavel::arena {
namespace {

using ::gavel::testing::ChildProcess;
using ::testing::HasSubstr;
using namespace ::gavel::arena::cluster;  // NOLINT: the cluster helpers

TEST(Arenas, ThreeArenasOnOnePostgresLoseNothingWhenOneIsKilled) {
  ::gavel::testing::PostgresServer* server = ::gavel::testing::SharedPostgres();
  ASSERT_NE(server, nullptr);
  const int matches = kDeals * ::gavel::testing::TestPlayers(static_cast<int>(kBots.size()));

  // The reference: the same tournament on one arena with an SQLite store.
  const std::string sqlite = absl::StrCat(::gavel::testing::BuildDir(), "/arenas_test_", getpid(), ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((sqlite + suffix).c_str());
  std::string reference_summary, reference;
  {
    Arena single = StartArena(sqlite, true, "single");
    std::vector<ChildProcess> bots = ConnectBots({&single});
    reference = Standings(single.process, &reference_summary);
  }
  EXPECT_THAT(reference_summary, HasSubstr(absl::StrCat(matches, " matches, 0 not finished")));

  auto db = server->NewDatabase(absl::StrCat("arenas_", getpid()));
  ASSERT_TRUE(db.ok()) << db.status();
  Arena coordinator = StartArena(*db, true, "arena0");
  Arena second = StartArena(*db, false, "arena1");
  Arena third = StartArena(*db, false, "arena2");
  std::vector<ChildProcess> bots = ConnectBots({&coordinator, &second, &third});

  // Kill the second arena once a few matches are done (an observed state, not a time).
  auto store = Store::Open(*db);
  ASSERT_TRUE(store.ok()) << store.status();
  for (size_t done = 0; done < 3;) {
    auto tournaments = (*store)->Tournaments();
    ASSERT_TRUE(tournaments.ok());
    if (tournaments->empty()) continue;
    auto entries = (*store)->QueueResults(tournaments->back());
    ASSERT_TRUE(entries.ok());
    done = std::count_if(entries->begin(), entries->end(), [](const auto& e) { return e.match_id != 0; });
    ASSERT_LT(done, static_cast<size_t>(matches)) << "the tournament ended before the kill";
    std::this_thread::yield();
  }
  second.process.Signal(SIGKILL);
  ASSERT_TRUE(second.process.Wait(kWaitMs).ok());

  std::string summary;
  const std::string standings = Standings(coordinator.process, &summary);
  EXPECT_THAT(summary, HasSubstr(absl::StrCat(matches, " matches, 0 not finished")));
  EXPECT_EQ(standings, reference);
  std::printf("%s\n%s", summary.c_str(), standings.c_str());

  // Exactly once: one finished match per queue entry, all distinct, nothing else finished.
  const int64_t tournament = (*store)->Tournaments()->back();
  auto entries = (*store)->QueueResults(tournament);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), static_cast<size_t>(matches));
  std::set<int64_t> ids;
  int taken_again = 0;
  for (const auto& entry : *entries) {
    EXPECT_NE(entry.match_id, 0);
    ids.insert(entry.match_id);
    taken_again += entry.attempts - 1;
  }
  EXPECT_EQ(ids.size(), entries->size());
  auto finished = (*store)->FinishedMatches(tournament);
  ASSERT_TRUE(finished.ok());
  EXPECT_EQ(std::set<int64_t>(finished->begin(), finished->end()), ids);
  std::printf("matches taken again after the kill: %d\n", taken_again);
  ::testing::Test::RecordProperty("matches_taken_again", taken_again);

  ChildProcess verify = MustStart({GAVEL_ARENA_BINARY, "verify", "--db=" + *db});
  auto verified = verify.WaitForLine("verified ", kWaitMs);
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_THAT(*verified, HasSubstr(" 0 failed"));
  EXPECT_EQ(verify.Wait(kWaitMs).value_or(-1), 0);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((sqlite + suffix).c_str());
}

}  // namespace
}  // namespace gavel::arena
