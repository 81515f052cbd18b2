// gavel-bot: a bot process that plays in the arena with a built-in policy.
//
//   gavel-bot --policy=random|dirk|ismcts|learned|search --name=NAME --arena=host:port [--seed=N]
//             [--games=a,b] [--iterations=N | --time_ms=T] [--playout_moves=N] [--weights=FOLDER]
//             [--value_playout_moves=N]
//             [--tls | --tls_ca=ca.pem] [--token_file=bot.token]
//
// Logs go to stderr. SIGTERM or SIGINT ends it cleanly.
#include <algorithm>
#include <csignal>
#include <fstream>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_split.h"
#include "bots/client/bot_client.h"
#include "engine/core/registry.h"
#include "engine/core/status.h"
#include "learn/ismcts.h"
#include "learn/learned_policy.h"
#include "learn/search_policy.h"
#include "policy/dirk/dirk.h"
#include "service/library_logs.h"
#include "service/tls.h"
#include "service/termination_signals.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, policy, "random", "random, dirk, ismcts, learned or search");
ABSL_FLAG(std::string, name, "", "the bot's name in the arena (default: the policy)");
ABSL_FLAG(std::string, version, "1", "the bot's version, stored by the arena");
ABSL_FLAG(std::string, arena, "127.0.0.1:50061",
          "the arena's gRPC target; comma-separated for several arenas sharing one store");
ABSL_FLAG(uint64_t, seed, 1, "the seed of the policy's randomness (random, ismcts, search)");
ABSL_FLAG(std::string, games, "",
          "comma-separated games to claim (empty: every game the policy plays in this build)");
ABSL_FLAG(int, iterations, 400, "ismcts: iterations per move");
ABSL_FLAG(double, time_ms, 0,
          "ismcts: search time per move in ms (> 0 overrides --iterations); search: the same "
          "(0: 10 ms), but in Mercado, whose paired rollouts count worlds");
ABSL_FLAG(int, search_iterations, 0,
          "search: ISMCTS iterations per move instead of --time_ms, so that --seed gives the same "
          "moves on any machine (0: by time)");
ABSL_FLAG(int, playout_moves, -1,
          "ismcts, search: moves a play-out runs before the scores so far decide (0: to the "
          "end; -1: to the end for ismcts, the game's default for search)");
ABSL_FLAG(int, value_playout_moves, gavel::learn::SearchOptions::kValuePlayoutMoves,
          "search: where the weights hold a value network for the table (<game>-<players>p.value), "
          "play-outs stop after this many moves and it judges the seats (-1: value networks not used)");
ABSL_FLAG(std::string, weights, "weights",
          "learned, search: the folder of <game>-<players>p.gmlp weights files (and .value files)");
ABSL_FLAG(bool, tls, false, "TLS to the arena, trusting the system's roots");
ABSL_FLAG(std::string, tls_ca, "", "TLS to the arena, trusting this PEM CA (implies --tls)");
ABSL_FLAG(std::string, token_file, "",
          "a file holding the bot account's token (from gavel-arena accounts add)");
ABSL_FLAG(bool, insecure, false, "allow sending the token in plaintext to an arena beyond loopback");
ABSL_FLAG(std::string, log_level, "info", "spdlog level: trace, debug, info, warn, error");

namespace {

// A policy with the games it plays.
struct Player {
  gavel::policy::Policy policy;
  std::vector<std::string> games;
  std::unique_ptr<gavel::learn::LearnedPolicy> learned;  // owned here when the policy uses it
};

std::vector<std::string> AllGames() {
  std::vector<std::string> all;
  for (const gavel::Game* game : gavel::AllGames()) all.push_back(game->name());
  return all;
}

// The policy named by --policy. Its Policy is shared by every connection: each is called from
// one thread at a time, the learned policy is safe to share, the others keep no state.
absl::StatusOr<Player> MakePlayer(const std::string& name) {
  Player player;
  if (name == "dirk") {
    player.policy = gavel::policy::dirk::DirkForAllGames();
    player.games = gavel::policy::dirk::DirkGames();
  } else if (name == "learned") {
    GAVEL_ASSIGN_OR_RETURN(player.learned, gavel::learn::LearnedPolicy::Load(absl::GetFlag(FLAGS_weights)));
    player.policy = player.learned->AsPolicy();
    player.games = player.learned->Games();
  } else if (name == "search") {
    GAVEL_ASSIGN_OR_RETURN(player.learned, gavel::learn::LearnedPolicy::Load(absl::GetFlag(FLAGS_weights)));
    const double time_ms = absl::GetFlag(FLAGS_time_ms);
    player.policy = gavel::learn::SearchPolicy(
        *player.learned,
        {.time_ms = time_ms > 0 ? time_ms : 10,
         .iterations = absl::GetFlag(FLAGS_search_iterations),
         .playout_moves = absl::GetFlag(FLAGS_playout_moves),
         .value_playout_moves = absl::GetFlag(FLAGS_value_playout_moves)});
    player.games = AllGames();  // plain ISMCTS where no network fits
  } else if (name == "ismcts") {
    gavel::learn::IsmctsOptions options;
    options.iterations = absl::GetFlag(FLAGS_iterations);
    options.time_budget_ms = absl::GetFlag(FLAGS_time_ms);
    options.playout_moves = std::max(absl::GetFlag(FLAGS_playout_moves), 0);
    player.policy = gavel::learn::IsmctsPolicy(options);
    player.games = AllGames();
  } else if (name == "random") {
    player.policy = gavel::policy::RandomPolicy();
    player.games = AllGames();
  } else {
    return absl::InvalidArgumentError("unknown policy '" + name + "' (random, dirk, ismcts, learned or search)");
  }
  if (const std::string games = absl::GetFlag(FLAGS_games); !games.empty())
    player.games = absl::StrSplit(games, ',', absl::SkipEmpty());
  return player;
}

// The token is read from a file (never a flag: flags show in process listings) and must not
// travel in plaintext beyond loopback unless --insecure says so.
absl::Status ConfigureConnection(gavel::bots::BotOptions& options) {
  const gavel::service::ClientTls tls{
      .enabled = absl::GetFlag(FLAGS_tls) || !absl::GetFlag(FLAGS_tls_ca).empty(),
      .ca_file = absl::GetFlag(FLAGS_tls_ca)};
  if (tls.enabled) {
    GAVEL_ASSIGN_OR_RETURN(options.credentials, gavel::service::ChannelCredentials(tls));
  }
  if (const std::string path = absl::GetFlag(FLAGS_token_file); !path.empty()) {
    std::ifstream file(path);
    if (!(file >> options.token)) return absl::NotFoundError("cannot read a token from " + path);
  }
  if (!options.token.empty() && !tls.enabled && !absl::GetFlag(FLAGS_insecure) &&
      !gavel::service::IsLoopback(options.arena))
    return absl::FailedPreconditionError(
        "refusing to send the token in plaintext to " + options.arena + ": use --tls or --tls_ca");
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("gavel bot: plays in the gavel arena with a built-in policy");
  absl::ParseCommandLine(argc, argv);
  spdlog::set_default_logger(spdlog::stderr_color_mt("gavel-bot"));
  spdlog::set_level(spdlog::level::from_str(absl::GetFlag(FLAGS_log_level)));
  gavel::service::RouteLibraryLogsToSpdlog();  // a peer's bad bytes: not a line per call

  const gavel::service::TerminationSignals signals;  // before the client's threads start

  // One connection per arena of --arena: several arenas sharing a store each need the bot
  // (docs/arena.md). Each connection has its own generator, seeded from --seed.
  const std::string policy_name = absl::GetFlag(FLAGS_policy);
  auto player = MakePlayer(policy_name);
  if (!player.ok()) {
    spdlog::error("{}", player.status().ToString());
    return 2;
  }
  std::vector<std::unique_ptr<gavel::bots::BotClient>> clients;
  for (absl::string_view target : absl::StrSplit(absl::GetFlag(FLAGS_arena), ',', absl::SkipEmpty())) {
    gavel::bots::BotOptions options;
    options.games = player->games;
    options.seed = absl::GetFlag(FLAGS_seed) + clients.size();
    options.arena = std::string(target);
    options.name = absl::GetFlag(FLAGS_name).empty() ? policy_name : absl::GetFlag(FLAGS_name);
    options.version = absl::GetFlag(FLAGS_version);
    if (absl::Status connection = ConfigureConnection(options); !connection.ok()) {
      spdlog::error("{}", connection.ToString());
      return 2;
    }
    clients.push_back(std::make_unique<gavel::bots::BotClient>(options, player->policy));
  }
  std::atomic<int> exit_code{0};
  std::vector<std::thread> players;
  for (auto& client : clients)
    players.emplace_back([&, client = client.get()] {
      if (!client->Run().ok()) {
        exit_code = 1;
        kill(getpid(), SIGTERM);  // refused for good: end the process
      }
    });
  signals.Wait();
  int turns = 0, errors = 0;
  for (auto& client : clients) client->Stop();
  for (size_t i = 0; i < players.size(); ++i) {
    players[i].join();
    turns += clients[i]->turns_answered();
    errors += clients[i]->policy_errors();
  }
  spdlog::info("{}: stopped after {} turns, {} of them answered with the policy's error",
               absl::GetFlag(FLAGS_name).empty() ? policy_name : absl::GetFlag(FLAGS_name), turns, errors);
  return exit_code;
}
