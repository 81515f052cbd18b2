// gavel-eval: in-process evaluation of the bots' policies, with seeded deals and the
// candidate's seat rotated through every seat of each deal.
//
//   gavel-eval --weights=weights --games_per_matchup=2000 --ismcts_iterations=100
//              --ismcts_iterations_for=mercado=30,morgenland=10 --threads=2
//
// For every game: learned vs dirk, learned vs random, learned vs ismcts, dirk vs random
// (the candidate in one seat, the opponent policy in all others). Prints a Markdown table:
// the candidate's win rate (shared wins count 1/k) with its Wilson 95% interval, as the arena
// shows it, and mean score with its normal 95% interval, against the fair share 1/seats;
// and the learned policy's mean time per move.
//
// With --field: a field evaluation instead (learn/field.h), e.g.
//   gavel-eval --field=learned,dirk,ismcts:100,ismcts:1000,random --field_deals=100
// mixed tables of the field at every player count of each game (or --field_players), seats
// rotated over each deal: each policy's rating (mu - 3 sigma, the arena's Weng-Lin), win rate
// and mean score with 95% intervals; then head-to-head rows at the same table sizes: the
// first policy of the field against copies of each other one.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "engine/core/registry.h"
#include "learn/field.h"
#include "learn/ismcts.h"
#include "learn/learned_policy.h"
#include "learn/named_policy.h"
#include "learn/rollout.h"
#include "learn/search_policy.h"
#include "service/arena/rating.h"

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
ABSL_FLAG(std::string, rollout_base, "dirk",
          "rollout: the policy whose choice is improved and that plays the worlds out "
          "(dirk, random, ismcts:N, learned:<weights file>, or learned: the learned bot, whose "
          "network's best scored moves are then the other candidates)");
ABSL_FLAG(std::string, rollout_playouts, "",
          "rollout: the policy playing the compared moves' worlds out (empty: --rollout_base)");
ABSL_FLAG(int, rollout_worlds, 16, "rollout: resampled worlds per decision");
ABSL_FLAG(int, rollout_candidates, 0, "rollout: moves compared per decision, the base's included (0: all)");
ABSL_FLAG(int, rollout_first_worlds, 0,
          "rollout: > 0: after this many worlds the rest only where a candidate leads the base's move");
ABSL_FLAG(double, rollout_min_z, 0, "rollout: standard errors a gain must exceed to leave the base's move");
ABSL_FLAG(double, search_ms, 10, "search: time per decision in ms");
ABSL_FLAG(std::string, search_method, "",
          "search: ismcts or paired (paired rollouts by Dirk's rules); empty: the game's default "
          "(paired in Mercado, else ismcts)");
ABSL_FLAG(int, search_iterations, 0,
          "search: ISMCTS iterations per decision instead of --search_ms (reproducible on any machine)");
ABSL_FLAG(double, search_prior_weight, 1.0, "search: PUCT's weight of the network's priors");
ABSL_FLAG(double, search_choice_share, 0.5, "search: share of the prior on the learned bot's choice");
ABSL_FLAG(bool, search_learned_playouts, false, "search: the learned bot plays the play-outs");
ABSL_FLAG(int, search_playout_moves, -1,
          "search: moves a play-out runs before the scores so far decide (0: to the end; -1: the "
          "game's default)");
ABSL_FLAG(int, search_value_playout_moves, gavel::learn::SearchOptions::kValuePlayoutMoves,
          "search: with a value network for the table (<game>-<players>p.value in the weights), "
          "play-outs stop after this many moves and its values reward the seats (0: at the leaf; "
          "-1: value networks not used)");
ABSL_FLAG(int, threads, 2, "games played at once");
ABSL_FLAG(uint64_t, seed, 20261122, "seed of the first deal");
ABSL_FLAG(std::string, out, "", "also write the table to this file");
ABSL_FLAG(std::string, field, "",
          "comma-separated policies for a field evaluation (learned, search, dirk, random, rollout, ismcts, "
          "ismcts:N for N iterations, ismcts:N/M with play-outs cut after M moves, or learned:<weights "
          "file> for one network); empty: the matchups instead");
ABSL_FLAG(std::string, field_players, "", "comma-separated table sizes (empty: every count the game allows)");
ABSL_FLAG(int, field_deals, 100, "deals per table size, each played once per seat rotation");
ABSL_FLAG(bool, field_head_to_head, true,
          "after each field table, the first policy against copies of each other one");

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

gavel::learn::SearchOptions SearchOptionsOfFlags() {
  gavel::learn::SearchOptions options{.time_ms = absl::GetFlag(FLAGS_search_ms),
                                      .iterations = absl::GetFlag(FLAGS_search_iterations),
                                      .prior_weight = absl::GetFlag(FLAGS_search_prior_weight),
                                      .choice_share = absl::GetFlag(FLAGS_search_choice_share),
                                      .playout_moves = absl::GetFlag(FLAGS_search_playout_moves),
                                      .learned_playouts = absl::GetFlag(FLAGS_search_learned_playouts),
                                      .value_playout_moves = absl::GetFlag(FLAGS_search_value_playout_moves)};
  if (const std::string method = absl::GetFlag(FLAGS_search_method); method == "ismcts")
    options.method = gavel::learn::SearchMethod::kIsmcts;
  else if (method == "paired")
    options.method = gavel::learn::SearchMethod::kPairedRollouts;
  return options;
}

// A policy's name in the table: ismcts with its budget.
std::string Label(const std::string& name, const std::string& game, const gavel::learn::LearnedPolicy& learned) {
  if (name == "rollout") {
    const std::string playouts = absl::GetFlag(FLAGS_rollout_playouts);
    const int candidates = absl::GetFlag(FLAGS_rollout_candidates);
    const double min_z = absl::GetFlag(FLAGS_rollout_min_z);
    const int first_worlds = absl::GetFlag(FLAGS_rollout_first_worlds);
    return absl::StrCat("rollout (", absl::GetFlag(FLAGS_rollout_base),
                        playouts.empty() ? "" : absl::StrCat(", played out by ", playouts), ", ",
                        first_worlds > 0 ? absl::StrCat(first_worlds, " worlds, up to ") : "",
                        absl::GetFlag(FLAGS_rollout_worlds), " worlds",
                        first_worlds > 0 ? " where a candidate leads" : "",
                        candidates > 0 ? absl::StrCat(", ", candidates, " candidates") : "",
                        min_z > 0 ? absl::StrCat(", gain above ", min_z, " standard errors") : "", ")");
  }
  if (const gavel::learn::SearchOptions search = SearchOptionsOfFlags();
      name == "search" && search.MethodIn(game) == gavel::learn::SearchMethod::kPairedRollouts)
    return absl::StrFormat("search (paired rollouts by Dirk's rules, %d worlds, up to %d where the network's runner-up leads)",
                           search.paired_first_worlds, search.paired_worlds);
  if (name == "search") {
    const int iterations = absl::GetFlag(FLAGS_search_iterations);
    const std::string budget = iterations > 0 ? absl::StrFormat("%d it.", iterations)
                                              : absl::StrFormat("%g ms", absl::GetFlag(FLAGS_search_ms));
    if (const int value_moves = absl::GetFlag(FLAGS_search_value_playout_moves);
        value_moves >= 0 && learned.HasValueNetworks(game))
      return absl::StrFormat("search (%s, value networks after %d play-out moves)", budget, value_moves);
    const int playout_moves =
        gavel::learn::SearchOptions{.playout_moves = absl::GetFlag(FLAGS_search_playout_moves)}.PlayoutMovesIn(game);
    return playout_moves > 0 ? absl::StrFormat("search (%s, play-outs of %d moves)", budget, playout_moves)
                             : absl::StrFormat("search (%s)", budget);
  }
  if (absl::StartsWith(name, "ismcts")) {  // "ismcts" alone: the flags' budget for the game
    const std::optional<gavel::learn::IsmctsOptions> options = gavel::learn::IsmctsOptionsNamed(name);
    const int iterations = options ? options->iterations : IsmctsIterations(game);
    if (options && options->playout_moves > 0)
      return absl::StrFormat("ismcts (%d it., play-outs of %d moves)", iterations, options->playout_moves);
    return absl::StrFormat("ismcts (%d it.)", iterations);
  }
  return name;
}

// The rollout policy of the flags. With the learned bot as its base, the network's best
// scored moves are the candidates beside its choice.
absl::StatusOr<Policy> MakeRolloutPolicy(const gavel::Game& game, const gavel::learn::LearnedPolicy& learned) {
  const std::string base_name = absl::GetFlag(FLAGS_rollout_base);
  gavel::learn::RolloutOptions options;
  options.worlds = absl::GetFlag(FLAGS_rollout_worlds);
  options.candidates = absl::GetFlag(FLAGS_rollout_candidates);
  options.min_z = absl::GetFlag(FLAGS_rollout_min_z);
  options.first_worlds = absl::GetFlag(FLAGS_rollout_first_worlds);
  if (const std::string playouts = absl::GetFlag(FLAGS_rollout_playouts); !playouts.empty()) {
    auto policy = gavel::learn::PolicyNamed(playouts, game);
    if (!policy.ok()) return policy.status();
    options.playouts = *std::move(policy);
  }
  if (base_name == "learned") {
    options.scores = [&learned](const gavel::policy::Turn& turn) { return learned.Scores(turn); };
    return gavel::learn::RolloutPolicy(game, learned.AsPolicy(), options);
  }
  auto base = gavel::learn::PolicyNamed(base_name, game);
  if (!base.ok()) return base.status();
  return gavel::learn::RolloutPolicy(game, *base, options);
}

absl::StatusOr<Policy> MakePolicy(const std::string& name, const gavel::Game& game,
                                  const gavel::learn::LearnedPolicy& learned) {
  if (name == "learned") return learned.AsPolicy();
  if (name == "search") return gavel::learn::SearchPolicy(learned, SearchOptionsOfFlags());
  if (name == "rollout") return MakeRolloutPolicy(game, learned);
  if (name == "ismcts")
    return gavel::learn::PolicyNamed(absl::StrCat("ismcts:", IsmctsIterations(game.name())), game);
  return gavel::learn::PolicyNamed(name, game);
}

std::string ScoreInterval(double mean, double half) {
  return absl::StrFormat("%.2f (%.2f–%.2f)", mean, mean - half, mean + half);
}

// A win rate over `n` seats with its Wilson interval, as the arena's standings show it.
std::string WinRateInterval(double rate, int n) {
  const auto [low, high] = gavel::arena::WilsonInterval(rate, n);
  return absl::StrFormat("%.3f (%.3f–%.3f)", rate, low, high);
}

// Appends a finished part of the tables to `out` and shows it at once, so that a run stopped
// early keeps what it has measured.
void Report(const std::string& part, std::string& out) {
  std::fprintf(stderr, "%s", part.c_str());
  out += part;
}

// The pairwise places behind the ratings: how often each row's policy placed above each
// column's at the tables both sat at. Columns by the field's short names, rows in rating order.
std::string PlacesTable(const std::vector<std::string>& names,
                        const std::vector<gavel::learn::FieldRow>& rows, int players) {
  std::string table = absl::StrFormat(
      "\nPlaced above, %d players: the share of the matches two policies shared in which the row's "
      "placed above the column's (a tie counts half; matches shared in brackets)\n\n| Policy |",
      players);
  for (const std::string& name : names) absl::StrAppend(&table, " ", name, " |");
  absl::StrAppend(&table, "\n|---|");
  for (size_t column = 0; column < names.size(); ++column) absl::StrAppend(&table, "---|");
  absl::StrAppend(&table, "\n");
  for (const gavel::learn::FieldRow& row : rows) {
    absl::StrAppend(&table, "| ", row.name, " |");
    for (size_t other = 0; other < names.size(); ++other) {
      const int met = other < row.met.size() ? row.met[other] : 0;
      absl::StrAppend(&table, met == 0 ? " — |" : absl::StrFormat(" %.3f (%d) |", row.placed_above[other], met));
    }
    absl::StrAppend(&table, "\n");
  }
  return table;
}

// The field's tables for one game at each table size, then the head-to-head rows.
absl::StatusOr<std::string> FieldTables(const gavel::Game& game, const gavel::learn::LearnedPolicy& learned) {
  const std::vector<std::string> names = absl::StrSplit(absl::GetFlag(FLAGS_field), ',', absl::SkipEmpty());
  std::vector<gavel::learn::FieldEntry> field;
  for (const std::string& name : names) {
    auto policy = MakePolicy(name, game, learned);
    if (!policy.ok()) return policy.status();
    field.push_back({Label(name, game.name(), learned), *std::move(policy)});
  }
  std::vector<int> sizes;
  for (absl::string_view text : absl::StrSplit(absl::GetFlag(FLAGS_field_players), ',', absl::SkipEmpty())) {
    int players = 0;
    if (!absl::SimpleAtoi(text, &players)) return absl::InvalidArgumentError("--field_players wants numbers");
    if (players >= game.info().min_players && players <= game.info().max_players) sizes.push_back(players);
  }
  if (absl::GetFlag(FLAGS_field_players).empty())
    for (int players = game.info().min_players; players <= game.info().max_players; ++players)
      sizes.push_back(players);
  std::string out;
  for (int players : sizes) {
    gavel::learn::FieldOptions options;
    options.players = players;
    options.deals = absl::GetFlag(FLAGS_field_deals);
    options.seed = absl::GetFlag(FLAGS_seed);
    options.threads = absl::GetFlag(FLAGS_threads);
    std::fprintf(stderr, "%s: field at %d players, %d matches...\n", game.name().c_str(), players,
                 options.deals * players);
    auto rows = gavel::learn::EvaluateField(game, field, options);
    if (!rows.ok()) return rows.status();
    std::string table = absl::StrFormat(
        "\n%s, %d players: %d matches (%d deals, seats rotated, cyclic order changing by deal); fair share %.3f\n\n"
        "| Policy | Rating μ − 3σ (μ ± σ) | Order-free fit μ − 3σ (μ ± σ) | Seats | Win rate (95%% CI) | "
        "Mean score (95%% CI) |\n|---|---|---|---|---|---|\n",
        game.name(), players, options.deals * players, options.deals, 1.0 / players);
    for (const gavel::learn::FieldRow& row : *rows)
      absl::StrAppendFormat(&table, "| %s | %.2f (%.2f ± %.2f) | %.2f (%.2f ± %.2f) | %d | %s | %s |\n", row.name,
                            row.rating.conservative(), row.rating.mu, row.rating.sigma,
                            row.fitted.conservative(), row.fitted.mu, row.fitted.sigma, row.seats,
                            WinRateInterval(row.win_rate, row.seats),
                            ScoreInterval(row.mean_score, row.mean_score_ci95));
    Report(table, out);
    Report(PlacesTable(names, *rows, players), out);
    if (!absl::GetFlag(FLAGS_field_head_to_head)) continue;
    Report(absl::StrFormat("\nHead to head, %d players: %s in one seat, copies of the opponent in the "
                           "others (%d games each)\n\n| Opponent | Win rate (95%% CI) | Mean score (95%% CI) |\n"
                           "|---|---|---|\n", players, field[0].name, options.deals * players),
           out);
    for (size_t opponent = 1; opponent < field.size(); ++opponent) {
      auto result = gavel::learn::Evaluate(game, players, {}, field[0].policy, field[opponent].policy,
                                           options.deals * players, options.seed, options.threads);
      if (!result.ok()) return result.status();
      Report(absl::StrFormat("| %s | %s | %s |\n", field[opponent].name,
                             WinRateInterval(result->win_rate, result->games),
                             ScoreInterval(result->mean_score, result->mean_score_ci95)),
             out);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (const std::string method = absl::GetFlag(FLAGS_search_method);
      !method.empty() && method != "ismcts" && method != "paired") {
    std::fprintf(stderr, "--search_method is ismcts or paired, not %s\n", method.c_str());
    return 2;
  }
  auto learned = gavel::learn::LearnedPolicy::Load(absl::GetFlag(FLAGS_weights));
  if (!learned.ok()) {
    std::fprintf(stderr, "%s\n", learned.status().ToString().c_str());
    return 2;
  }
  std::vector<std::string> names = absl::StrSplit(absl::GetFlag(FLAGS_games), ',', absl::SkipEmpty());
  if (names.empty()) names = (*learned)->Games();
  std::vector<const gavel::Game*> games;
  for (const std::string& name : names) {
    games.push_back(gavel::FindGame(name));
    if (games.back() == nullptr) {
      std::fprintf(stderr, "unknown game %s\n", name.c_str());
      return 2;
    }
  }
  if (!absl::GetFlag(FLAGS_field).empty()) {
    std::string tables;
    for (const gavel::Game* game : games) {
      auto field = FieldTables(*game, **learned);
      if (!field.ok()) {
        std::fprintf(stderr, "%s\n", field.status().ToString().c_str());
        return 1;
      }
      tables += *field;
    }
    std::printf("%s", tables.c_str());
    if (!absl::GetFlag(FLAGS_out).empty()) std::ofstream(absl::GetFlag(FLAGS_out)) << tables;
    return 0;
  }
  const int players = absl::GetFlag(FLAGS_players);
  const int count = absl::GetFlag(FLAGS_games_per_matchup);
  std::string table = absl::StrFormat(
      "%d seats; %d games per row (seats rotated over each seeded deal); seed %d\n\n"
      "| Game | Candidate | Opponents | Win rate (95%% CI) | Fair share | Mean score (95%% CI) |\n"
      "|---|---|---|---|---|---|\n",
      players, count, absl::GetFlag(FLAGS_seed));
  std::string timing;
  for (const gavel::Game* game : games) {
    const std::string& name = game->name();
    std::map<std::string, Timed> timers;  // by policy name
    for (absl::string_view matchup : absl::StrSplit(absl::GetFlag(FLAGS_matchups), ',', absl::SkipEmpty())) {
      auto pair = gavel::learn::SplitMatchup(matchup, [&](const std::string& side) {
        return MakePolicy(side, *game, **learned).ok();
      });
      if (!pair.ok()) {
        std::fprintf(stderr, "%s\n", pair.status().ToString().c_str());
        return 2;
      }
      auto candidate = MakePolicy(pair->first, *game, **learned);
      auto opponent = MakePolicy(pair->second, *game, **learned);
      if (!candidate.ok() || !opponent.ok()) {
        std::fprintf(stderr, "%s\n", (candidate.ok() ? opponent : candidate).status().ToString().c_str());
        return 2;
      }
      std::fprintf(stderr, "%s: %s vs %s, %d games...\n", name.c_str(), pair->first.c_str(),
                   pair->second.c_str(), count);
      const auto start = std::chrono::steady_clock::now();
      auto result = gavel::learn::Evaluate(*game, players, {}, timers[pair->first].Wrap(*candidate),
                                           timers[pair->second].Wrap(*opponent), count,
                                           absl::GetFlag(FLAGS_seed), absl::GetFlag(FLAGS_threads));
      if (!result.ok()) {
        std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
        return 1;
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::string row = absl::StrFormat(
          "| %s | %s | %s | %s | %.3f | %s |\n", name, Label(pair->first, name, **learned),
          Label(pair->second, name, **learned),
          WinRateInterval(result->win_rate, result->games), 1.0 / players,
          ScoreInterval(result->mean_score, result->mean_score_ci95));
      std::fprintf(stderr, "%s  (%.0f s)\n", row.c_str(), seconds);
      table += row;
    }
    for (const auto& [policy, timer] : timers)
      if (timer.decisions > 0)
        timing += absl::StrFormat("- %s: %s decides in %.1f µs per move on average (%d moves)\n", name,
                                  policy, timer.nanoseconds / 1e3 / timer.decisions, timer.decisions.load());
  }
  table += "\n" + timing;
  std::printf("%s", table.c_str());
  if (!absl::GetFlag(FLAGS_out).empty()) std::ofstream(absl::GetFlag(FLAGS_out)) << table;
  return 0;
}
