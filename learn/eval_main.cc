// gavel-eval: in-process evaluation of the bots' policies, with seeded deals and the
// candidate's seat rotated through every seat of each deal.
//
//   gavel-eval --weights=weights --games_per_matchup=2000 --ismcts_iterations=100
//              --ismcts_iterations_for=mercado=30,morgenland=10 --threads=2
//
// For every game: learned vs dirk, learned vs random, learned vs ismcts, dirk vs random
// (the candidate in one seat, the opponent policy in all others). Prints a Markdown table:
// the candidate's win rate (shared wins count 1/k) and mean score, each with its 95%
// interval, against the fair share 1/seats; and the learned policy's mean time per move.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "engine/core/registry.h"
#include "learn/ismcts.h"
#include "learn/learned_policy.h"
#include "learn/rollout.h"
#include "policy/dirk/dirk.h"

ABSL_FLAG(std::string, weights, "weights", "the learned bot's weights folder");
ABSL_FLAG(std::string, games, "", "comma-separated games (empty: every game with weights)");
ABSL_FLAG(int, players, 4, "player count of every table");
ABSL_FLAG(int, games_per_matchup, 2000, "seeded games per matchup and game");
ABSL_FLAG(std::string, matchups, "learned-dirk,learned-random,learned-ismcts,dirk-random",
          "candidate-opponent pairs of learned, dirk, random, ismcts, rollout (Dirk improved by "
          "paired rollouts, learn/rollout.h)");
ABSL_FLAG(int, ismcts_iterations, 100, "ismcts: iterations per move");
ABSL_FLAG(std::string, ismcts_iterations_for, "",
          "per-game ismcts iterations overriding --ismcts_iterations, e.g. morgenland=10,mercado=30");
ABSL_FLAG(int, rollout_worlds, 16, "rollout: resampled worlds per decision");
ABSL_FLAG(int, rollout_candidates, 0, "rollout: moves compared per decision, Dirk's included (0: all)");
ABSL_FLAG(double, rollout_min_z, 0, "rollout: standard errors a gain must exceed to leave Dirk's move");
ABSL_FLAG(int, threads, 2, "games played at once");
ABSL_FLAG(uint64_t, seed, 20261122, "seed of the first deal");
ABSL_FLAG(std::string, out, "", "also write the table to this file");

namespace {

using gavel::learn::Policy;

// Counts the time a policy spends deciding.
struct Timed {
  std::atomic<int64_t> nanoseconds{0};
  std::atomic<int64_t> decisions{0};
  Policy Wrap(Policy inner) {
    return [this, inner = std::move(inner)](const gavel::policy::Turn& turn) {
      const auto start = std::chrono::steady_clock::now();
      auto move = inner(turn);
      nanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start).count();
      ++decisions;
      return move;
    };
  }
};

int IsmctsIterations(const std::string& game) {
  for (absl::string_view entry :
       absl::StrSplit(absl::GetFlag(FLAGS_ismcts_iterations_for), ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> pair = absl::StrSplit(entry, absl::MaxSplits('=', 1));
    int iterations = 0;
    if (pair.first == game && absl::SimpleAtoi(pair.second, &iterations)) return iterations;
  }
  return absl::GetFlag(FLAGS_ismcts_iterations);
}

// A policy's name in the table: ismcts with its budget.
std::string Label(const std::string& name, const std::string& game) {
  if (name == "rollout") return absl::StrFormat("rollout (%d worlds)", absl::GetFlag(FLAGS_rollout_worlds));
  return name == "ismcts" ? absl::StrFormat("ismcts (%d it.)", IsmctsIterations(game)) : name;
}

absl::StatusOr<Policy> MakePolicy(const std::string& name, const gavel::Game& game,
                                  const gavel::learn::LearnedPolicy& learned, Timed& timer) {
  if (name == "learned") return timer.Wrap(learned.AsPolicy());
  if (name == "dirk") return gavel::policy::dirk::Dirk(game.name());
  if (name == "random") return gavel::learn::RandomPolicy();
  if (name == "rollout") {
    auto dirk = gavel::policy::dirk::Dirk(game.name());
    if (!dirk.ok()) return dirk.status();
    gavel::learn::RolloutOptions options;
    options.worlds = absl::GetFlag(FLAGS_rollout_worlds);
    options.candidates = absl::GetFlag(FLAGS_rollout_candidates);
    options.min_z = absl::GetFlag(FLAGS_rollout_min_z);
    return gavel::learn::RolloutPolicy(game, *dirk, options);
  }
  if (name == "ismcts") {
    gavel::learn::IsmctsOptions options;
    options.iterations = IsmctsIterations(game.name());
    return gavel::learn::IsmctsPolicy(game, options);
  }
  return absl::InvalidArgumentError("unknown policy " + name);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto learned = gavel::learn::LearnedPolicy::Load(absl::GetFlag(FLAGS_weights));
  if (!learned.ok()) {
    std::fprintf(stderr, "%s\n", learned.status().ToString().c_str());
    return 2;
  }
  std::vector<std::string> games = absl::StrSplit(absl::GetFlag(FLAGS_games), ',', absl::SkipEmpty());
  if (games.empty()) games = (*learned)->Games();
  const int players = absl::GetFlag(FLAGS_players);
  const int count = absl::GetFlag(FLAGS_games_per_matchup);
  std::string table = absl::StrFormat(
      "%d seats; %d games per row (seats rotated over each seeded deal); seed %d\n\n"
      "| Game | Candidate | Opponents | Win rate (95%% CI) | Fair share | Mean score (95%% CI) |\n"
      "|---|---|---|---|---|---|\n",
      players, count, absl::GetFlag(FLAGS_seed));
  std::string timing;
  for (const std::string& name : games) {
    const gavel::Game* game = gavel::FindGame(name);
    if (game == nullptr) {
      std::fprintf(stderr, "unknown game %s\n", name.c_str());
      return 2;
    }
    Timed timer;
    for (absl::string_view matchup : absl::StrSplit(absl::GetFlag(FLAGS_matchups), ',', absl::SkipEmpty())) {
      std::vector<std::string> pair = absl::StrSplit(matchup, '-');
      if (pair.size() != 2) {
        std::fprintf(stderr, "a matchup is candidate-opponent, not %s\n", std::string(matchup).c_str());
        return 2;
      }
      auto candidate = MakePolicy(pair[0], *game, **learned, timer);
      auto opponent = MakePolicy(pair[1], *game, **learned, timer);
      if (!candidate.ok() || !opponent.ok()) {
        std::fprintf(stderr, "%s\n", (candidate.ok() ? opponent : candidate).status().ToString().c_str());
        return 2;
      }
      std::fprintf(stderr, "%s: %s vs %s, %d games...\n", name.c_str(), pair[0].c_str(),
                   pair[1].c_str(), count);
      const auto start = std::chrono::steady_clock::now();
      auto result = gavel::learn::Evaluate(*game, players, {}, *candidate, *opponent, count,
                                           absl::GetFlag(FLAGS_seed), absl::GetFlag(FLAGS_threads));
      if (!result.ok()) {
        std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
        return 1;
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::string row = absl::StrFormat(
          "| %s | %s | %s | %.3f (%.3f–%.3f) | %.3f | %.2f (%.2f–%.2f) |\n", name, Label(pair[0], name),
          Label(pair[1], name),
          result->win_rate, result->win_rate - result->win_rate_ci95,
          result->win_rate + result->win_rate_ci95, 1.0 / players, result->mean_score,
          result->mean_score - result->mean_score_ci95, result->mean_score + result->mean_score_ci95);
      std::fprintf(stderr, "%s  (%.0f s)\n", row.c_str(), seconds);
      table += row;
    }
    if (timer.decisions > 0)
      timing += absl::StrFormat("- %s: learned decides in %.1f µs per move on average (%d moves)\n",
                                name, timer.nanoseconds / 1e3 / timer.decisions,
                                timer.decisions.load());
  }
  table += "\n" + timing;
  std::printf("%s", table.c_str());
  if (!absl::GetFlag(FLAGS_out).empty()) std::ofstream(absl::GetFlag(FLAGS_out)) << table;
  return 0;
}
