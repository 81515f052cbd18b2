#include "service/arena/web_server.h"

#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/core/status.h"
#include "google/protobuf/util/json_util.h"
#include "service/arena/ratings.h"
#include "service/arena/replay.h"
#include "service/arena/web_assets.h"
#include "service/arena/web_tls.h"

namespace gavel::arena {
namespace {

// A match's seed gives away every hidden card of it: shown only with `revealed`.
v1::WebMatch MatchOf(const MatchRecord& match, bool live, bool revealed) {
  v1::WebMatch out;
  out.set_id(match.id);
  out.set_tournament_id(match.tournament_id);
  out.set_game(match.game);
  out.set_players(match.players);
  if (revealed) out.set_seed(match.seed);
  for (const std::string& bot : match.bots) out.add_bots(bot);
  for (double score : match.scores) out.add_scores(score);
  for (int rank : match.ranks) out.add_ranks(rank);
  for (int strikes : match.strikes) out.add_strikes(strikes);
  out.set_finished(match.finished);
  out.set_live(live);
  out.set_moves(static_cast<int>(match.moves.size()));
  return out;
}

bool Passes(const MatchRecord& match, const MatchFilter& filter) {
  return (filter.game.empty() || match.game == filter.game) &&
         (filter.bot.empty() || std::count(match.bots.begin(), match.bots.end(), filter.bot) > 0);
}

// The events a spectator may see.
void AddPublicEvents(const ReplayStep& step, v1::WebStep* out) {
  for (const auto& [audience, text] : step.events)
    if (SpectatorSees(audience)) out->add_events(text);
}

}  // namespace

absl::StatusOr<v1::WebStandings> WebData::Standings(int64_t tournament_id) {
  GAVEL_ASSIGN_OR_RETURN(std::vector<int64_t> ids, store_->FinishedMatches(tournament_id));
  GAVEL_ASSIGN_OR_RETURN(auto ratings, store_->LoadRatings());
  std::vector<MatchRecord> matches;
  for (int64_t id : ids) {
    GAVEL_ASSIGN_OR_RETURN(MatchRecord match, store_->LoadMatch(id));
    matches.push_back(std::move(match));
  }
  v1::WebStandings out;
  out.set_tournament_id(tournament_id);
  out.set_matches(static_cast<int>(matches.size()));
  for (const auto& [game, rows] : ComputeStandings(matches, ratings)) {
    v1::WebGameStandings* table = out.add_games();
    table->set_game(game);
    for (const Standing& row : rows) {
      v1::WebStanding* line = table->add_rows();
      line->set_bot(row.bot);
      line->set_games(row.games);
      line->set_win_rate(row.win_rate);
      line->set_win_low(row.win_low);
      line->set_win_high(row.win_high);
      line->set_mean_score(row.mean_score);
      line->set_score_half_width(row.score_half_width);
      line->set_mu(row.rating.mu);
      line->set_sigma(row.rating.sigma);
      line->set_conservative(row.rating.conservative());
      line->set_strikes(row.strikes);
    }
  }
  return out;
}

absl::StatusOr<v1::WebTournaments> WebData::Tournaments() {
  GAVEL_ASSIGN_OR_RETURN(std::vector<int64_t> ids, store_->Tournaments());
  v1::WebTournaments out;
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    GAVEL_ASSIGN_OR_RETURN(std::vector<int64_t> matches, store_->FinishedMatches(*it));
    v1::WebTournament* tournament = out.add_tournaments();
    tournament->set_id(*it);
    tournament->set_matches(static_cast<int>(matches.size()));
  }
  return out;
}

absl::StatusOr<v1::WebMatches> WebData::Matches(const MatchFilter& filter) {
  v1::WebMatches out;
  if (live_ != nullptr)
    for (const MatchRecord& match : live_->Summaries())
      if (Passes(match, filter) && (filter.tournament_id == 0 || match.tournament_id == filter.tournament_id)) {
        v1::WebMatch* shown = out.add_matches();
        *shown = MatchOf(match, true, false);
        shown->set_moves(static_cast<int>(live_->MovesOf(match.id)));
      }
  GAVEL_ASSIGN_OR_RETURN(std::vector<int64_t> ids, store_->FinishedMatches(filter.tournament_id));
  for (auto it = ids.rbegin(); it != ids.rend() && static_cast<size_t>(out.matches_size()) < filter.limit; ++it) {
    GAVEL_ASSIGN_OR_RETURN(MatchRecord match, store_->LoadMatch(*it));
    if (Passes(match, filter)) *out.add_matches() = MatchOf(match, false, Revealed(match));
  }
  return out;
}

absl::StatusOr<std::pair<MatchRecord, bool>> WebData::Load(int64_t id) {
  if (std::optional<MatchRecord> running = live_ ? live_->Find(id) : std::nullopt)
    return std::make_pair(std::move(*running), true);
  GAVEL_ASSIGN_OR_RETURN(MatchRecord match, store_->LoadMatch(id));
  if (!match.finished) return absl::NotFoundError(absl::StrCat("match ", id, " was abandoned"));
  return std::make_pair(std::move(match), false);
}

absl::StatusOr<v1::WebReplay> WebData::Replay(int64_t id) {
  GAVEL_ASSIGN_OR_RETURN(auto loaded, Load(id));
  const auto& [match, live] = loaded;
  v1::WebReplay out;
  const bool reveal = Revealed(match);
  *out.mutable_match() = MatchOf(match, live, reveal);
  out.set_revealed(reveal);
  GAVEL_RETURN_IF_ERROR(WalkReplay(match, [&](const ReplayStep& step) {
    v1::WebStep* shown = out.add_steps();
    shown->set_ply(step.ply);
    shown->set_seat(step.record ? step.record->seat : -1);
    if (step.record) shown->set_status(v1::MoveStatus_Name(step.record->status));
    AddPublicEvents(step, shown);
    // A move's text may name what only its mover knows (a face-down bid's card), and some
    // games keep the scores hidden during play: unrevealed, the public events tell the move
    // and the scores come at the end, as a seat's status gives them.
    if (reveal) shown->set_move(step.move_text);
    if (reveal || step.state->finished())
      for (double score : step.state->outcome().scores) shown->add_scores(score);
  }));
  return out;
}

absl::StatusOr<v1::WebStep> WebData::Step(int64_t id, int step) {
  GAVEL_ASSIGN_OR_RETURN(auto loaded, Load(id));
  const MatchRecord& match = loaded.first;
  if (step < 0 || step > static_cast<int>(match.moves.size()))
    return absl::NotFoundError(absl::StrCat("match ", id, " has steps 0 to ", match.moves.size()));
  const bool reveal = Revealed(match);
  v1::WebStep out;
  GAVEL_RETURN_IF_ERROR(WalkReplay(match, [&](const ReplayStep& walked) {
    if (walked.ply != step) return;
    out.set_ply(step);
    walked.state->ObserveAsSpectator(out.mutable_view());
    if (reveal)
      for (Seat seat = 0; seat < walked.state->seats(); ++seat) walked.state->Observe(seat, out.add_seat_views());
  }));
  return out;
}

namespace {

// Connections wait for a worker in a queue of bounded length; when it is full the listener
// stops accepting until a worker frees up, so a flood of connections waits in the kernel's
// backlog instead of in the arena's memory.
class BoundedWorkers final : public httplib::TaskQueue {
 public:
  BoundedWorkers(int threads, int max_queued) : max_queued_(static_cast<size_t>(max_queued)) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~BoundedWorkers() override { shutdown(); }

  void enqueue(std::function<void()> task) override {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return stopping_ || queue_.size() < max_queued_; });
    if (stopping_) return;
    queue_.push_back(std::move(task));
    work_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      if (stopping_ && workers_.empty()) return;
      stopping_ = true;
    }
    work_.notify_all();
    room_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left to serve
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      room_.notify_one();
      task();
    }
  }

  const size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable work_, room_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// "host:port" or "[v6]:port".
absl::StatusOr<std::pair<std::string, int>> HostAndPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535)
    return absl::InvalidArgumentError(absl::StrCat("expected host:port for the pages, not '", address, "'"));
  return std::make_pair(std::string(service::HostOf(address)), port);
}

}  // namespace

// Routes: the pages (/, /matches, /match), their files (/static/...), and /api/...
class WebServer::Routes {
 public:
  explicit Routes(WebData* data) : data_(data) {}

  void Get(const httplib::Request& request, httplib::Response& response) const {
    const std::string& path = request.path;
    if (absl::StartsWith(path, "/api/")) return Api(request, response);
    const WebAsset* asset = FindWebAsset(path == "/" ? "/index.html" : path);
    if (asset == nullptr) return Send(response, 404, "text/plain", "not found\n");
    Send(response, 200, asset->content_type, std::string(asset->content));
  }

 private:
  static int64_t IdParam(const std::string& text) {
    int64_t id = 0;
    return absl::SimpleAtoi(text, &id) && id > 0 ? id : 0;
  }

  void Api(const httplib::Request& request, httplib::Response& response) const {
    const std::string& path = request.path;
    auto param = [&](const char* name) { return request.get_param_value(name); };
    if (path == "/api/standings") return Json(response, data_->Standings(IdParam(param("tournament"))));
    if (path == "/api/tournaments") return Json(response, data_->Tournaments());
    if (path == "/api/matches") {
      MatchFilter filter{param("game"), param("bot"), IdParam(param("tournament"))};
      return Json(response, data_->Matches(filter));
    }
    if (absl::StartsWith(path, "/api/match/")) {  // /api/match/ID or /api/match/ID/step/N
      const std::vector<std::string> parts = absl::StrSplit(path.substr(std::string("/api/match/").size()), '/');
      const int64_t id = IdParam(parts[0]);
      int64_t step = -1;
      if (id == 0 || (parts.size() != 1 && (parts.size() != 3 || parts[1] != "step" ||
                                            !absl::SimpleAtoi(parts[2], &step) || step < 0 || step > (1 << 30))))
        return Send(response, 400, "text/plain", "expected /api/match/ID or /api/match/ID/step/N\n");
      if (parts.size() == 1) return Json(response, data_->Replay(id));
      return Json(response, data_->Step(id, static_cast<int>(step)));
    }
    Send(response, 404, "text/plain", "no such API\n");
  }

  template <typename Message>
  static void Json(httplib::Response& response, const absl::StatusOr<Message>& message) {
    if (!message.ok()) {
      const int code = absl::IsNotFound(message.status()) ? 404 : 500;
      return Send(response, code, "text/plain", std::string(message.status().message()) + "\n");
    }
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(*message, &json, options).ok())
      return Send(response, 500, "text/plain", "cannot encode the answer\n");
    Send(response, 200, "application/json", json);
  }

  static void Send(httplib::Response& response, int code, const std::string& type, std::string body) {
    response.status = code;
    response.set_header("Cache-Control", "no-store");
    response.set_header("X-Content-Type-Options", "nosniff");
    response.set_header("Content-Security-Policy",
                        "default-src 'self'; style-src 'self'; img-src 'self' data:");
    response.set_content(std::move(body), type + "; charset=utf-8");
  }

  WebData* data_;
};

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(const std::string& address, Store* store,
                                                            const LiveMatches* live, WebOptions options) {
  GAVEL_ASSIGN_OR_RETURN(const auto host_port, HostAndPort(address));
  std::unique_ptr<WebServer> server(new WebServer());
  const service::ServerTls& tls = options.tls;
  if (!tls.cert_file.empty() || !tls.key_file.empty()) {
    GAVEL_ASSIGN_OR_RETURN(server->certificates_,
                           CertificateReloader::Load(tls.cert_file, tls.key_file,
                                                     std::chrono::seconds(std::max(1, tls.refresh_s))));
    CertificateReloader* certificates = server->certificates_.get();
    server->server_ = std::make_unique<httplib::SSLServer>([certificates](SSL_CTX& context) {
      certificates->Install(context);
      return true;
    });
    server->https_ = true;
  } else if (!service::IsLoopback(address) && !tls.insecure) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the pages on ", address, " would be plain HTTP: give the arena --tls_cert and --tls_key, "
        "or --insecure when TLS ends in front of it"));
  } else {
    server->server_ = std::make_unique<httplib::Server>();
  }
  server->data_ = std::make_unique<WebData>(store, live, options);
  httplib::Server& http = *server->server_;
  const int threads = std::max(1, options.threads), queued = std::max(1, options.max_queued_connections);
  http.new_task_queue = [threads, queued] { return new BoundedWorkers(threads, queued); };
  http.set_read_timeout(std::chrono::seconds(10));
  http.set_write_timeout(std::chrono::seconds(10));
  http.set_keep_alive_max_count(20);
  http.set_payload_max_length(64 << 10);  // the pages take no uploads
  auto routes = std::make_shared<Routes>(server->data_.get());
  http.Get(".*", [routes](const httplib::Request& request, httplib::Response& response) {
    routes->Get(request, response);
  });
  server->port_ = host_port.second == 0 ? http.bind_to_any_port(host_port.first)
                                        : (http.bind_to_port(host_port.first, host_port.second)
                                               ? host_port.second
                                               : -1);
  if (server->port_ <= 0) return absl::UnavailableError(absl::StrCat("cannot serve pages on ", address));
  server->listener_ = std::thread([&http] { http.listen_after_bind(); });
  return server;
}

WebServer::~WebServer() {
  if (server_) server_->stop();
  if (listener_.joinable()) listener_.join();
}

}  // namespace gavel::arena
