// gavel-arena: the match host and referee for bots, and the tools over its store.
//
//   gavel-arena [serve] --listen=... --engine=inprocess|host:port --db=arena.db [--tournament ...]
//   gavel-arena replay --db=arena.db --match=ID [--seat=N]   verify and print one match
//   gavel-arena verify --db=arena.db                          verify every stored match
//   gavel-arena standings --db=arena.db [--tournament_id=ID]  standings from the store
//   gavel-arena backup --db=arena.db --to=copy.db             a consistent copy while it runs
//   gavel-arena games                                         this build's games, comma-separated
//   gavel-arena accounts add|rotate|revoke NAME --db=arena.db  bot accounts (add and rotate
//                                                              print the new token once)
//   gavel-arena accounts list --db=arena.db
//
// `serve` prints one readiness line, "listening on port N", on stdout (with --metrics_listen,
// "metrics on port N" before it); logs go to stderr.
// With --tournament it waits for --wait_for_bots bots, runs the tournament, prints the
// standings on stdout and (with --exit_after_tournament) stops. On SIGTERM or SIGINT it stops
// taking new matches, ends the bot streams and exits when the matches in play are done.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <optional>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "service/arena/accounts.h"
#include "service/tls.h"
#include "engine/core/registry.h"
#include "grpcpp/grpcpp.h"
#include "service/arena/arena_metrics.h"
#include "service/arena/bot_hub.h"
#include "service/arena/engine_backend.h"
#include "service/arena/referee.h"
#include "service/arena/replay.h"
#include "service/arena/store.h"
#include "service/arena/tournament.h"
#include "service/arena/web_server.h"
#include "service/health_service.h"
#include "service/library_logs.h"
#include "service/mutex_checks.h"
#include "service/termination_signals.h"
#include "service/tls_flags.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50061",
          "address:port for bots (port 0 picks one); beyond loopback: TLS or --insecure");
ABSL_FLAG(std::string, engine, "inprocess",
          "'inprocess' for the engine library, or the engine service's gRPC target");
ABSL_FLAG(bool, engine_tls, false, "TLS to the engine, trusting the system's roots");
ABSL_FLAG(std::string, engine_tls_ca, "", "TLS to the engine, trusting this PEM CA (implies --engine_tls)");
ABSL_FLAG(std::string, engine_tls_cert, "", "the arena's client certificate for mutual TLS to the engine");
ABSL_FLAG(std::string, engine_tls_key, "", "the key of --engine_tls_cert");
ABSL_FLAG(std::string, db, "gavel-arena.db", "the SQLite store");
ABSL_FLAG(uint32_t, move_ms, 1000, "time per move, in ms");
ABSL_FLAG(uint32_t, bank_ms, 10000, "each seat's time bank per match, in ms");
ABSL_FLAG(int, max_strikes, 3, "faults after which the fallback plays a seat to the end");
ABSL_FLAG(int, max_message_bytes, 64 << 10, "largest message a bot may send");
ABSL_FLAG(int, max_bots, 64, "bots connected at once");
ABSL_FLAG(int, max_queued_messages, 64, "messages queued for a bot that is not reading");
ABSL_FLAG(std::optional<bool>, open_registration, std::nullopt,
          "admit bots without a token under any name no account owns (default: only when "
          "--listen is a loopback address)");
ABSL_FLAG(double, bot_messages_per_s, 500,
          "messages a bot may send per second beyond its answers to open turns; more ends its stream");
ABSL_FLAG(double, account_recheck_s, 5,
          "how often connected bots' accounts are checked for a revoked or rotated token");
ABSL_FLAG(double, failed_logins_per_minute, 12,
          "failed token checks an address may make per minute (after a burst of 5)");
ABSL_FLAG(std::string, health_listen, "",
          "address:port of a plaintext listener with the health service alone, for probes "
          "that speak no TLS (empty: off; port 0 picks one)");
ABSL_FLAG(std::string, house_accounts_dir, "",
          "a folder of token files, one per house bot named by the file (a mounted Secret): "
          "each such account is created or given that token at start");
ABSL_FLAG(std::string, http_listen, "",
          "address:port of the pages (leaderboard, matches, replay viewer) and their JSON under "
          "/api/ (empty: off; port 0 picks one)");
ABSL_FLAG(bool, reveal_finished, false,
          "the pages show every seat's view of a finished match, hands included");
ABSL_FLAG(std::string, metrics_listen, "",
          "address:port for Prometheus /metrics (empty: off; port 0 picks one)");
ABSL_FLAG(int, match_attempts, 3,
          "times a match is played from the start when the engine fails during it");
ABSL_FLAG(std::string, arena_id, "",
          "this arena's name in a PostgreSQL store's match queue (default: host name and pid)");
ABSL_FLAG(int64_t, lease_ms, 10000,
          "PostgreSQL store: a queued match whose arena stops renewing its lease goes to "
          "another arena after this long");
ABSL_FLAG(std::string, coordinator, "",
          "several arenas on one store: only the arena whose --arena_id is this runs --tournament "
          "(the others work its queue)");
ABSL_FLAG(bool, tournament, false, "run a tournament once --wait_for_bots bots are connected");
ABSL_FLAG(std::string, games, "", "comma-separated games of the tournament (empty: all)");
ABSL_FLAG(int, deals, 2, "deals per game; each is played once per seat rotation");
ABSL_FLAG(bool, duplicate_deals, false,
          "every seat rotation of a deal gets the same cards (less luck in the standings; only "
          "for trusted bots: a bot that remembers a deal knows the seat it held before)");
ABSL_FLAG(int, players, 0, "seats per table (0: every bot that plays the game, within range)");
ABSL_FLAG(uint64_t, seed, 0,
          "tournament seed, for a reproducible tournament (0: a secret random one; a known seed "
          "lets anyone compute every deal's hidden cards)");
ABSL_FLAG(int, concurrency, 4, "matches played at once");
ABSL_FLAG(int, max_matches_per_bot, 0, "matches one bot sits in at once (0: up to --concurrency)");
ABSL_FLAG(int, wait_for_bots, 2, "bots to wait for before the tournament starts");
ABSL_FLAG(double, bot_wait_s, 60, "how long to wait for them");
ABSL_FLAG(bool, exit_after_tournament, false, "stop once the tournament is over");
ABSL_FLAG(bool, progress, true, "show a progress bar on stderr");
ABSL_FLAG(int64_t, match, 0, "replay: the match to show");
ABSL_FLAG(int, seat, -1, "replay: show only the events this seat could see (-1: all)");
ABSL_FLAG(int64_t, tournament_id, 0, "standings: one tournament (0: every stored match)");
ABSL_FLAG(std::string, to, "", "backup: the file to write the copy to");
ABSL_FLAG(std::string, log_level, "info", "spdlog level: trace, debug, info, warn, error");

namespace gavel::arena {
namespace {

std::set<std::string> EngineGames() {
  std::set<std::string> games;
  for (const Game* game : AllGames()) games.insert(game->name());
  return games;
}

std::vector<std::string> TournamentGames() {
  const std::string games = absl::GetFlag(FLAGS_games);
  if (games.empty()) return {};
  return absl::StrSplit(games, ',', absl::SkipEmpty());
}

bool IsShared(const std::string& db) {
  return absl::StartsWith(db, "postgresql://") || absl::StartsWith(db, "postgres://");
}

std::string ArenaId() {
  if (std::string id = absl::GetFlag(FLAGS_arena_id); !id.empty()) return id;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return absl::StrCat(host, "-", getpid());
}

// The tournament of --tournament; returns whether it completed.
bool RunConfiguredTournament(BotHub& hub, Referee& referee, Store& store,
                             const std::atomic<bool>& stop) {
  const int wanted = absl::GetFlag(FLAGS_wait_for_bots);
  const auto wait = std::chrono::duration<double>(absl::GetFlag(FLAGS_bot_wait_s));
  if (!hub.WaitForBots(wanted, std::chrono::duration_cast<std::chrono::milliseconds>(wait))) {
    spdlog::error("only {} of {} bots connected", hub.Connected().size(), wanted);
    return false;
  }
  TournamentOptions options;
  options.games = TournamentGames();
  options.deals = absl::GetFlag(FLAGS_deals);
  options.players = absl::GetFlag(FLAGS_players);
  options.seed = absl::GetFlag(FLAGS_seed);
  if (options.seed == 0) options.seed = SecretSeed();
  options.duplicate_deals = absl::GetFlag(FLAGS_duplicate_deals);
  options.concurrency = absl::GetFlag(FLAGS_concurrency);
  options.progress = absl::GetFlag(FLAGS_progress);
  options.match_attempts = absl::GetFlag(FLAGS_match_attempts);
  options.max_matches_per_bot = absl::GetFlag(FLAGS_max_matches_per_bot);
  // With a shared (PostgreSQL) store the matches go through the queue that every arena
  // works; with an embedded one this arena plays them all.
  auto report = IsShared(absl::GetFlag(FLAGS_db))
                    ? RunQueuedTournament(options, hub.Connected(), store, stop)
                    : RunTournament(options, hub.Connected(), referee, store, stop);
  if (!report.ok()) {
    spdlog::error("tournament failed: {}", report.status().ToString());
    return false;
  }
  std::printf("tournament %ld: %d matches, %d not finished, %d restarted\n%s",
              static_cast<long>(report->id), report->matches, report->failed, report->restarted,
              FormatStandings(report->standings).c_str());
  std::fflush(stdout);
  return report->failed == 0;
}

int Serve() {
  const service::TerminationSignals signals;  // before any thread starts

  auto store = Store::Open(absl::GetFlag(FLAGS_db));
  if (!store.ok()) {
    spdlog::error("{}", store.status().ToString());
    return 1;
  }
  BotHubOptions hub_options;
  hub_options.max_bots = absl::GetFlag(FLAGS_max_bots);
  hub_options.max_queued_messages = absl::GetFlag(FLAGS_max_queued_messages);
  hub_options.games = EngineGames();
  hub_options.move_ms = absl::GetFlag(FLAGS_move_ms);
  hub_options.bank_ms = absl::GetFlag(FLAGS_bank_ms);
  hub_options.arena_version = GAVEL_VERSION;
  AccountBook accounts(store->get());
  if (const std::string dir = absl::GetFlag(FLAGS_house_accounts_dir); !dir.empty()) {
    if (absl::Status ensured = accounts.EnsureFromDirectory(dir); !ensured.ok()) {
      spdlog::error("house accounts: {}", ensured.ToString());
      return 1;
    }
  }
  hub_options.accounts = &accounts;
  hub_options.open_registration = absl::GetFlag(FLAGS_open_registration)
                                      .value_or(service::IsLoopback(absl::GetFlag(FLAGS_listen)));
  hub_options.messages_per_s = absl::GetFlag(FLAGS_bot_messages_per_s);
  hub_options.message_burst = 2 * hub_options.messages_per_s;
  hub_options.failed_logins.per_second = absl::GetFlag(FLAGS_failed_logins_per_minute) / 60;
  if (!hub_options.open_registration) spdlog::info("bots need an account token");
  BotHub hub(hub_options);
  hub.OnJoin([&](const v1::Hello& hello) {
    if (absl::Status saved = (*store)->SaveBot(hello.name(), hello.version()); !saved.ok())
      spdlog::error("{}", saved.ToString());
  });
  ArenaMetrics metrics;
  ArenaMetrics* served_metrics = nullptr;
  if (const std::string listen = absl::GetFlag(FLAGS_metrics_listen); !listen.empty()) {
    auto metrics_port = metrics.Serve(listen);
    if (!metrics_port.ok()) {
      spdlog::error("{}", metrics_port.status().ToString());
      return 1;
    }
    served_metrics = &metrics;
    spdlog::info("metrics on port {}", *metrics_port);
    std::printf("metrics on port %d\n", *metrics_port);
  }
  auto engine_credentials = service::ChannelCredentials(
      service::ClientTls{.enabled = absl::GetFlag(FLAGS_engine_tls),
                         .ca_file = absl::GetFlag(FLAGS_engine_tls_ca),
                         .cert_file = absl::GetFlag(FLAGS_engine_tls_cert),
                         .key_file = absl::GetFlag(FLAGS_engine_tls_key),
                         .refresh_s = service::ServerTlsFromFlags().refresh_s});
  if (!engine_credentials.ok()) {
    spdlog::error("the engine channel: {}", engine_credentials.status().ToString());
    return 1;
  }
  std::unique_ptr<EngineBackend> engine =
      MakeEngineBackend(absl::GetFlag(FLAGS_engine),
                        served_metrics ? &served_metrics->service() : nullptr, *engine_credentials);
  LiveMatches live;
  std::unique_ptr<WebServer> web;
  if (const std::string address = absl::GetFlag(FLAGS_http_listen); !address.empty()) {
    // The pages share the bot port's certificate (and --insecure, for TLS ended in front).
    auto started = WebServer::Start(address, store->get(), &live,
                                    WebOptions{.reveal_finished = absl::GetFlag(FLAGS_reveal_finished),
                                               .tls = service::ServerTlsFromFlags()});
    if (!started.ok()) {
      spdlog::error("{}", started.status().ToString());
      return 1;
    }
    web = std::move(*started);
    spdlog::info("pages on {}://{}", web->scheme(), address);
    std::printf("%s on port %d\n", web->scheme(), web->port());
  }
  Referee referee(engine.get(), &hub, store->get(),
                  RefereeOptions{hub_options.move_ms, hub_options.bank_ms,
                                 absl::GetFlag(FLAGS_max_strikes)},
                  served_metrics);
  referee.set_live(&live);

  grpc::EnableDefaultHealthCheckService(false);
  ArenaService arena(&hub);
  service::HealthService health({"gavel.v1.Arena"});
  auto credentials = service::ListenerCredentials(absl::GetFlag(FLAGS_listen), service::ServerTlsFromFlags());
  if (!credentials.ok()) {
    spdlog::error("{}", credentials.status().ToString());
    return 1;
  }
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), *credentials, &port);
  builder.RegisterService(&arena);
  builder.RegisterService(&health);
  builder.SetMaxReceiveMessageSize(absl::GetFlag(FLAGS_max_message_bytes));
  builder.SetMaxSendMessageSize(4 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    spdlog::error("cannot listen on {}", absl::GetFlag(FLAGS_listen));
    return 1;
  }
  service::HealthService probe_health({"gavel.v1.Arena"});
  std::unique_ptr<grpc::Server> probe_server;
  if (const std::string address = absl::GetFlag(FLAGS_health_listen); !address.empty()) {
    int probe_port = 0;
    auto started = service::StartProbeServer(address, &probe_health, &probe_port);
    if (!started.ok()) {
      spdlog::error("{}", started.status().ToString());
      return 1;
    }
    probe_server = std::move(*started);
    std::printf("health on port %d\n", probe_port);
  }
  spdlog::info("gavel arena serving on port {} (engine {}, store {})", port,
               absl::GetFlag(FLAGS_engine), absl::GetFlag(FLAGS_db));
  std::printf("listening on port %d\n", port);
  std::fflush(stdout);

  std::optional<QueueWorkers> queue;
  if (IsShared(absl::GetFlag(FLAGS_db))) {
    const QueueOptions queue_options{ArenaId(), absl::GetFlag(FLAGS_concurrency), absl::GetFlag(FLAGS_lease_ms)};
    spdlog::info("working the match queue as {}", queue_options.arena_id);
    queue.emplace(queue_options, referee, hub, **store);
  }
  std::atomic<bool> stop{false};
  std::atomic<int> exit_code{0};
  absl::Notification stopping;
  std::thread recheck([&] {
    const absl::Duration period = absl::Seconds(absl::GetFlag(FLAGS_account_recheck_s));
    while (!stopping.WaitForNotificationWithTimeout(period)) hub.RecheckAccounts();
  });
  std::thread tournament;
  const std::string coordinator = absl::GetFlag(FLAGS_coordinator);
  if (absl::GetFlag(FLAGS_tournament) && (coordinator.empty() || coordinator == ArenaId())) {
    tournament = std::thread([&] {
      if (!RunConfiguredTournament(hub, referee, **store, stop)) exit_code = 1;
      if (absl::GetFlag(FLAGS_exit_after_tournament)) kill(getpid(), SIGTERM);
    });
  }
  spdlog::info("signal {}: stopping", signals.Wait());
  stop = true;
  // Queued matches in play finish while their bots are still connected (a drain, not a
  // forfeit); the others stay queued for the other arenas.
  if (queue) queue->Stop();
  stopping.Notify();
  recheck.join();
  health.Shutdown();
  probe_health.Shutdown();
  if (probe_server) probe_server->Shutdown(std::chrono::system_clock::now());
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (tournament.joinable()) tournament.join();
  server->Wait();
  spdlog::info("arena stopped");
  return exit_code;
}

int ShowReplay(Store& store) {
  auto match = store.LoadMatch(absl::GetFlag(FLAGS_match));
  if (!match.ok()) {
    spdlog::error("{}", match.status().ToString());
    return 1;
  }
  const int seat = absl::GetFlag(FLAGS_seat);
  auto text = Replay(*match, seat >= 0 ? std::optional<int>(seat) : std::nullopt);
  if (!text.ok()) {
    spdlog::error("{}", text.status().ToString());
    return 1;
  }
  std::fputs(text->c_str(), stdout);
  return 0;
}

int VerifyAll(Store& store) {
  auto ids = store.FinishedMatches();
  if (!ids.ok()) {
    spdlog::error("{}", ids.status().ToString());
    return 1;
  }
  int failures = 0;
  for (int64_t id : *ids) {
    auto match = store.LoadMatch(id);
    absl::Status status = match.ok() ? Replay(*match).status() : match.status();
    if (!status.ok()) {
      ++failures;
      spdlog::error("{}", status.ToString());
    }
  }
  std::printf("verified %zu matches, %d failed\n", ids->size(), failures);
  return failures == 0 ? 0 : 1;
}

int ShowStandings(Store& store) {
  auto ids = store.FinishedMatches(absl::GetFlag(FLAGS_tournament_id));
  auto ratings = store.LoadRatings();
  if (!ids.ok() || !ratings.ok()) {
    spdlog::error("{}", (ids.ok() ? ratings.status() : ids.status()).ToString());
    return 1;
  }
  std::vector<MatchRecord> matches;
  for (int64_t id : *ids) {
    auto match = store.LoadMatch(id);
    if (match.ok()) matches.push_back(std::move(*match));
  }
  std::printf("%zu matches\n%s", matches.size(),
              FormatStandings(ComputeStandings(matches, *ratings)).c_str());
  return 0;
}

std::string FormatTime(int64_t unix_seconds) {
  return unix_seconds ? absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixSeconds(unix_seconds),
                                         absl::UTCTimeZone())
                      : "-";
}

// `accounts add|rotate|revoke NAME` and `accounts list`. A token goes to stdout alone, so
// `gavel-arena accounts add NAME > NAME.token` keeps it out of terminals and logs.
int ManageAccounts(Store& store, const std::vector<char*>& arguments) {
  AccountBook accounts(&store);
  const std::string verb = arguments.size() > 2 ? arguments[2] : "list";
  if (verb == "list" && arguments.size() <= 3) {
    auto list = accounts.List();
    if (!list.ok()) {
      spdlog::error("{}", list.status().ToString());
      return 1;
    }
    std::printf("%-24s %-20s %-20s %s\n", "account", "created", "token set", "status");
    for (const Account& account : *list)
      std::printf("%-24s %-20s %-20s %s\n", account.name.c_str(), FormatTime(account.created).c_str(),
                  FormatTime(account.token_set).c_str(),
                  account.revoked ? ("revoked " + FormatTime(account.revoked)).c_str() : "active");
    return 0;
  }
  if (arguments.size() != 4 || (verb != "add" && verb != "rotate" && verb != "revoke")) {
    spdlog::error("usage: gavel-arena accounts add|rotate|revoke NAME | list");
    return 2;
  }
  const std::string name = arguments[3];
  if (verb == "revoke") {
    if (absl::Status revoked = accounts.Revoke(name); !revoked.ok()) {
      spdlog::error("{}", revoked.ToString());
      return 1;
    }
    spdlog::info("account {} revoked: its token is refused from its next connection", name);
    return 0;
  }
  auto token = verb == "add" ? accounts.Add(name) : accounts.Rotate(name);
  if (!token.ok()) {
    spdlog::error("{}", token.status().ToString());
    return 1;
  }
  spdlog::info("the token of account {} (shown once; the arena keeps only its hash):", name);
  std::printf("%s\n", token->c_str());
  return 0;
}

int RunTool(const std::string& command, const std::vector<char*>& arguments) {
  auto store = Store::Open(absl::GetFlag(FLAGS_db));
  if (!store.ok()) {
    spdlog::error("{}", store.status().ToString());
    return 1;
  }
  if (command == "backup") {
    if (absl::GetFlag(FLAGS_to).empty()) {
      spdlog::error("backup needs --to=FILE");
      return 2;
    }
    if (absl::Status saved = (*store)->Backup(absl::GetFlag(FLAGS_to)); !saved.ok()) {
      spdlog::error("{}", saved.ToString());
      return 1;
    }
    std::printf("backed up %s to %s\n", absl::GetFlag(FLAGS_db).c_str(), absl::GetFlag(FLAGS_to).c_str());
    return 0;
  }
  if (command == "accounts") return ManageAccounts(**store, arguments);
  if (command == "replay") return ShowReplay(**store);
  if (command == "verify") return VerifyAll(**store);
  return ShowStandings(**store);
}

}  // namespace
}  // namespace gavel::arena

int main(int argc, char** argv) {
  gavel::service::TurnOffMutexDeadlockDetection();
  absl::SetProgramUsageMessage(
      "gavel arena: referee and tournaments for bots.\n"
      "  gavel-arena [serve] [flags] | replay --db --match | verify --db | standings --db |\n"
      "  backup --db --to | accounts add|rotate|revoke NAME --db | accounts list --db | games");
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  spdlog::set_default_logger(spdlog::stderr_color_mt("gavel-arena"));  // stdout: readiness, results
  spdlog::set_level(spdlog::level::from_str(absl::GetFlag(FLAGS_log_level)));
  gavel::service::RouteLibraryLogsToSpdlog();  // a peer's bad bytes: not a line per call
  const std::string command = positional.size() > 1 ? positional[1] : "serve";
  if (command == "serve") return gavel::arena::Serve();
  if (command == "games") {
    const std::set<std::string> games = gavel::arena::EngineGames();
    std::printf("%s\n", absl::StrJoin(games, ",").c_str());
    return 0;
  }
  if (command == "replay" || command == "verify" || command == "standings" || command == "backup" ||
      command == "accounts")
    return gavel::arena::RunTool(command, positional);
  spdlog::error("unknown command '{}'; see --help", command);
  return 2;
}
