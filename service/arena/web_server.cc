#include "service/arena/web_server.h"

#include <CivetServer.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/core/status.h"
#include "google/protobuf/util/json_util.h"
#include "service/arena/ratings.h"
#include "service/arena/replay.h"
#include "service/arena/web_assets.h"

namespace gavel::arena {
namespace {

v1::WebMatch MatchOf(const MatchRecord& match, bool live) {
  v1::WebMatch out;
  out.set_id(match.id);
  out.set_tournament_id(match.tournament_id);
  out.set_game(match.game);
  out.set_players(match.players);
  out.set_seed(match.seed);
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

// The events everybody may see: their audience covers every seat.
void AddPublicEvents(const ReplayStep& step, int seats, v1::WebStep* out) {
  const SeatMask everybody = seats >= 32 ? ~SeatMask{0} : (SeatMask{1} << seats) - 1;
  for (const auto& [audience, text] : step.events)
    if ((audience & everybody) == everybody) out->add_events(text);
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
      line->set_conservative(row.rating.mu - 3 * row.rating.sigma);
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
        *shown = MatchOf(match, true);
        shown->set_moves(static_cast<int>(live_->MovesOf(match.id)));
      }
  GAVEL_ASSIGN_OR_RETURN(std::vector<int64_t> ids, store_->FinishedMatches(filter.tournament_id));
  for (auto it = ids.rbegin(); it != ids.rend() && static_cast<size_t>(out.matches_size()) < filter.limit; ++it) {
    GAVEL_ASSIGN_OR_RETURN(MatchRecord match, store_->LoadMatch(*it));
    if (Passes(match, filter)) *out.add_matches() = MatchOf(match, false);
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
  *out.mutable_match() = MatchOf(match, live);
  out.set_revealed(options_.reveal_finished && match.finished);
  GAVEL_RETURN_IF_ERROR(WalkReplay(match, [&](const ReplayStep& step) {
    v1::WebStep* shown = out.add_steps();
    shown->set_ply(step.ply);
    shown->set_seat(step.record ? step.record->seat : -1);
    shown->set_move(step.move_text);
    if (step.record) shown->set_status(v1::MoveStatus_Name(step.record->status));
    AddPublicEvents(step, step.state->seats(), shown);
    for (double score : step.state->outcome().scores) shown->add_scores(score);
  }));
  return out;
}

absl::StatusOr<v1::WebStep> WebData::Step(int64_t id, int step) {
  GAVEL_ASSIGN_OR_RETURN(auto loaded, Load(id));
  const MatchRecord& match = loaded.first;
  if (step < 0 || step > static_cast<int>(match.moves.size()))
    return absl::NotFoundError(absl::StrCat("match ", id, " has steps 0 to ", match.moves.size()));
  const bool reveal = options_.reveal_finished && match.finished;
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

// Routes: the pages (/, /matches, /match), their files (/static/...), and /api/...
class WebServer::Handler final : public CivetHandler {
 public:
  explicit Handler(WebData* data) : data_(data) {}

  bool handleGet(CivetServer*, mg_connection* connection) override {
    const mg_request_info* request = mg_get_request_info(connection);
    const std::string path = request->local_uri ? request->local_uri : "/";
    const std::string query = request->query_string ? request->query_string : "";
    if (absl::StartsWith(path, "/api/")) return Api(connection, path, query);
    const WebAsset* asset = FindWebAsset(path == "/" ? "/index.html" : path);
    if (asset == nullptr) return Send(connection, 404, "text/plain", "not found\n");
    return Send(connection, 200, asset->content_type, asset->content);
  }

 private:
  static std::string Param(const std::string& query, const char* name) {
    char value[256];
    const int length = mg_get_var(query.data(), query.size(), name, value, sizeof value);
    return length > 0 ? std::string(value, length) : "";
  }
  static int64_t IdParam(const std::string& text) {
    int64_t id = 0;
    return absl::SimpleAtoi(text, &id) && id > 0 ? id : 0;
  }

  bool Api(mg_connection* connection, const std::string& path, const std::string& query) {
    if (path == "/api/standings") return Json(connection, data_->Standings(IdParam(Param(query, "tournament"))));
    if (path == "/api/tournaments") return Json(connection, data_->Tournaments());
    if (path == "/api/matches") {
      MatchFilter filter{Param(query, "game"), Param(query, "bot"), IdParam(Param(query, "tournament"))};
      return Json(connection, data_->Matches(filter));
    }
    if (absl::StartsWith(path, "/api/match/")) {  // /api/match/ID or /api/match/ID/step/N
      const std::vector<std::string> parts = absl::StrSplit(path.substr(std::string("/api/match/").size()), '/');
      const int64_t id = IdParam(parts[0]);
      int64_t step = -1;
      if (id == 0 || (parts.size() != 1 && (parts.size() != 3 || parts[1] != "step" ||
                                            !absl::SimpleAtoi(parts[2], &step) || step < 0 || step > (1 << 30))))
        return Send(connection, 400, "text/plain", "expected /api/match/ID or /api/match/ID/step/N\n");
      if (parts.size() == 1) return Json(connection, data_->Replay(id));
      return Json(connection, data_->Step(id, static_cast<int>(step)));
    }
    return Send(connection, 404, "text/plain", "no such API\n");
  }

  template <typename Message>
  static bool Json(mg_connection* connection, const absl::StatusOr<Message>& message) {
    if (!message.ok()) {
      const int code = absl::IsNotFound(message.status()) ? 404 : 500;
      return Send(connection, code, "text/plain", std::string(message.status().message()) + "\n");
    }
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(*message, &json, options).ok())
      return Send(connection, 500, "text/plain", "cannot encode the answer\n");
    return Send(connection, 200, "application/json", json);
  }

  static bool Send(mg_connection* connection, int code, const std::string& type, const std::string& body) {
    mg_printf(connection,
              "HTTP/1.1 %d %s\r\nContent-Type: %s; charset=utf-8\r\nContent-Length: %zu\r\n"
              "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
              "Content-Security-Policy: default-src 'self'; style-src 'self'; img-src 'self' data:\r\n"
              "Connection: close\r\n\r\n",
              code, mg_get_response_code_text(nullptr, code), type.c_str(), body.size());
    mg_write(connection, body.data(), body.size());
    return true;
  }

  WebData* data_;
};

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(const std::string& address, Store* store,
                                                            const LiveMatches* live, WebOptions options) {
  std::unique_ptr<WebServer> server(new WebServer());
  server->data_ = std::make_unique<WebData>(store, live, options);
  server->handler_ = std::make_unique<Handler>(server->data_.get());
  const std::vector<std::string> settings = {
      "listening_ports", address, "num_threads", std::to_string(std::max(1, options.threads)),
      "request_timeout_ms", "10000", "enable_directory_listing", "no"};
  try {
    server->server_ = std::make_unique<CivetServer>(settings);
  } catch (const CivetException& error) {
    return absl::UnavailableError(absl::StrCat("cannot serve pages on ", address, ": ", error.what()));
  }
  server->server_->addHandler("/", *server->handler_);
  const std::vector<int> ports = server->server_->getListeningPorts();
  if (ports.empty()) return absl::UnavailableError(absl::StrCat("cannot serve pages on ", address));
  server->port_ = ports.front();
  return server;
}

WebServer::~WebServer() {
  if (server_) server_->close();
}

}  // namespace gavel::arena
