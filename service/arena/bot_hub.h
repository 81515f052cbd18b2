#pragma once
// The bots connected to the arena: one Arena.Play stream each, served by a callback
// reactor (no thread per bot). Matches ask a bot for a move with a deadline on the
// arena's clock; a bot that hangs, floods or vanishes costs only its own turns.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gavel/v1/arena.grpc.pb.h"
#include "service/arena/accounts.h"
#include "grpcpp/grpcpp.h"

namespace gavel::arena {

// What a bot answered to one turn. `move_id` is meaningful only with MOVE_STATUS_OK; the
// referee still checks that it is legal.
struct TurnAnswer {
  v1::MoveStatus status = v1::MOVE_STATUS_UNSPECIFIED;
  uint32_t move_id = 0;
};

class BotHub;

// What a stream proved when it opened: the account whose token it sent and that token's
// hash (both empty for an open-registration bot without a token).
struct Admission {
  std::string account;
  std::string token_hash;
};

// One bot's stream. Owned by shared pointers: the hub's (while connected), the matches'
// (while asking) and its own (until gRPC is done with the stream).
class BotConnection final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>,
                            public std::enable_shared_from_this<BotConnection> {
 public:
  BotConnection(BotHub* hub, size_t max_queued_messages);
  // Call once, right after construction, with what the stream proved (`Admission`) or why
  // it may not play.
  void Start(absl::StatusOr<Admission> admission);

  const std::string& name() const { return hello_.name(); }
  const std::string& account() const { return admission_.account; }
  const std::string& token_hash() const { return admission_.token_hash; }
  const v1::Hello& hello() const { return hello_; }

  // Sends the turn (filling in its request id) and waits for the answer until `deadline`.
  TurnAnswer Ask(v1::TurnRequest turn, std::chrono::steady_clock::time_point deadline);
  // Best effort: false when the bot is gone or its outgoing queue is full.
  bool Send(const v1::ArenaMessage& message);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

  // Ends the stream with `status` (a newer connection of the same account took its place).
  void Evict(grpc::Status status);

 private:
  struct Pending {
    bool done = false;
    TurnAnswer answer;
  };
  void HandleHello(const v1::BotMessage& message);
  grpc::Status CheckHello(const v1::Hello& hello) const;
  // Records the answer to an open turn; false when no open turn has its id.
  bool HandleReply(const v1::MoveReply& reply);
  // Ends every turn the bot owes with `status`.
  void FailPending(v1::MoveStatus status);
  void Close();
  void FinishIfIdle(std::unique_lock<std::mutex>& lock);

  BotHub* hub_;
  const size_t max_queued_messages_;
  std::shared_ptr<BotConnection> self_;
  grpc::ByteBuffer incoming_;
  Admission admission_;
  v1::Hello hello_;
  bool greeted_ = false;
  std::optional<TokenBucket> messages_;  // the bot's message rate allowance

  std::mutex mutex_;
  std::condition_variable answered_;
  std::deque<grpc::ByteBuffer> outgoing_;  // front is being written while writing_
  bool writing_ = false;
  bool closed_ = false;    // reads ended or a write failed: nothing more is sent
  bool finished_ = false;
  grpc::Status finish_status_;  // guarded by mutex_ once the stream is greeted
  uint64_t next_request_id_ = 1;
  std::map<uint64_t, std::shared_ptr<Pending>> pending_;
};

struct BotHubOptions {
  size_t max_bots = 64;
  size_t max_queued_messages = 64;
  std::set<std::string> games;     // the games the arena runs
  uint32_t move_ms = 1000;
  uint32_t bank_ms = 10000;
  std::string arena_version;
  // Accounts: null means none exist (every name is free, as with open registration).
  AccountBook* accounts = nullptr;
  // Bots without a token may play under any name no account owns.
  bool open_registration = true;
  FailureThrottle::Options failed_logins;
  // Messages a bot may send per second (sustained) and at once beyond the answers to its
  // open turns (which are always welcome); more ends its stream.
  double messages_per_s = 500;
  double message_burst = 1000;
};

class BotHub {
 public:
  explicit BotHub(BotHubOptions options) : options_(std::move(options)) {}
  const BotHubOptions& options() const { return options_; }

  // Called for each bot that joins (after its hello was accepted).
  void OnJoin(std::function<void(const v1::Hello&)> callback) { on_join_ = std::move(callback); }

  // The connection of the bot named `name`, or null when it is not connected.
  std::shared_ptr<BotConnection> Find(const std::string& name) const;
  // The hellos of the connected bots, by name.
  std::vector<v1::Hello> Connected() const;
  // Waits until at least `count` bots are connected; false on timeout.
  bool WaitForBots(size_t count, std::chrono::steady_clock::duration timeout) const;

  // Whether a new stream may play, from its metadata: the account whose token it sent, ""
  // without a token under open registration; UNAUTHENTICATED (a missing, unknown, revoked
  // or replaced token) and RESOURCE_EXHAUSTED (too many failures from the peer's address).
  absl::StatusOr<Admission> Admit(const grpc::CallbackServerContext& context);
  // Ends the streams of connected bots whose account was revoked or whose token was rotated
  // since they connected (the arena calls it every few seconds: the `accounts` tool may
  // change the store from another process). Returns how many it ended.
  int RecheckAccounts();

 private:
  friend class BotConnection;
  grpc::Status Join(std::shared_ptr<BotConnection> bot);
  void Leave(const BotConnection* bot);

  BotHubOptions options_;
  std::function<void(const v1::Hello&)> on_join_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<std::string, std::shared_ptr<BotConnection>> bots_;
  FailureThrottle failed_logins_{options_.failed_logins};
};

// The Arena service: hands each stream to a new BotConnection.
class ArenaService final : public v1::Arena::WithRawCallbackMethod_Play<v1::Arena::Service> {
 public:
  explicit ArenaService(BotHub* hub) : hub_(hub) {}
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Play(
      grpc::CallbackServerContext* context) override;

 private:
  BotHub* hub_;
};

}  // namespace gavel::arena
