#include "service/engine_server.h"

#include "absl/strings/str_cat.h"
#include "gavel/v1/engine.grpc.pb.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "service/engine_handler.h"
#include "service/grpc_status.h"

namespace gavel::service {
namespace {

// Raw (ByteBuffer) methods: the server parses requests itself, so a malformed or
// truncated request gets INVALID_ARGUMENT with a message instead of gRPC's generic code.
using RawEngine = v1::Engine::WithRawCallbackMethod_ListGames<
    v1::Engine::WithRawCallbackMethod_NewGame<v1::Engine::WithRawCallbackMethod_LegalMoves<
        v1::Engine::WithRawCallbackMethod_Apply<v1::Engine::WithRawCallbackMethod_Observe<
            v1::Engine::WithRawCallbackMethod_Resample<v1::Engine::Service>>>>>>;

template <typename Request, typename Response>
absl::Status HandleRaw(absl::Status (*handler)(const Request&, Response*),
                       const grpc::ByteBuffer& in, grpc::ByteBuffer* out) {
  Request request;
  grpc::ByteBuffer copy(in);  // the reader consumes its buffer
  if (!grpc::GenericDeserialize<grpc::ProtoBufferReader, Request>(&copy, &request).ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the request (", in.Length(),
                                                   " bytes) is not a well-formed ",
                                                   Request::descriptor()->full_name()));
  }
  Response response;
  if (absl::Status status = handler(request, &response); !status.ok()) return status;
  bool own_buffer = false;
  return ToAbslStatus(
      grpc::GenericSerialize<grpc::ProtoBufferWriter, Response>(response, out, &own_buffer));
}

// Each RPC runs its handler inline on gRPC's callback thread: the work is short and
// CPU-bound, so a thread hop would cost more than it saves.
class EngineService final : public RawEngine {
  template <typename Request, typename Response>
  static grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* context,
                                       absl::Status (*handler)(const Request&, Response*),
                                       const grpc::ByteBuffer* in, grpc::ByteBuffer* out) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(ToGrpcStatus(HandleRaw(handler, *in, out)));
    return reactor;
  }

#define GAVEL_RAW_METHOD(Name)                                                           \
  grpc::ServerUnaryReactor* Name(grpc::CallbackServerContext* context,                  \
                                 const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override { \
    return Run(context, &service::Name, in, out);                                       \
  }
  GAVEL_RAW_METHOD(ListGames)
  GAVEL_RAW_METHOD(NewGame)
  GAVEL_RAW_METHOD(LegalMoves)
  GAVEL_RAW_METHOD(Apply)
  GAVEL_RAW_METHOD(Observe)
  GAVEL_RAW_METHOD(Resample)
#undef GAVEL_RAW_METHOD
};

}  // namespace

struct EngineServer::Impl {
  EngineService service;
  std::unique_ptr<grpc::Server> server;
};

absl::StatusOr<std::unique_ptr<EngineServer>> EngineServer::Start(
    const EngineServerOptions& options) {
  grpc::EnableDefaultHealthCheckService(true);
  if (options.reflection) grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::unique_ptr<EngineServer> server(new EngineServer());
  server->impl_ = std::make_unique<Impl>();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &server->port_);
  builder.RegisterService(&server->impl_->service);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_concurrent_streams);
  if (options.max_connection_age_ms > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, options.max_connection_age_ms);
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               options.max_connection_age_grace_ms);
  }
  if (options.max_threads > 0) {
    grpc::ResourceQuota quota("gavel-engine");
    quota.SetMaxThreads(options.max_threads);
    builder.SetResourceQuota(quota);
  }
  server->impl_->server = builder.BuildAndStart();
  if (!server->impl_->server || server->port_ == 0)
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen));
  return server;
}

EngineServer::~EngineServer() {
  if (impl_ && impl_->server) Shutdown(std::chrono::system_clock::now());
}

void EngineServer::SetNotServing() {
  if (auto* health = impl_->server->GetHealthCheckService()) health->SetServingStatus(false);
}

void EngineServer::Shutdown(std::chrono::system_clock::time_point deadline) {
  if (!impl_->server) return;
  SetNotServing();
  // Ends the health Watch streams, which would otherwise hold the drain to its deadline.
  if (auto* health = impl_->server->GetHealthCheckService()) health->Shutdown();
  impl_->server->Shutdown(deadline);
  impl_->server->Wait();
  impl_->server.reset();
}

}  // namespace gavel::service
