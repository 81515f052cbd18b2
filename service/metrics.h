#pragma once
// Prometheus metrics for a gRPC service: calls and errors by status code, latency
// histograms per RPC and game. Served in the Prometheus text format over HTTP.
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace prometheus {
class Registry;
}

namespace gavel::service {

class ServiceMetrics {
 public:
  // Metric names start with `prefix` (e.g. "gavel_engine").
  explicit ServiceMetrics(const std::string& prefix);
  ~ServiceMetrics();

  // Serves /metrics on `listen` ("0.0.0.0:9090"; port 0 picks one); returns the port.
  absl::StatusOr<int> Serve(const std::string& listen);

  // One finished call. `game` must be a known game name or empty: labels stay bounded
  // whatever clients send.
  void RecordCall(absl::string_view rpc, absl::string_view game, absl::StatusCode code,
                  double seconds);
  void GameStarted(absl::string_view game);
  void GameFinished(absl::string_view game);

  prometheus::Registry& registry();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `name` if it is a registered game, otherwise "other" (keeps metric labels bounded); the
// view is of static storage, so it outlives `name`.
absl::string_view GameLabel(absl::string_view name);

}  // namespace gavel::service
