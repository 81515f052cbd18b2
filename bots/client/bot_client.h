#pragma once
// What every C++ bot shares: connect to the arena, say hello, answer each turn with the
// policy's move, and reconnect with exponential backoff when the stream ends.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "bots/policy.h"
#include "gavel/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace gavel::bots {

struct BotOptions {
  std::string arena = "127.0.0.1:50061";  // gRPC target
  std::string name;
  std::string version = "1";
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
  BotClient(BotOptions options, Policy& policy);

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

 private:
  // One connection, until the stream ends; returns its status and whether it was welcomed.
  grpc::Status PlayOnce(bool* welcomed);

  BotOptions options_;
  Policy& policy_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Arena::Stub> stub_;
  std::function<void(const v1::MatchResult&)> on_result_;
  std::atomic<bool> stopped_{false};
  std::atomic<int> turns_{0};
  std::mutex mutex_;
  grpc::ClientContext* context_ = nullptr;  // the stream in progress
  std::condition_variable wake_;
};

}  // namespace gavel::bots
