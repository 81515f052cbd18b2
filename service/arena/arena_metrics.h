#pragma once
// The arena's Prometheus metrics: the engine calls it makes (ServiceMetrics' calls and
// latency families, by RPC, game and status code), matches started, in progress, finished
// and restarted, and bot faults by status. Labels are bounded: registered game names only
// (service::GameLabel), and the three fault statuses.
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gavel/v1/arena.pb.h"
#include "service/metrics.h"

namespace gavel::arena {

class ArenaMetrics {
 public:
  ArenaMetrics();
  ~ArenaMetrics();

  // Serves /metrics on `listen` (port 0 picks one); returns the port.
  absl::StatusOr<int> Serve(const std::string& listen);

  // Engine calls and match starts and ends go through here (prefix "gavel_arena").
  service::ServiceMetrics& service() { return service_; }

  void MatchStarted(absl::string_view game);
  // `finished`: the match reached its end; otherwise it was abandoned (engine failure).
  void MatchEnded(absl::string_view game, bool finished);
  void MatchRestarted(absl::string_view game);
  // A move the referee charged to a bot: TIMEOUT, INVALID or DISCONNECTED.
  void BotFault(absl::string_view game, v1::MoveStatus status);

 private:
  struct Families;
  service::ServiceMetrics service_;
  std::unique_ptr<Families> families_;
};

}  // namespace gavel::arena
