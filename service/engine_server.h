#pragma once
// The engine server: the Engine service, the standard health service and (optionally)
// server reflection on one gRPC server.
#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/server.h"
#include "service/tls.h"

namespace gavel::service {

class ServiceMetrics;
class Sealer;
class StateCache;

struct EngineServerOptions {
  std::string listen = "0.0.0.0:50051";
  int max_message_bytes = 1 << 20;       // larger requests get RESOURCE_EXHAUSTED
  int max_concurrent_streams = 256;      // per connection
  int max_threads = 0;                   // 0: gRPC's default
  int max_memory_mb = 0;                 // 0: unlimited; else gRPC's memory quota
  bool reflection = false;
  int max_connection_age_ms = 0;         // 0: unlimited; else clients re-resolve after it
  int max_connection_age_grace_ms = 10000;
  ServiceMetrics* metrics = nullptr;     // records every call when set; not owned
  const Sealer* sealer = nullptr;        // serves sealed tables when set; not owned
  StateCache* states = nullptr;          // decoded states found again by their bytes; not owned
  ServerTls tls;                         // plaintext only on loopback unless tls.insecure
  // A second, plaintext listener with only grpc.health.v1, for probes that cannot speak TLS
  // (Kubernetes' gRPC probes); empty: none. It tells nothing but serving or not.
  std::string health_listen;
};

class EngineServer {
 public:
  // Starts serving; returns the bound port (useful with port 0).
  static absl::StatusOr<std::unique_ptr<EngineServer>> Start(const EngineServerOptions& options);
  ~EngineServer();

  int port() const { return port_; }
  int health_port() const { return health_port_; }
  // Reports NOT_SERVING on the health service (new work should go elsewhere).
  void SetNotServing();
  // Stops accepting calls, lets calls in flight finish until `deadline`, then cancels
  // the rest; returns when the server has stopped.
  void Shutdown(std::chrono::system_clock::time_point deadline);

 private:
  EngineServer() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  int health_port_ = 0;
};

}  // namespace gavel::service
