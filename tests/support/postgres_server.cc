#include "tests/support/postgres_server.h"

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace gavel::testing {
namespace {

// The newest installed server's programs, e.g. /usr/lib/postgresql/15/bin.
std::string ServerBinaries() {
  std::string found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", error))
    if (std::filesystem::exists(entry.path() / "bin" / "initdb")) found = (entry.path() / "bin").string();
  return found;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  const std::string bin = ServerBinaries();
  if (bin.empty()) return absl::NotFoundError("no PostgreSQL server installed (Debian: postgresql)");
  std::string pattern = "/tmp/gavel-postgres-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return absl::InternalError("mkdtemp failed");
  std::unique_ptr<PostgresServer> server(new PostgresServer(pattern, bin));
  if (geteuid() == 0) {
    const passwd* user = getpwnam("postgres");
    if (user == nullptr) return absl::NotFoundError("no 'postgres' user to run the server as");
    if (chown(pattern.c_str(), user->pw_uid, user->pw_gid) != 0)
      return absl::InternalError("cannot give the server its directory");
  }
  const std::string data = server->dir_ + "/data";
  if (server->Run(absl::StrCat(bin, "/initdb -D ", data, " -U postgres --auth=trust -E UTF8 --no-sync")) != 0)
    return absl::InternalError("initdb failed");
  // No TCP listener: the socket in our directory only. fsync off: a test database.
  if (server->Run(absl::StrCat(bin, "/pg_ctl -D ", data, " -l ", server->dir_, "/log -w -t 120 -o \"",
                               "-c listen_addresses='' -k ", server->dir_,
                               " -c fsync=off -c max_connections=200\" start")) != 0)
    return absl::InternalError("pg_ctl start failed; see " + server->dir_ + "/log");
  return server;
}

PostgresServer::~PostgresServer() {
  Run(absl::StrCat(bin_, "/pg_ctl -D ", dir_, "/data -m immediate -w stop"));
  std::error_code error;
  std::filesystem::remove_all(dir_, error);
}

int PostgresServer::Run(const std::string& command) const {
  const std::string as_user = geteuid() == 0 ? "runuser -u postgres -- " : "";
  return std::system((as_user + command + " >/dev/null 2>&1").c_str());
}

std::string PostgresServer::Uri(const std::string& database) const {
  return absl::StrCat("postgresql:///", database, "?host=", dir_, "&user=postgres");
}

absl::StatusOr<std::string> PostgresServer::NewDatabase(const std::string& name) {
  if (Run(absl::StrCat(bin_, "/createdb -h ", dir_, " -U postgres ", name)) != 0)
    return absl::InternalError("createdb " + name + " failed");
  return Uri(name);
}

PostgresServer* SharedPostgres() {
  // A static, so that the server is stopped when the test binary exits.
  static const std::unique_ptr<PostgresServer> server = [] {
    auto started = PostgresServer::Start();
    if (!started.ok()) std::fprintf(stderr, "postgres: %s\n", started.status().ToString().c_str());
    return started.ok() ? std::move(*started) : nullptr;
  }();
  return server.get();
}

}  // namespace gavel::testing
