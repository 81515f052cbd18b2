#pragma once
// What every C++ bot shares: connect to the arena, say hello, answer each turn with the
// policy's move (or, when the policy fails, with the error: never a substitute move), and
// reconnect with exponential backoff when the stream ends.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/rng.h"
#include "gavel/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "policy/policy.h"

namespace gavel::bots {

struct BotOptions {
  std::string arena = "127.0.0.1:50061";  // gRPC target
  std::string name;
  std::string version = "1";
  std::vector<std::string> games;  // claimed in the hello
  uint64_t seed = 1;               // of the randomness the policy draws from
  int min_backoff_ms = 100;
  int max_backoff_ms = 5000;
  int max_message_bytes = 4 << 20;
  // How to reach the arena: null for plaintext (loopback), else e.g. TLS credentials.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // The bot account's token, sent as `authorization: Bearer <token>` (empty: none, for an
  // arena with open registration).
  std::string token;
};

class BotClient {
 public:
  // `policy` is called from Run()'s thread only.
  BotClient(BotOptions options, policy::Policy policy);

  // Plays until Stop(): connects, answers turns, reconnects after a lost stream. Gives up,
  // returning why, when the arena refuses the bot for good: an unknown or revoked token
  // (UNAUTHENTICATED), a name of another account (PERMISSION_DENIED), or a newer connection
  // of the same account that took its place (ABORTED). OK after Stop().
  grpc::Status Run();
  // Ends Run() from any thread.
  void Stop();
  // Called with every match result (optional).
  void OnResult(std::function<void(const v1::MatchResult&)> callback) {
    on_result_ = std::move(callback);
  }
  int turns_answered() const { return turns_; }
  // Turns answered with an error because the policy could not choose.
  int policy_errors() const { return policy_errors_; }

 private:
  // One connection, until the stream ends; returns its status and whether it was welcomed.
  grpc::Status PlayOnce(bool* welcomed);
  // The answer to one turn: the policy's move or its error.
  v1::BotMessage Answer(const v1::TurnRequest& turn);

  BotOptions options_;
  policy::Policy policy_;
  Rng rng_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Arena::Stub> stub_;
  std::function<void(const v1::MatchResult&)> on_result_;
  std::atomic<bool> stopped_{false};
  std::atomic<int> turns_{0};
  std::atomic<int> policy_errors_{0};
  std::mutex mutex_;
  grpc::ClientContext* context_ = nullptr;  // the stream in progress
  std::condition_variable wake_;
};

}  // namespace gavel::bots
