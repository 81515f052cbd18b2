#pragma once
// How the arena advances games: through the engine service over gRPC (scales with engine
// replicas) or the engine library in-process. Both take and return the Engine API's
// messages, so the referee runs the same code either way.
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gavel/v1/engine.pb.h"
#include "grpcpp/security/credentials.h"

namespace gavel::service {
class ServiceMetrics;
}

namespace gavel::arena {

class EngineBackend {
 public:
  virtual ~EngineBackend() = default;
  virtual absl::Status NewGame(const v1::NewGameRequest& request, v1::NewGameResponse* response) = 0;
  virtual absl::Status LegalMoves(const v1::LegalMovesRequest& request,
                                  v1::LegalMovesResponse* response) = 0;
  virtual absl::Status Apply(const v1::ApplyRequest& request, v1::ApplyResponse* response) = 0;
  virtual absl::Status Observe(const v1::ObserveRequest& request, v1::ObserveResponse* response) = 0;
};

// `target`: "inprocess" for the engine library, else a gRPC target of engine servers
// (e.g. "127.0.0.1:50051" or "dns:///gavel-engine:50051"). With `metrics`, every call to
// the engine service is recorded (RPC, game, final status code, latency); in-process calls
// are not. `credentials`: the channel's (plaintext when null).
std::unique_ptr<EngineBackend> MakeEngineBackend(
    const std::string& target, service::ServiceMetrics* metrics = nullptr,
    std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);

}  // namespace gavel::arena
