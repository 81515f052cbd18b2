#include "bots/client/bot_client.h"

#include <algorithm>

#include "spdlog/spdlog.h"

namespace gavel::bots {

BotClient::BotClient(BotOptions options, policy::Policy policy)
    : options_(std::move(options)), policy_(std::move(policy)), rng_(Rng::FromSeed(options_.seed)) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(options_.max_message_bytes);
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, options_.min_backoff_ms);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, options_.max_backoff_ms);
  channel_ = grpc::CreateCustomChannel(
      options_.arena,
      options_.credentials ? options_.credentials : grpc::InsecureChannelCredentials(), arguments);
  stub_ = v1::Arena::NewStub(channel_);
}

namespace {

// Refusals that reconnecting cannot cure (and, for a replaced connection, must not fight).
bool Final(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
         status.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
         status.error_code() == grpc::StatusCode::ABORTED;
}

}  // namespace

grpc::Status BotClient::Run() {
  int backoff_ms = options_.min_backoff_ms;
  while (!stopped_) {
    bool welcomed = false;
    const grpc::Status status = PlayOnce(&welcomed);
    if (stopped_) break;
    if (Final(status)) {
      spdlog::error("{}: refused by the arena ({}: {}); not reconnecting", options_.name,
                    static_cast<int>(status.error_code()), status.error_message());
      return status;
    }
    if (welcomed) backoff_ms = options_.min_backoff_ms;
    spdlog::warn("{}: stream ended ({}: {}); reconnecting in {} ms", options_.name,
                 static_cast<int>(status.error_code()), status.error_message(), backoff_ms);
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, std::chrono::milliseconds(backoff_ms), [&] { return stopped_.load(); });
    backoff_ms = std::min(backoff_ms * 2, options_.max_backoff_ms);
  }
  return grpc::Status::OK;
}

v1::BotMessage BotClient::Answer(const v1::TurnRequest& turn) {
  std::vector<Move> legal;
  legal.reserve(static_cast<size_t>(turn.legal_moves_size()));
  for (const v1::Move& move : turn.legal_moves()) legal.push_back(Move{move.id()});
  v1::BotMessage reply;
  reply.mutable_move()->set_request_id(turn.request_id());
  absl::StatusOr<Move> chosen = policy_(policy::Turn(turn.view(), legal, turn.legal_moves(), rng_));
  if (chosen.ok()) {
    reply.mutable_move()->set_move_id(chosen->id);
  } else {
    ++policy_errors_;
    spdlog::warn("{}: could not choose in match {} at move {}: {}", options_.name, turn.match_id(),
                 turn.ply(), chosen.status().ToString());
    reply.mutable_move()->set_error(chosen.status().ToString().substr(0, 1000));
  }
  return reply;
}

void BotClient::Stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  if (context_) context_->TryCancel();
  wake_.notify_all();
}

grpc::Status BotClient::PlayOnce(bool* welcomed) {
  grpc::ClientContext context;
  context.set_wait_for_ready(true);  // ride out an arena that is not up yet
  if (!options_.token.empty()) context.AddMetadata("authorization", "Bearer " + options_.token);
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return grpc::Status::CANCELLED;
    context_ = &context;
  }
  auto stream = stub_->Play(&context);
  v1::BotMessage hello;
  hello.mutable_hello()->set_name(options_.name);
  hello.mutable_hello()->set_version(options_.version);
  for (const std::string& game : options_.games) hello.mutable_hello()->add_games(game);
  v1::ArenaMessage message;
  if (stream->Write(hello)) {
    while (stream->Read(&message)) {
      if (message.has_welcome()) {
        *welcomed = true;
        spdlog::info("{}: welcomed by arena {}", options_.name, message.welcome().arena_version());
      } else if (message.has_turn()) {
        const v1::BotMessage reply = Answer(message.turn());
        ++turns_;
        if (!stream->Write(reply)) break;
      } else if (message.has_result() && on_result_) {
        on_result_(message.result());
      }
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  std::lock_guard lock(mutex_);
  context_ = nullptr;
  return status;
}

}  // namespace gavel::bots
