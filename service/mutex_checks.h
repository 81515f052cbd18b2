#pragma once
// Debian builds Abseil without NDEBUG, which leaves absl::Mutex's deadlock detection on in
// every program: each lock and unlock, gRPC's own included, updates a process-wide graph of
// lock order, and each destroyed mutex is taken out of it. Under load that was about 3% of the
// engine server's CPU (docs/performance.md). The servers turn it off at start; the tests keep
// it, which is where a lock-order cycle should be found.
#include "absl/synchronization/mutex.h"

namespace gavel::service {

inline void TurnOffMutexDeadlockDetection() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace gavel::service
