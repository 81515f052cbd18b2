#pragma once
// The arena's pages and their JSON (--http_listen): the leaderboard per game (per tournament
// and overall), tournaments and matches, and a replay viewer that steps through any stored
// or running match with each game's board drawn from the public information. Served by
// cpp-httplib, over TLS with the arena's certificate when it has one (civetweb, which
// prometheus-cpp brings, cannot: Debian 12's build looks for OpenSSL 1.1 functions that
// OpenSSL 3 no longer has); the pages are plain HTML, CSS and JavaScript compiled into the
// binary (service/arena/web/), the data under /api/... as the JSON of gavel.v1.Web* messages
// (proto/gavel/v1/arena_web.proto).
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "gavel/v1/arena_web.pb.h"
#include "service/arena/live_matches.h"
#include "service/arena/store.h"
#include "service/tls.h"

namespace httplib {
class Server;
}

namespace gavel::arena {

class CertificateReloader;

struct WebOptions {
  // Finished matches show every seat's view too (hands included). Off by default: the
  // pages then show only what no seat holds privately, during and after a match.
  bool reveal_finished = false;
  int threads = 4;
  int max_queued_connections = 64;  // beyond them the listener waits: the kernel's backlog fills
  // HTTPS with tls.cert_file and tls.key_file (re-read every tls.refresh_s when they change);
  // plain HTTP only on a loopback address or with tls.insecure.
  service::ServerTls tls;
};

struct MatchFilter {
  std::string game, bot;
  int64_t tournament_id = 0;
  size_t limit = 200;
};

// The data behind the pages, without HTTP (the server and the tests use it).
class WebData {
 public:
  WebData(Store* store, const LiveMatches* live, WebOptions options)
      : store_(store), live_(live), options_(options) {}
  absl::StatusOr<v1::WebStandings> Standings(int64_t tournament_id);
  absl::StatusOr<v1::WebTournaments> Tournaments();
  absl::StatusOr<v1::WebMatches> Matches(const MatchFilter& filter);
  // A stored or running match, step by step, re-derived and verified (views left out).
  absl::StatusOr<v1::WebReplay> Replay(int64_t id);
  // One step with its views: the spectator's, and every seat's when revealed.
  absl::StatusOr<v1::WebStep> Step(int64_t id, int step);

 private:
  Store* store_;
  const LiveMatches* live_;
  // The match as stored, or as far as it is played.
  absl::StatusOr<std::pair<MatchRecord, bool>> Load(int64_t id);  // bool: live
  // Whether the pages show `match` whole: its moves, seed and every seat's view.
  bool Revealed(const MatchRecord& match) const { return options_.reveal_finished && match.finished; }
  const WebOptions options_;
};

class WebServer {
 public:
  // Listens on `address` ("host:port", port 0 picks one).
  static absl::StatusOr<std::unique_ptr<WebServer>> Start(const std::string& address, Store* store,
                                                           const LiveMatches* live, WebOptions options);
  ~WebServer();
  int port() const { return port_; }
  // "https" or "http".
  const char* scheme() const { return https_ ? "https" : "http"; }

 private:
  class Routes;
  WebServer() = default;
  std::unique_ptr<WebData> data_;
  std::unique_ptr<CertificateReloader> certificates_;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
  int port_ = 0;
  bool https_ = false;
};

}  // namespace gavel::arena
