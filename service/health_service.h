#pragma once
// The standard grpc.health.v1 service, with a shutdown that ends Watch streams. (gRPC
// 1.51's built-in health service keeps them open until the drain deadline, so every
// client doing client-side health checking would hold a terminating pod for the whole
// grace period.)
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace gavel::service {

class HealthService final : public grpc::health::v1::Health::CallbackService {
 public:
  // Serves the overall status ("") and each of `services`, all SERVING at first.
  explicit HealthService(std::vector<std::string> services);

  void SetServing(bool serving);
  // Reports NOT_SERVING, ends every Watch stream and answers later Watch calls with one
  // NOT_SERVING message. Call before grpc::Server::Shutdown.
  void Shutdown();

  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  grpc::health::v1::HealthCheckResponse* response) override;
  grpc::ServerWriteReactor<grpc::health::v1::HealthCheckResponse>* Watch(
      grpc::CallbackServerContext* context,
      const grpc::health::v1::HealthCheckRequest* request) override;

 private:
  class Watcher;
  grpc::health::v1::HealthCheckResponse::ServingStatus StatusOf(const std::string& service) const;
  void Forget(Watcher* watcher);

  std::vector<std::string> services_;
  mutable std::mutex mutex_;
  bool serving_ = true;
  bool shut_down_ = false;
  std::set<Watcher*> watchers_;
};

// A plaintext listener with `health` alone, for probes that speak no TLS (Kubernetes' gRPC
// probes) while the service's own port serves TLS only; sets `port`.
absl::StatusOr<std::unique_ptr<grpc::Server>> StartProbeServer(const std::string& address,
                                                               HealthService* health, int* port);

}  // namespace gavel::service
