#pragma once
// SIGTERM and SIGINT taken synchronously by the main thread of every gavel program: block
// them before any other thread starts (threads inherit the mask), then wait for one.
#include <csignal>
#include <ctime>

namespace gavel::service {

class TerminationSignals {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread and the threads it starts later.
  TerminationSignals() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGTERM);
    sigaddset(&signals_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  }

  // Waits for one of them; returns its number.
  int Wait() const {
    int received = 0;
    sigwait(&signals_, &received);
    return received;
  }

  // Waits up to `seconds`; returns the signal's number, or 0 when the time ran out.
  int WaitFor(double seconds) const {
    timespec wait{static_cast<time_t>(seconds),
                  static_cast<long>((seconds - static_cast<time_t>(seconds)) * 1e9)};
    const int received = sigtimedwait(&signals_, nullptr, &wait);
    return received > 0 ? received : 0;
  }

 private:
  sigset_t signals_;
};

}  // namespace gavel::service
