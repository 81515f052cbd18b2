#pragma once
// Arenas, bots and standings as processes, for the tests and the benchmark of several arenas
// on one store (tests/arena/arenas_test.cc, tests/bench/arenas_bench.cc).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/child_process.h"
#include "tests/support/test_games.h"

namespace gavel::arena::cluster {

using ::gavel::testing::ChildProcess;

inline constexpr int kWaitMs = 300000;  // a bound for a stuck process, not a timing expectation
inline constexpr int kDeals = 8;
inline const std::vector<std::string> kBots = {"dirk_a", "dirk_b", "dirk_c"};

inline ChildProcess MustStart(const std::vector<std::string>& argv) {
  auto process = ChildProcess::Start(argv);
  EXPECT_TRUE(process.ok()) << process.status();
  return std::move(*process);
}

struct Arena {
  ChildProcess process;
  int port = 0;
};

// An arena on `db` (GAVEL_ARENA_BINARY); with `coordinate` it queues (or plays) the tournament and exits after it.
inline Arena StartArena(const std::string& db, bool coordinate, const std::string& id,
                        int deals = kDeals) {
  std::vector<std::string> argv = {GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--log_level=warn",
                                   "--db=" + db, "--arena_id=" + id, "--lease_ms=1500",
                                   "--concurrency=2", "--progress=false"};
  if (coordinate) {
    for (const std::string& flag :
         {std::string("--tournament"), std::string("--exit_after_tournament"),
          absl::StrCat("--games=", ::gavel::testing::TestGame().name()), absl::StrCat("--deals=", deals),
          std::string("--seed=7"),  // the same deals on every cluster, for comparing their results
          absl::StrCat("--wait_for_bots=", kBots.size())})
      argv.push_back(flag);
  }
  Arena arena{MustStart(argv)};
  auto port = arena.process.WaitForPort(kWaitMs);
  EXPECT_TRUE(port.ok()) << port.status();
  arena.port = port.value_or(0);
  return arena;
}

// One bot process per name, connected to every arena (a comma-separated --arena). Dirk
// decides from the view alone, so every bot plays the same moves wherever its match runs.
inline std::vector<ChildProcess> ConnectBots(const std::vector<Arena*>& arenas,
                                             const std::string& policy = "dirk") {
  std::string targets;
  for (const Arena* arena : arenas) absl::StrAppend(&targets, targets.empty() ? "" : ",", "127.0.0.1:", arena->port);
  std::vector<ChildProcess> bots;
  for (const std::string& name : kBots)
    bots.push_back(MustStart({GAVEL_BOT_BINARY, "--policy=" + policy, "--name=" + name,
                              "--arena=" + targets, "--log_level=error"}));
  return bots;
}

// The standings the coordinator prints after its summary line.
inline std::string Standings(ChildProcess& coordinator, std::string* summary) {
  auto line = coordinator.WaitForLine("tournament ", kWaitMs);
  EXPECT_TRUE(line.ok()) << line.status();
  *summary = line.value_or("");
  EXPECT_EQ(coordinator.Wait(kWaitMs).value_or(-1), 0);
  const std::string& output = coordinator.output();
  const size_t start = output.find(*summary);
  return start == std::string::npos ? "" : output.substr(start + summary->size());
}

}  // namespace gavel::arena::cluster
