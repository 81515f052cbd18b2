#include "tests/support/child_process.h"

#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace gavel::testing {

absl::StatusOr<ChildProcess> ChildProcess::Start(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError("pipe failed");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // A test or bench that crashes must not leave its servers running (they would hold the
    // runner's output pipe open). Children are started from the main thread only: the
    // signal follows the thread that forked.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before the line above
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  ChildProcess child;
  child.pid_ = pid;
  child.stdout_fd_ = fds[0];
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  std::swap(pid_, other.pid_);
  std::swap(stdout_fd_, other.stdout_fd_);
  std::swap(buffer_, other.buffer_);
  std::swap(output_, other.output_);
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

absl::StatusOr<std::string> ChildProcess::WaitForLine(const std::string& prefix, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    for (size_t newline; (newline = buffer_.find('\n')) != std::string::npos;) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (line.rfind(prefix, 0) == 0) return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return absl::DeadlineExceededError(absl::StrCat("no line '", prefix, "'"));
    pollfd poll_fd{stdout_fd_, POLLIN, 0};
    if (poll(&poll_fd, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    const ssize_t n = read(stdout_fd_, chunk, sizeof chunk);
    if (n <= 0) return absl::UnavailableError(absl::StrCat("the child closed stdout before '", prefix, "'"));
    buffer_.append(chunk, static_cast<size_t>(n));
    output_.append(chunk, static_cast<size_t>(n));
  }
}

absl::StatusOr<int> ChildProcess::WaitForPort(int timeout_ms) {
  auto line = WaitForLine("listening on port ", timeout_ms);
  if (!line.ok()) return line.status();
  return std::atoi(line->c_str() + std::string("listening on port ").size());
}

void ChildProcess::Signal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

absl::StatusOr<int> ChildProcess::Wait(int timeout_ms) {
  // A pidfd becomes readable when the child exits: poll it with the timeout.
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd >= 0) {
    pollfd poll_fd{pidfd, POLLIN, 0};
    const int ready = poll(&poll_fd, 1, timeout_ms);
    close(pidfd);
    if (ready <= 0) return absl::DeadlineExceededError("the child did not exit in time");
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

std::string BuildDir() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  path[n] = '\0';
  std::string dir(path);
  return dir.substr(0, dir.rfind('/'));
}

}  // namespace gavel::testing
