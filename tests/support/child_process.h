#pragma once
// Starts a program as a child process for end-to-end tests and waits for its readiness
// line on stdout ("listening on port N") instead of sleeping.
#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gavel::testing {

class ChildProcess {
 public:
  // Starts `argv` (argv[0] is the program path). Its stdout is read by this object.
  static absl::StatusOr<ChildProcess> Start(const std::vector<std::string>& argv);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ~ChildProcess();  // kills the child if it still runs

  // Reads stdout lines until one starts with `prefix`; returns that line. Fails if the
  // child closes stdout first or nothing arrives within `timeout_ms`.
  absl::StatusOr<std::string> WaitForLine(const std::string& prefix, int timeout_ms = 30000);
  // Waits for "listening on port N" and returns N.
  absl::StatusOr<int> WaitForPort(int timeout_ms = 30000);
  // Sends a signal; returns immediately.
  void Signal(int signal);
  // Waits for the child to exit; returns its exit code (128 + signal if killed), or an
  // error after `timeout_ms`.
  absl::StatusOr<int> Wait(int timeout_ms = 30000);
  pid_t pid() const { return pid_; }
  // Everything read from stdout so far.
  const std::string& output() const { return output_; }

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string buffer_;
  std::string output_;
};

// The directory of the running test binary (the build tree).
std::string BuildDir();

}  // namespace gavel::testing
