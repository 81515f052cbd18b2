#pragma once
// A real PostgreSQL server for tests: initdb and pg_ctl (Debian's `postgresql` package) in a
// temporary directory, reachable only through a Unix socket there, with trust
// authentication. Run as the `postgres` system user when the test runs as root (initdb
// refuses root). pg_ctl -w returns once the server accepts connections: readiness, not time.
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace gavel::testing {

class PostgresServer {
 public:
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start();
  ~PostgresServer();  // stops the server and removes its directory

  // A new, empty database; returns its connection URI.
  absl::StatusOr<std::string> NewDatabase(const std::string& name);
  std::string Uri(const std::string& database) const;

 private:
  explicit PostgresServer(std::string dir, std::string bin) : dir_(std::move(dir)), bin_(std::move(bin)) {}
  int Run(const std::string& command) const;  // as the server's user; the exit status
  std::string dir_;  // data in dir_/data, the socket in dir_
  std::string bin_;  // the folder of initdb, pg_ctl, createdb
};

// The shared server of a test binary, started on first use (null when it cannot start).
PostgresServer* SharedPostgres();

}  // namespace gavel::testing
