// Several engine replicas behind one client channel (round_robin, retries): calls spread
// over the replicas, and when one drains on SIGTERM and another dies on SIGKILL during the
// load, every game still finishes and no call fails.
#include <signal.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gavel/v1/engine.grpc.pb.h"
#include "gtest/gtest.h"
#include "service/engine_client.h"
#include "tests/support/child_process.h"
#include "tests/support/test_games.h"

namespace gavel {
namespace {

using ::gavel::testing::ChildProcess;

constexpr int kReplicas = 3;
constexpr int kGames = 36;
constexpr int kWorkers = 4;
constexpr int kDrainAfterGames = 8;   // SIGTERM replica 0 once this many games finished
constexpr int kKillAfterGames = 20;   // SIGKILL replica 1 once this many games finished

class LoadRecorder {
 public:
  void Record(const grpc::ClientContext& context, const grpc::Status& status) {
    std::lock_guard lock(mutex_);
    ++calls_by_peer_[context.peer()];
    if (!status.ok()) failures_.push_back(absl::StrCat(status.error_code(), " ", status.error_message()));
  }
  std::map<std::string, int> calls_by_peer() {
    std::lock_guard lock(mutex_);
    return calls_by_peer_;
  }
  std::vector<std::string> failures() {
    std::lock_guard lock(mutex_);
    return failures_;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, int> calls_by_peer_;
  std::vector<std::string> failures_;
};

// Plays one 4-player game of the test game through the channel; false if any call failed.
bool PlayGame(v1::Engine::Stub& stub, uint64_t seed, LoadRecorder& recorder) {
  std::mt19937 random(static_cast<unsigned>(seed));
  v1::NewGameRequest request;
  request.set_game(gavel::testing::TestGame().name());
  request.set_players(gavel::testing::TestPlayers(4));
  request.set_seed(seed);
  v1::NewGameResponse created;
  grpc::ClientContext create_context;
  grpc::Status status = stub.NewGame(&create_context, request, &created);
  recorder.Record(create_context, status);
  if (!status.ok()) return false;
  v1::GameState state = created.state();
  v1::GameStatus game = created.status();
  while (!game.finished()) {
    v1::LegalMovesRequest legal_request;
    *legal_request.mutable_state()->mutable_full() = state;
    legal_request.set_seat(game.to_move());
    v1::LegalMovesResponse legal;
    grpc::ClientContext legal_context;
    status = stub.LegalMoves(&legal_context, legal_request, &legal);
    recorder.Record(legal_context, status);
    if (!status.ok() || legal.moves().empty()) return false;
    v1::ApplyRequest apply;
    *apply.mutable_state()->mutable_full() = state;
    *apply.mutable_move() = legal.moves(static_cast<int>(random() % legal.moves_size()));
    v1::ApplyResponse applied;
    grpc::ClientContext apply_context;
    status = stub.Apply(&apply_context, apply, &applied);
    recorder.Record(apply_context, status);
    if (!status.ok()) return false;
    state = applied.state();
    game = applied.status();
  }
  return true;
}

TEST(EngineReplicas, LoadSpreadsAndSurvivesADrainingAndAKilledReplica) {
  std::vector<ChildProcess> replicas;
  std::vector<std::string> addresses;
  for (int i = 0; i < kReplicas; ++i) {
    auto process = ChildProcess::Start({GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0",
                                        "--log_level=warn", "--shutdown_delay_s=0.5",
                                        "--drain_s=5"});
    ASSERT_TRUE(process.ok());
    auto port = process->WaitForPort();
    ASSERT_TRUE(port.ok()) << port.status();
    addresses.push_back(absl::StrCat("127.0.0.1:", *port));
    replicas.push_back(std::move(*process));
  }
  std::string target = "ipv4:";
  for (size_t i = 0; i < addresses.size(); ++i) absl::StrAppend(&target, i ? "," : "", addresses[i]);
  auto stub = v1::Engine::NewStub(service::MakeEngineChannel(target));

  LoadRecorder recorder;
  std::atomic<int> next_game{0}, finished{0}, lost{0};
  std::once_flag drain_once, kill_once;
  auto worker = [&] {
    for (int game; (game = next_game.fetch_add(1)) < kGames;) {
      if (PlayGame(*stub, 100 + static_cast<uint64_t>(game), recorder)) {
        const int done = finished.fetch_add(1) + 1;
        if (done >= kDrainAfterGames) std::call_once(drain_once, [&] { replicas[0].Signal(SIGTERM); });
        if (done >= kKillAfterGames) std::call_once(kill_once, [&] { replicas[1].Signal(SIGKILL); });
      } else {
        ++lost;
      }
    }
  };
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) workers.emplace_back(worker);
  for (auto& thread : workers) thread.join();

  EXPECT_EQ(finished.load(), kGames);
  EXPECT_EQ(lost.load(), 0);
  const auto failures = recorder.failures();
  EXPECT_TRUE(failures.empty()) << failures.size() << " calls failed, first: " << failures.front();
  auto drained = replicas[0].Wait();
  ASSERT_TRUE(drained.ok()) << drained.status();
  EXPECT_EQ(*drained, 0) << "the draining replica did not exit 0";

  // Calls were spread over every replica (the peer names the replica that answered).
  const auto calls = recorder.calls_by_peer();
  std::string report;
  for (const std::string& address : addresses) {
    int count = 0;
    for (const auto& [peer, n] : calls)
      if (peer.find(address) != std::string::npos) count += n;
    absl::StrAppend(&report, address, "=", count, " ");
    EXPECT_GT(count, 0) << "replica " << address << " got no calls";
  }
  std::printf("calls per replica: %s\n", report.c_str());
  ::testing::Test::RecordProperty("calls_per_replica", report);
}

}  // namespace
}  // namespace gavel
