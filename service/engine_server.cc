#include "service/engine_server.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "engine/core/status.h"
#include "google/protobuf/arena.h"
#include "gavel/v1/engine.grpc.pb.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/resource_quota.h"
#include "service/engine_handler.h"
#include "service/grpc_status.h"
#include "service/health_service.h"
#include "service/metrics.h"
#include "spdlog/spdlog.h"

namespace gavel::service {
namespace {

// Raw (ByteBuffer) methods: the server parses requests itself, so a malformed or
// truncated request gets INVALID_ARGUMENT with a message instead of gRPC's generic code.
using RawEngine = v1::Engine::WithRawCallbackMethod_ListGames<
    v1::Engine::WithRawCallbackMethod_NewGame<v1::Engine::WithRawCallbackMethod_LegalMoves<
        v1::Engine::WithRawCallbackMethod_Apply<v1::Engine::WithRawCallbackMethod_Observe<
            v1::Engine::WithRawCallbackMethod_Resample<v1::Engine::Service>>>>>>;

// The metric label of the game a request is about (GameLabel: static storage).
absl::string_view GameLabelOf(const v1::ListGamesRequest&) { return ""; }
absl::string_view GameLabelOf(const v1::NewGameRequest& request) { return GameLabel(request.game()); }
absl::string_view GameLabelOf(const v1::SealedState& sealed) {
  auto header = ReadTokenHeader(sealed.token());
  return header.ok() ? GameLabel(header->game) : "";
}
// A request whose state is still bytes names its game only inside them: its handler reports
// the game of the state it opened (ResponseTail::game), and a state it did not open is parsed
// here for its name.
absl::string_view GameLabelOf(const StateRefWire& state) {
  if (state.has_sealed()) return GameLabelOf(state.sealed());
  v1::GameState full;
  return full.ParseFromString(state.full()) ? GameLabel(full.game()) : "";
}
absl::string_view GameLabelOf(const LegalMovesRequestWire& request) { return GameLabelOf(request.state()); }
absl::string_view GameLabelOf(const ApplyRequestWire& request) { return GameLabelOf(request.state()); }
absl::string_view GameLabelOf(const ObserveRequestWire& request) { return GameLabelOf(request.state()); }
absl::string_view GameLabelOf(const v1::ResampleRequest& request) { return GameLabel(request.view().game()); }


// The response's serialization followed by `tail`, in one slice.
absl::Status Serialize(const google::protobuf::MessageLite& response, const ResponseTail& tail,
                       grpc::ByteBuffer* out) {
  const size_t size = SizeWithTail(response, tail);
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return absl::ResourceExhaustedError("the response would exceed 2 GiB");
  grpc::Slice slice(size);
  WriteWithTail(response, tail, const_cast<uint8_t*>(slice.begin()));
  grpc::ByteBuffer buffer(&slice, 1);
  out->Swap(&buffer);
  return absl::OkStatus();
}

// The name a client knows a request's type by.
template <typename Request>
const std::string& PublicName() {
  return Request::descriptor()->full_name();
}
template <>
const std::string& PublicName<LegalMovesRequestWire>() { return v1::LegalMovesRequest::descriptor()->full_name(); }
template <>
const std::string& PublicName<ApplyRequestWire>() { return v1::ApplyRequest::descriptor()->full_name(); }
template <>
const std::string& PublicName<ObserveRequestWire>() { return v1::ObserveRequest::descriptor()->full_name(); }

// Parses `in` into `request`: straight from its bytes when gRPC hands them over in one slice
// (small requests, i.e. nearly all), else through a reader over its slices.
bool Parse(const grpc::ByteBuffer& in, google::protobuf::MessageLite* request) {
  grpc::Slice slice;
  if (in.TrySingleSlice(&slice).ok())
    return request->ParseFromArray(slice.begin(), static_cast<int>(slice.size()));
  grpc::ByteBuffer copy(in);  // the reader consumes its buffer
  grpc::ProtoBufferReader reader(&copy);
  return request->ParseFromZeroCopyStream(&reader);
}

// Parses the request, runs the handler, serializes the response, records metrics.
template <typename Request, typename Response, typename Handler>
absl::Status HandleRaw(absl::string_view rpc, const Handler& handler, const grpc::ByteBuffer& in,
                       grpc::ByteBuffer* out, ServiceMetrics* metrics) {
  const auto start = std::chrono::steady_clock::now();
  CallArena arena;
  Request& request = *google::protobuf::Arena::CreateMessage<Request>(arena.get());
  Response& response = *google::protobuf::Arena::CreateMessage<Response>(arena.get());
  ResponseTail& tail = ReusedTail();
  absl::Status status;
  if (!Parse(in, &request)) {
    status = absl::InvalidArgumentError(absl::StrCat("the request (", in.Length(),
                                                     " bytes) is not a well-formed ",
                                                     PublicName<Request>()));
  } else {
    status = handler(request, &response, &tail);
  }
  if (status.ok()) status = Serialize(response, tail, out);
  if (!status.ok()) spdlog::debug("{} refused: {}", std::string(rpc), status.ToString());
  if (metrics) {
    // The handler's report is the registered game's own name, as GameLabel would give it.
    const absl::string_view game = tail.game.empty() ? GameLabelOf(request) : tail.game;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    metrics->RecordCall(rpc, game, status.code(), elapsed.count());
    if (status.ok() && std::is_same_v<Request, v1::NewGameRequest>) metrics->GameStarted(game);
    if (status.ok() && tail.finished) metrics->GameFinished(game);
  }
  return status;
}

// Each RPC runs its handler inline on gRPC's callback thread: the work is short and
// CPU-bound, so a thread hop would cost more than it saves.
class EngineService final : public RawEngine {
 public:
  EngineService(ServiceMetrics* metrics, const Sealer* sealer, StateCache* states)
      : metrics_(metrics), sealer_(sealer), states_(states) {}

 private:
  // Every handler is called as (request, response, tail): those that take a state get the
  // sealer and the state cache, those that list moves the tail.
  template <typename Request, typename Response>
  auto Bind(absl::Status (*handler)(const Request&, Response*)) const {
    return [handler](const Request& request, Response* response, ResponseTail*) {
      return handler(request, response);
    };
  }
  template <typename Request, typename Response>
  auto Bind(absl::Status (*handler)(const Request&, Response*, const Sealer*, StateCache*)) const {
    return [handler, sealer = sealer_, states = states_](const Request& request, Response* response,
                                                         ResponseTail*) {
      return handler(request, response, sealer, states);
    };
  }
  template <typename Request, typename Response>
  auto Bind(absl::Status (*handler)(const Request&, Response*, const Sealer*, ResponseTail*, StateCache*)) const {
    return [handler, sealer = sealer_, states = states_](const Request& request, Response* response,
                                                         ResponseTail* tail) {
      return handler(request, response, sealer, tail, states);
    };
  }

  template <typename Request, typename Response, typename Handler>
  grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* context, absl::string_view rpc,
                                const Handler& handler, const grpc::ByteBuffer* in,
                                grpc::ByteBuffer* out) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(ToGrpcStatus(HandleRaw<Request, Response>(rpc, handler, *in, out, metrics_)));
    return reactor;
  }

// LegalMoves, Apply and Observe read their requests with the state as bytes
// (gavel/service/wire_requests.proto), for the state cache to find it without a parse.
#define GAVEL_RAW_METHOD(Name, Request)                                                   \
  grpc::ServerUnaryReactor* Name(grpc::CallbackServerContext* context,                  \
                                 const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override { \
    return Run<Request, v1::Name##Response>(context, #Name,                              \
                                            Bind<Request, v1::Name##Response>(&service::Name), in, out); \
  }
  GAVEL_RAW_METHOD(ListGames, v1::ListGamesRequest)
  GAVEL_RAW_METHOD(NewGame, v1::NewGameRequest)
  GAVEL_RAW_METHOD(LegalMoves, LegalMovesRequestWire)
  GAVEL_RAW_METHOD(Apply, ApplyRequestWire)
  GAVEL_RAW_METHOD(Observe, ObserveRequestWire)
  GAVEL_RAW_METHOD(Resample, v1::ResampleRequest)
#undef GAVEL_RAW_METHOD

  ServiceMetrics* metrics_;
  const Sealer* sealer_;
  StateCache* states_;
};

}  // namespace

struct EngineServer::Impl {
  Impl(ServiceMetrics* metrics, const Sealer* sealer, StateCache* states)
      : service(metrics, sealer, states), health({"gavel.v1.Engine"}), probe_health({"gavel.v1.Engine"}) {}
  EngineService service;
  HealthService health;
  HealthService probe_health;  // the same status on the plaintext probe listener
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<grpc::Server> probe_server;
};

absl::StatusOr<std::unique_ptr<EngineServer>> EngineServer::Start(
    const EngineServerOptions& options) {
  grpc::EnableDefaultHealthCheckService(false);
  if (options.reflection) grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::unique_ptr<EngineServer> server(new EngineServer());
  server->impl_ = std::make_unique<Impl>(options.metrics, options.sealer, options.states);
  GAVEL_ASSIGN_OR_RETURN(auto credentials, ListenerCredentials(options.listen, options.tls));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, credentials, &server->port_);
  builder.RegisterService(&server->impl_->service);
  builder.RegisterService(&server->impl_->health);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_concurrent_streams);
  if (options.max_connection_age_ms > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, options.max_connection_age_ms);
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               options.max_connection_age_grace_ms);
  }
  if (options.max_threads > 0 || options.max_memory_mb > 0) {
    grpc::ResourceQuota quota("gavel-engine");
    if (options.max_threads > 0) quota.SetMaxThreads(options.max_threads);
    if (options.max_memory_mb > 0) quota.Resize(static_cast<size_t>(options.max_memory_mb) << 20);
    builder.SetResourceQuota(quota);
  }
  server->impl_->server = builder.BuildAndStart();
  if (!server->impl_->server || server->port_ == 0)
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen));
  if (!options.health_listen.empty()) {
    GAVEL_ASSIGN_OR_RETURN(server->impl_->probe_server,
                           StartProbeServer(options.health_listen, &server->impl_->probe_health,
                                            &server->health_port_));
  }
  return server;
}

EngineServer::~EngineServer() {
  if (impl_ && impl_->server) Shutdown(std::chrono::system_clock::now());
}

void EngineServer::SetNotServing() {
  impl_->health.SetServing(false);
  impl_->probe_health.SetServing(false);
}

void EngineServer::Shutdown(std::chrono::system_clock::time_point deadline) {
  if (!impl_->server) return;
  impl_->health.Shutdown();  // NOT_SERVING, and Watch streams end instead of holding the drain
  impl_->probe_health.Shutdown();
  impl_->server->Shutdown(deadline);
  impl_->server->Wait();
  impl_->server.reset();
  if (impl_->probe_server) {
    impl_->probe_server->Shutdown(deadline);
    impl_->probe_server->Wait();
    impl_->probe_server.reset();
  }
}

}  // namespace gavel::service
