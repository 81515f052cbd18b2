#include "service/arena/engine_backend.h"

#include <chrono>

#include "gavel/v1/engine.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "service/engine_client.h"
#include "service/engine_handler.h"
#include "service/grpc_status.h"
#include "service/metrics.h"

namespace gavel::arena {
namespace {

// The engine's handlers in this process, with the engine server's state cache: each match's
// next call finds the state its last one wrote.
class InProcessEngine final : public EngineBackend {
 public:
  absl::Status NewGame(const v1::NewGameRequest& request, v1::NewGameResponse* response) override {
    return service::NewGame(request, response, nullptr, nullptr, &states_);
  }
  absl::Status LegalMoves(const v1::LegalMovesRequest& request,
                          v1::LegalMovesResponse* response) override {
    return service::LegalMoves(request, response, nullptr, nullptr, &states_);
  }
  absl::Status Apply(const v1::ApplyRequest& request, v1::ApplyResponse* response) override {
    return service::Apply(request, response, nullptr, nullptr, &states_);
  }
  absl::Status Observe(const v1::ObserveRequest& request, v1::ObserveResponse* response) override {
    return service::Observe(request, response, nullptr, &states_);
  }

 private:
  service::StateCache states_{4096};
};

// The engine channel retries UNAVAILABLE (every Engine call is a pure function) and
// spreads calls over replicas; waiting for the channel to become ready rides out an
// engine that is restarting, within the deadline.
class RemoteEngine final : public EngineBackend {
 public:
  RemoteEngine(const std::string& target, service::ServiceMetrics* metrics,
               std::shared_ptr<grpc::ChannelCredentials> credentials)
      : stub_(v1::Engine::NewStub(service::MakeEngineChannel(target, 4 << 20, std::move(credentials)))),
        metrics_(metrics) {}

  absl::Status NewGame(const v1::NewGameRequest& request, v1::NewGameResponse* response) override {
    return Call("NewGame", request.game(), &v1::Engine::Stub::NewGame, request, response);
  }
  absl::Status LegalMoves(const v1::LegalMovesRequest& request,
                          v1::LegalMovesResponse* response) override {
    return Call("LegalMoves", request.state().full().game(), &v1::Engine::Stub::LegalMoves,
                request, response);
  }
  absl::Status Apply(const v1::ApplyRequest& request, v1::ApplyResponse* response) override {
    return Call("Apply", request.state().full().game(), &v1::Engine::Stub::Apply, request, response);
  }
  absl::Status Observe(const v1::ObserveRequest& request, v1::ObserveResponse* response) override {
    return Call("Observe", request.state().full().game(), &v1::Engine::Stub::Observe, request,
                response);
  }

 private:
  template <typename Request, typename Response>
  absl::Status Call(const char* rpc, const std::string& game,
                    grpc::Status (v1::Engine::Stub::*method)(grpc::ClientContext*, const Request&,
                                                              Response*),
                    const Request& request, Response* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    context.set_wait_for_ready(true);
    const auto start = std::chrono::steady_clock::now();
    absl::Status status = service::ToAbslStatus(((*stub_).*method)(&context, request, response));
    if (metrics_) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      metrics_->RecordCall(rpc, service::GameLabel(game), status.code(), elapsed.count());
    }
    return status;
  }

  std::unique_ptr<v1::Engine::Stub> stub_;
  service::ServiceMetrics* metrics_;
};

}  // namespace

std::unique_ptr<EngineBackend> MakeEngineBackend(
    const std::string& target, service::ServiceMetrics* metrics,
    std::shared_ptr<grpc::ChannelCredentials> credentials) {
  if (target == "inprocess") return std::make_unique<InProcessEngine>();
  return std::make_unique<RemoteEngine>(target, metrics, std::move(credentials));
}

}  // namespace gavel::arena
