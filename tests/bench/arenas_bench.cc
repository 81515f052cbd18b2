// Matches per second with one, two and three arenas on one PostgreSQL store (random bots,
// in-process engine, every bot connected to every arena): the figure in docs/arena.md.
//   arenas_bench   (from the build tree; starts its own PostgreSQL server)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/arena/arena_cluster.h"
#include "tests/support/postgres_server.h"

namespace gavel::arena::cluster {
namespace {

constexpr int kBenchDeals = 100;

double MatchesPerSecond(int arenas, ::gavel::testing::PostgresServer& server) {
  auto db = server.NewDatabase(absl::StrCat("arenas_rate_", arenas, "_", getpid()));
  EXPECT_TRUE(db.ok());
  std::vector<Arena> started;
  started.push_back(StartArena(*db, true, "rate0", kBenchDeals));
  for (int i = 1; i < arenas; ++i) started.push_back(StartArena(*db, false, absl::StrCat("rate", i)));
  std::vector<Arena*> all;
  for (Arena& arena : started) all.push_back(&arena);
  const auto begin = std::chrono::steady_clock::now();
  std::vector<ChildProcess> bots = ConnectBots(all, "random");
  std::string summary;
  Standings(started[0].process, &summary);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const int matches = kBenchDeals * ::gavel::testing::TestPlayers(static_cast<int>(kBots.size()));
  return matches / seconds;
}

}  // namespace
}  // namespace gavel::arena::cluster

int main() {
  ::gavel::testing::PostgresServer* server = ::gavel::testing::SharedPostgres();
  if (server == nullptr) return 1;
  for (int arenas = 1; arenas <= 3; ++arenas)
    std::printf("%d arena(s): %.1f matches/s\n", arenas, gavel::arena::cluster::MatchesPerSecond(arenas, *server));
  return 0;
}
