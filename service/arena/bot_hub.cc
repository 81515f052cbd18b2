#include "service/arena/bot_hub.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "service/grpc_status.h"
#include "grpcpp/support/proto_buffer_writer.h"
#include "spdlog/spdlog.h"

namespace gavel::arena {
namespace {

constexpr int kMaxGamesInHello = 64;

bool Parse(grpc::ByteBuffer& buffer, v1::BotMessage* message) {
  return grpc::GenericDeserialize<grpc::ProtoBufferReader, v1::BotMessage>(&buffer, message).ok();
}

}  // namespace

BotConnection::BotConnection(BotHub* hub, size_t max_queued_messages)
    : hub_(hub), max_queued_messages_(max_queued_messages) {}

void BotConnection::Start(absl::StatusOr<Admission> admission) {
  self_ = shared_from_this();
  if (!admission.ok()) {
    finish_status_ = service::ToGrpcStatus(admission.status());
    std::unique_lock lock(mutex_);
    closed_ = true;
    FinishIfIdle(lock);
    return;
  }
  admission_ = std::move(*admission);
  const BotHubOptions& options = hub_->options();
  messages_.emplace(options.messages_per_s, options.message_burst, std::chrono::steady_clock::now());
  StartRead(&incoming_);
}

TurnAnswer BotConnection::Ask(v1::TurnRequest turn,
                              std::chrono::steady_clock::time_point deadline) {
  auto pending = std::make_shared<Pending>();
  uint64_t id;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return {v1::MOVE_STATUS_DISCONNECTED, 0};
    id = next_request_id_++;
    pending_[id] = pending;
  }
  turn.set_request_id(id);
  v1::ArenaMessage message;
  *message.mutable_turn() = std::move(turn);
  const bool sent = Send(message);
  std::unique_lock lock(mutex_);
  if (!sent && !pending->done) {
    // A full queue means the bot stopped reading: that is a bot out of time.
    pending->done = true;
    pending->answer.status = closed_ ? v1::MOVE_STATUS_DISCONNECTED : v1::MOVE_STATUS_TIMEOUT;
  }
  if (!answered_.wait_until(lock, deadline, [&] { return pending->done; }))
    pending->answer.status = v1::MOVE_STATUS_TIMEOUT;
  pending_.erase(id);
  return pending->answer;
}

bool BotConnection::Send(const v1::ArenaMessage& message) {
  grpc::ByteBuffer buffer;
  bool own_buffer = false;
  if (!grpc::GenericSerialize<grpc::ProtoBufferWriter, v1::ArenaMessage>(message, &buffer,
                                                                          &own_buffer)
           .ok())
    return false;
  grpc::ByteBuffer* to_write = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || outgoing_.size() >= max_queued_messages_) return false;
    outgoing_.push_back(std::move(buffer));
    if (!writing_) {
      writing_ = true;
      to_write = &outgoing_.front();
    }
  }
  // Outside the lock: gRPC may run the reaction on this thread. The deque keeps the
  // front element in place while later messages are appended.
  if (to_write) StartWrite(to_write);
  return true;
}

void BotConnection::OnWriteDone(bool ok) {
  grpc::ByteBuffer* to_write = nullptr;
  {
    std::unique_lock lock(mutex_);
    outgoing_.pop_front();
    if (!ok) {
      closed_ = true;
      outgoing_.clear();
    }
    if (outgoing_.empty() || closed_) {
      writing_ = false;
      FinishIfIdle(lock);
    } else {
      to_write = &outgoing_.front();
    }
  }
  if (!ok) FailPending(v1::MOVE_STATUS_DISCONNECTED);
  if (to_write) StartWrite(to_write);
}

void BotConnection::OnReadDone(bool ok) {
  if (!ok) {
    Close();
    return;
  }
  v1::BotMessage message;
  const bool parsed = Parse(incoming_, &message);
  // An answer to an open turn is what the arena asked for and costs nothing; anything else
  // (a late answer, garbage, an unexpected message) draws on the bot's message allowance.
  if (parsed && greeted_ && message.has_move() && HandleReply(message.move())) {
    StartRead(&incoming_);
    return;
  }
  if (!messages_->Take(std::chrono::steady_clock::now())) {
    spdlog::warn("bot {}: over {} unrequested messages per second; disconnected", name(),
                 hub_->options().messages_per_s);
    {
      std::lock_guard lock(mutex_);
      finish_status_ = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "too many unrequested messages");
    }
    Close();
    return;
  }
  if (!parsed) {
    if (!greeted_) {
      finish_status_ = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                    "the first message is not a well-formed gavel.v1.BotMessage");
      Close();
      return;
    }
    spdlog::warn("bot {}: unparsable message", name());
    FailPending(v1::MOVE_STATUS_INVALID);
  } else if (!greeted_) {
    HandleHello(message);
    if (!greeted_) return;
  } else if (message.has_move()) {
    spdlog::debug("bot {}: reply to a closed request {}", name(), message.move().request_id());
  } else {
    spdlog::warn("bot {}: unexpected message {}", name(), static_cast<int>(message.kind_case()));
    FailPending(v1::MOVE_STATUS_INVALID);
  }
  StartRead(&incoming_);
}

void BotConnection::HandleHello(const v1::BotMessage& message) {
  grpc::Status status;
  if (!message.has_hello()) {
    status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the first message must be a hello");
  } else if (!ValidBotName(message.hello().name())) {
    status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "a bot name is 1-64 characters of A-Z a-z 0-9 _ . -");
  } else if (message.hello().games_size() > kMaxGamesInHello) {
    status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "too many games in the hello");
  } else if (status = CheckHello(message.hello()); status.ok()) {
    hello_ = message.hello();
    status = hub_->Join(shared_from_this());
  }
  if (!status.ok()) {
    {
      std::lock_guard lock(mutex_);
      finish_status_ = status;
    }
    Close();
    return;
  }
  greeted_ = true;
  v1::ArenaMessage welcome;
  const BotHubOptions& options = hub_->options();
  welcome.mutable_welcome()->set_arena_version(options.arena_version);
  welcome.mutable_welcome()->set_move_ms(options.move_ms);
  welcome.mutable_welcome()->set_bank_ms(options.bank_ms);
  for (const std::string& game : hello_.games())
    if (options.games.count(game)) welcome.mutable_welcome()->add_games(game);
  Send(welcome);
}

// A bot with a token plays under its account's name only; a bot without one (open
// registration) under any name that no account owns.
grpc::Status BotConnection::CheckHello(const v1::Hello& hello) const {
  if (!account().empty()) {
    if (hello.name() == account()) return grpc::Status::OK;
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("this token plays as '", account(), "', not '", hello.name(), "'"));
  }
  AccountBook* accounts = hub_->options().accounts;
  if (!accounts) return grpc::Status::OK;
  absl::StatusOr<bool> owned = accounts->Owned(hello.name());
  if (!owned.ok()) return service::ToGrpcStatus(owned.status());
  if (!*owned) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                      absl::StrCat("the name '", hello.name(), "' belongs to an account: send its token"));
}

bool BotConnection::HandleReply(const v1::MoveReply& reply) {
  bool known = false;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(reply.request_id());
    if (it != pending_.end() && !it->second->done) {
      it->second->done = true;
      it->second->answer = reply.error().empty() ? TurnAnswer{v1::MOVE_STATUS_OK, reply.move_id()}
                                                 : TurnAnswer{v1::MOVE_STATUS_FAILED, 0};
      known = true;
    }
  }
  // An unknown id is most likely an answer that came after its deadline: ignored.
  if (known) answered_.notify_all();
  return known;
}

void BotConnection::FailPending(v1::MoveStatus status) {
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, pending] : pending_) {
      if (pending->done) continue;
      pending->done = true;
      pending->answer.status = status;
    }
  }
  answered_.notify_all();
}

void BotConnection::Close() {
  if (greeted_) hub_->Leave(this);
  {
    std::unique_lock lock(mutex_);
    closed_ = true;
    FinishIfIdle(lock);
  }
  FailPending(v1::MOVE_STATUS_DISCONNECTED);
}

void BotConnection::FinishIfIdle(std::unique_lock<std::mutex>& lock) {
  if (!closed_ || writing_ || finished_) return;
  finished_ = true;
  const grpc::Status status = finish_status_;
  lock.unlock();
  Finish(status);
  lock.lock();
}

void BotConnection::Evict(grpc::Status status) {
  hub_->Leave(this);  // no-op when a newer connection already holds the name
  {
    std::unique_lock lock(mutex_);
    finish_status_ = std::move(status);
    closed_ = true;
    FinishIfIdle(lock);
  }
  FailPending(v1::MOVE_STATUS_DISCONNECTED);
}

void BotConnection::OnDone() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  FailPending(v1::MOVE_STATUS_DISCONNECTED);
  self_.reset();  // may destroy this object
}

// A second connection of an account replaces the first (a restarted bot need not wait for
// the arena to notice that its old connection is dead; only the token's holder can do it).
// Without accounts the name is first come, first served.
grpc::Status BotHub::Join(std::shared_ptr<BotConnection> bot) {
  std::shared_ptr<BotConnection> replaced;
  {
    std::lock_guard lock(mutex_);
    auto it = bots_.find(bot->name());
    if (it != bots_.end() && bot->account().empty())
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                          absl::StrCat("a bot named '", bot->name(), "' is already connected"));
    if (it == bots_.end() && bots_.size() >= options_.max_bots)
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the arena is full");
    if (it != bots_.end()) replaced = std::move(it->second);
    bots_[bot->name()] = bot;
  }
  if (replaced) {
    spdlog::info("bot {}: a new connection of the account replaces the old one", bot->name());
    replaced->Evict(grpc::Status(grpc::StatusCode::ABORTED,
                                 "replaced by a newer connection of the same account"));
  }
  spdlog::info("bot {} {} joined", bot->name(), bot->hello().version());
  if (on_join_) on_join_(bot->hello());
  changed_.notify_all();
  return grpc::Status::OK;
}

void BotHub::Leave(const BotConnection* bot) {
  {
    std::lock_guard lock(mutex_);
    auto it = bots_.find(bot->name());
    if (it == bots_.end() || it->second.get() != bot) return;
    bots_.erase(it);
  }
  spdlog::info("bot {} left", bot->name());
  changed_.notify_all();
}

std::shared_ptr<BotConnection> BotHub::Find(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto it = bots_.find(name);
  return it == bots_.end() ? nullptr : it->second;
}

std::vector<v1::Hello> BotHub::Connected() const {
  std::lock_guard lock(mutex_);
  std::vector<v1::Hello> hellos;
  for (const auto& [name, bot] : bots_) hellos.push_back(bot->hello());
  return hellos;
}

bool BotHub::WaitForBots(size_t count, std::chrono::steady_clock::duration timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return bots_.size() >= count; });
}

absl::StatusOr<Admission> BotHub::Admit(const grpc::CallbackServerContext& context) {
  const std::string peer = PeerAddress(context.peer());
  if (!failed_logins_.Allowed(peer))
    return absl::ResourceExhaustedError("too many failed attempts from this address; try later");
  const auto& metadata = context.client_metadata();
  const auto header = metadata.find("authorization");
  if (header == metadata.end()) {
    if (options_.open_registration) return Admission{};
    return absl::UnauthenticatedError(
        "this arena admits bot accounts only: send 'authorization: Bearer <token>'");
  }
  const absl::string_view token =
      BearerToken(absl::string_view(header->second.data(), header->second.size()));
  absl::StatusOr<std::string> account =
      options_.accounts ? options_.accounts->Authenticate(token)
                        : absl::UnauthenticatedError("this arena has no accounts");
  if (!account.ok()) {
    if (absl::IsUnauthenticated(account.status())) {
      failed_logins_.Failed(peer);
      spdlog::warn("refused a bot token from {}", peer);  // never the token itself
    }
    return account.status();
  }
  return Admission{std::move(*account), HashToken(token)};
}

int BotHub::RecheckAccounts() {
  if (!options_.accounts) return 0;
  std::vector<std::shared_ptr<BotConnection>> bots;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, bot] : bots_)
      if (!bot->account().empty()) bots.push_back(bot);
  }
  int ended = 0;
  for (const std::shared_ptr<BotConnection>& bot : bots) {
    const absl::StatusOr<bool> valid = options_.accounts->StillValid(bot->account(), bot->token_hash());
    if (!valid.ok() || *valid) continue;  // a store error ends nobody's stream
    spdlog::info("bot {}: its token was revoked or replaced; disconnected", bot->name());
    bot->Evict(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                            "this account's token was revoked or replaced"));
    ++ended;
  }
  return ended;
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* ArenaService::Play(
    grpc::CallbackServerContext* context) {
  auto bot = std::make_shared<BotConnection>(hub_, hub_->options().max_queued_messages);
  bot->Start(hub_->Admit(*context));
  return bot.get();
}

}  // namespace gavel::arena
