// gavel-train: trains a learned policy for one game by self-play and saves its weights.
//
//   gavel-train --game=sultan --players=4 --seed=1 --episodes=20000
//               --out=weights/sultan-4p.gmlp --curve=weights/sultan-4p.curve.csv
//
// Same flags, same seed: the same weights (training is single-threaded and seeded;
// evaluations use their own seeds). Progress goes to stderr; every evaluation is a line of
// --curve (CSV). --out receives the network that evaluated best against the first of
// --eval_vs (Dirk by default), --out_last the last one.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "engine/core/registry.h"
#include "engine/core/status.h"
#include "learn/learned_policy.h"
#include "learn/named_policy.h"
#include "learn/policy_search.h"
#include "learn/trainer.h"
#include "learn/value_network.h"
#include "policy/dirk/dirk.h"

ABSL_FLAG(std::string, game, "sultan", "game to train");
ABSL_FLAG(bool, list_games, false, "print the games of this build, one a line, and exit");
ABSL_FLAG(std::string, method, "rollouts",
          "rollouts (paired rollouts of Dirk's games, see learn/trainer.h), imitation (of an ISMCTS "
          "teacher's root visits), selfplay, search (evolution strategies on a trained network's "
          "last layers, see learn/policy_search.h), value (a value network for the search bot, "
          "learn/value_network.h), or blend (--start's weights blended with --blend_with's)");
ABSL_FLAG(std::string, blend_with, "",
          "blend: the weights blended into --start's, of the same game, table and layout (e.g. an "
          "earlier stage's)");
ABSL_FLAG(double, blend_share, 0.5, "blend: --blend_with's share of every weight and bias, 0 to 1");
ABSL_FLAG(int, teacher_iterations, 1000, "imitation: the ISMCTS teacher's iterations per decision");
ABSL_FLAG(double, share_power, 1,
          "imitation: the teacher's visits are raised to this power before they become the targets "
          "(above 1 sharpens them towards its choice)");
ABSL_FLAG(std::string, start, "",
          "the trained weights (a file of this game and player count) training starts from instead "
          "of fresh ones; for search also 'dirk', a linear network that plays Dirk's advice (see "
          "AdviceFollowingNetwork)");
ABSL_FLAG(int, iterations, 40, "search: iterations");
ABSL_FLAG(int, pairs, 8, "search: antithetic pairs of perturbations per iteration");
ABSL_FLAG(int, search_games, 500, "search: games each perturbed policy plays per iteration");
ABSL_FLAG(int, search_layers, 1, "search: how many of the network's last layers are searched");
ABSL_FLAG(std::string, search_opponents, "dirk",
          "search: the population playing the other seats, mixed over seats and deals: dirk, random, "
          "ismcts:N, learned:<weights file> (comma-separated; a name given twice plays twice as often)");
ABSL_FLAG(double, sigma, 0.1,
          "search: perturbation of a weight, relative to its layer's RMS weight (absolute from --start=dirk)");
ABSL_FLAG(double, margin_sigma, 0.02, "search: perturbation of the advice margin");
ABSL_FLAG(int, search_move_features, 0,
          "search from --start=dirk: only the weights of the move's first N features and the advice bit");
ABSL_FLAG(double, search_step, 1.0, "search: step along the normalized gradient estimate, in sigmas");
ABSL_FLAG(std::string, rollout_base, "dirk",
          "rollouts and imitation: the policy playing the base games at every seat (dirk, random, "
          "ismcts:N, learned:<weights file>); in imitation the teacher plays the sampled decisions");
ABSL_FLAG(std::string, rollout_playouts, "",
          "rollouts: the policy playing the compared moves' worlds out (empty: --rollout_base)");
ABSL_FLAG(std::string, rollout_opponents, "",
          "rollouts: a population for the other seats of the base games (dirk, random, ismcts:N, "
          "learned:<weights file>, comma-separated; a name given twice sits twice as often); one seat plays --rollout_base and "
          "alone is compared. Empty: --rollout_base at every seat");
ABSL_FLAG(double, sample_rate, 0.5, "rollouts: share of the base games' decisions compared");
ABSL_FLAG(int, rollouts, 8, "rollouts: resampled worlds per compared decision");
ABSL_FLAG(int, candidates, 6, "rollouts: moves compared per decision, the advice included (0: all)");
ABSL_FLAG(int, network_candidates, 0,
          "rollouts: of those, the moves the current network rates highest (the rest are random)");
ABSL_FLAG(int, rollout_threads, 1, "rollouts: worlds played out at once (same weights for any count)");
ABSL_FLAG(double, target_min_z, 0,
          "rollouts: a positive gain over the advice under this many standard errors trains as 0");
ABSL_FLAG(std::string, value_population, "learned,dirk",
          "value: the policies at the played tables, one drawn per seat and game (learned: the "
          "networks in --value_weights)");
ABSL_FLAG(std::string, value_weights, "weights", "value: the learned bot's weights folder");
ABSL_FLAG(double, value_sample_rate, 0.05, "value: share of the states before a decision recorded");
ABSL_FLAG(int, epochs, 20, "value: passes over the samples");
ABSL_FLAG(int, players, 4, "player count");
ABSL_FLAG(std::string, options, "", "game options, name=value,name=value");
ABSL_FLAG(uint64_t, seed, 1, "training seed");
ABSL_FLAG(int, episodes, 20000, "self-play games");
ABSL_FLAG(std::string, hidden, "256,128", "hidden layer sizes");
ABSL_FLAG(double, learning_rate, 5e-4, "Adam step size");
ABSL_FLAG(double, sample_reuse, 4, "times each sample is drawn for training, on average");
ABSL_FLAG(int, train_steps, 0, "> 0: training batches per episode, instead of --sample_reuse");
ABSL_FLAG(std::string, advice, "dirk", "advisor whose choice is a move feature (dirk or none)");
ABSL_FLAG(std::string, guide, "dirk",
          "policy taking a share of the learner's decisions early on (dirk, random, ismcts:N or none)");
ABSL_FLAG(double, guide_start, 0.8, "the guide's share of the learner's decisions at the start");
ABSL_FLAG(double, guide_end, 0.3, "... and at the end (linear in between)");
ABSL_FLAG(double, epsilon_start, 0.1, "share of the learner's decisions played at random at the start");
ABSL_FLAG(double, epsilon_end, 0.02, "... and at the end");
ABSL_FLAG(double, dirk_opponents, 0.5, "share of opponent seats Dirk plays");
ABSL_FLAG(double, random_opponents, 0.1, "share of opponent seats played at random");
ABSL_FLAG(double, snapshot_opponents, 0.2, "share of opponent seats played by older snapshots");
ABSL_FLAG(std::string, eval_vs, "dirk",
          "opponents besides random to evaluate against (dirk, ismcts:N, learned:<weights file>, "
          "comma-separated, or empty); the first selects the kept network and tunes its margin");
ABSL_FLAG(std::string, eval_population, "",
          "a population mixed over the other seats of the evaluation that selects the kept network "
          "and tunes its margin, before the --eval_vs opponents (names as for --eval_vs, "
          "comma-separated; a name given twice sits twice as often). Empty: --rollout_opponents");
ABSL_FLAG(std::string, tune_population, "",
          "a population mixed over the other seats of the margin tuning (names as for "
          "--eval_population). Empty: the opponents of the evaluation that selects the kept network");
ABSL_FLAG(int, eval_every, 2000, "episodes between evaluations");
ABSL_FLAG(int, eval_games, 400, "games per evaluation");
ABSL_FLAG(int, eval_threads, 1, "threads for evaluations");
ABSL_FLAG(double, margin, 0.05, "advice margin while training (see learn/q_policy.h)");
ABSL_FLAG(std::string, tune_margins, "0,0.02,0.05,0.1,0.2,1",
          "margins tried on the best network at the end; the best is saved with it");
ABSL_FLAG(int, tune_games, 1000, "games per margin tried");
ABSL_FLAG(std::string, out, "", "where to save the best weights");
ABSL_FLAG(std::string, out_last, "", "where to save the last weights (optional)");
ABSL_FLAG(std::string, curve, "", "CSV file for the evaluation curve (optional)");

namespace {

using gavel::learn::NamedPolicy;

absl::StatusOr<NamedPolicy> Named(const std::string& name, const gavel::Game& game) {
  auto policy = gavel::learn::PolicyNamed(name, game);
  if (!policy.ok()) return policy.status();
  return NamedPolicy{name, *std::move(policy)};
}

// A comma-separated list of policy names (empty: none).
absl::StatusOr<std::vector<NamedPolicy>> NamedList(const std::string& names, const gavel::Game& game) {
  std::vector<NamedPolicy> policies;
  for (absl::string_view name : absl::StrSplit(names, ',', absl::SkipEmpty())) {
    auto policy = Named(std::string(name), game);
    if (!policy.ok()) return policy.status();
    policies.push_back(*std::move(policy));
  }
  return policies;
}

absl::Status ParseOptions(const std::string& text, gavel::OptionMap* options) {
  for (absl::string_view pair : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (parts.size() != 2) return absl::InvalidArgumentError("--options wants name=value pairs");
    (*options)[parts[0]] = parts[1];
  }
  return absl::OkStatus();
}

absl::Status ParseHidden(std::vector<int>* hidden) {
  hidden->clear();
  for (absl::string_view size : absl::StrSplit(absl::GetFlag(FLAGS_hidden), ',', absl::SkipEmpty())) {
    int value = 0;
    if (!absl::SimpleAtoi(size, &value) || value <= 0)
      return absl::InvalidArgumentError("--hidden wants positive layer sizes");
    hidden->push_back(value);
  }
  return absl::OkStatus();
}

// --start for the regression methods: a network of this game and player count whose input
// fits this training's (the same advice and feature layout).
absl::StatusOr<gavel::learn::Mlp> StartNetwork(const gavel::Game& game, const std::string& path,
                                               const gavel::learn::TrainConfig& config) {
  if (path == "dirk") return absl::InvalidArgumentError("--start=dirk is for --method=search");
  auto trained = gavel::learn::LoadTrainedNetwork(game, path);
  if (!trained.ok()) return trained.status();
  if (trained->players != config.players)
    return absl::FailedPreconditionError(absl::StrCat(path, " was trained for ", trained->players,
                                                      " players, not ", config.players));
  const int inputs = gavel::learn::TrainingInputSize(game, config);
  if (trained->policy.network().input_size() != inputs)
    return absl::FailedPreconditionError(absl::StrCat(path, "'s network takes ", trained->policy.network().input_size(),
                                                      " inputs, this training's ", inputs,
                                                      " (another --advice or feature layout)"));
  return trained->policy.network();
}

absl::StatusOr<gavel::learn::TrainConfig> ConfigFromFlags(const gavel::Game& game) {
  gavel::learn::TrainConfig config;
  config.players = absl::GetFlag(FLAGS_players);
  const std::string method = absl::GetFlag(FLAGS_method);
  if (method == "rollouts" || method == "imitation") {
    config.method = method == "rollouts" ? gavel::learn::TrainMethod::kRollouts
                                         : gavel::learn::TrainMethod::kImitation;
    config.teacher.iterations = absl::GetFlag(FLAGS_teacher_iterations);
    config.share_power = absl::GetFlag(FLAGS_share_power);
    if (config.share_power <= 0) return absl::InvalidArgumentError("--share_power must be positive");
    if (config.teacher.iterations <= 0) return absl::InvalidArgumentError("--teacher_iterations must be positive");
    auto base = Named(absl::GetFlag(FLAGS_rollout_base), game);
    if (!base.ok()) return base.status();
    config.base = *base;
    if (!absl::GetFlag(FLAGS_rollout_playouts).empty()) {
      auto playouts = Named(absl::GetFlag(FLAGS_rollout_playouts), game);
      if (!playouts.ok()) return playouts.status();
      config.playouts = *playouts;
    }
    auto base_opponents = NamedList(absl::GetFlag(FLAGS_rollout_opponents), game);
    if (!base_opponents.ok()) return base_opponents.status();
    config.base_opponents = *std::move(base_opponents);
    config.sample_rate = absl::GetFlag(FLAGS_sample_rate);
    config.rollouts = absl::GetFlag(FLAGS_rollouts);
    config.candidates = absl::GetFlag(FLAGS_candidates);
    config.network_candidates = absl::GetFlag(FLAGS_network_candidates);
    config.rollout_threads = absl::GetFlag(FLAGS_rollout_threads);
    config.target_min_z = absl::GetFlag(FLAGS_target_min_z);
  } else if (method != "selfplay") {
    return absl::InvalidArgumentError("--method is rollouts, imitation, selfplay, search, value or blend");
  }
  config.seed = absl::GetFlag(FLAGS_seed);
  config.episodes = absl::GetFlag(FLAGS_episodes);
  config.learning_rate = static_cast<float>(absl::GetFlag(FLAGS_learning_rate));
  config.sample_reuse = absl::GetFlag(FLAGS_sample_reuse);
  config.train_steps_per_episode = absl::GetFlag(FLAGS_train_steps);
  config.random_opponents = absl::GetFlag(FLAGS_random_opponents);
  config.snapshot_opponents = absl::GetFlag(FLAGS_snapshot_opponents);
  config.epsilon_start = absl::GetFlag(FLAGS_epsilon_start);
  config.epsilon_end = absl::GetFlag(FLAGS_epsilon_end);
  config.advice_margin = absl::GetFlag(FLAGS_margin);
  config.eval_every = absl::GetFlag(FLAGS_eval_every);
  config.eval_games = absl::GetFlag(FLAGS_eval_games);
  config.eval_threads = absl::GetFlag(FLAGS_eval_threads);
  GAVEL_RETURN_IF_ERROR(ParseOptions(absl::GetFlag(FLAGS_options), &config.options));
  GAVEL_RETURN_IF_ERROR(ParseHidden(&config.hidden));
  if (absl::GetFlag(FLAGS_advice) == "dirk") {
    auto advisor = gavel::policy::dirk::Dirk(game.name());
    if (!advisor.ok()) return advisor.status();
    config.advisor_name = "dirk";
    config.advisor = *advisor;
  } else if (absl::GetFlag(FLAGS_advice) != "none") {
    return absl::InvalidArgumentError("--advice is dirk or none");
  }
  if (!absl::GetFlag(FLAGS_start).empty()) {
    auto start = StartNetwork(game, absl::GetFlag(FLAGS_start), config);
    if (!start.ok()) return start.status();
    config.start = *std::move(start);
  }
  if (absl::GetFlag(FLAGS_guide) != "none") {
    auto guide = Named(absl::GetFlag(FLAGS_guide), game);
    if (!guide.ok()) return guide.status();
    config.guide = *guide;
    config.guide_start = absl::GetFlag(FLAGS_guide_start);
    config.guide_end = absl::GetFlag(FLAGS_guide_end);
  }
  if (absl::GetFlag(FLAGS_dirk_opponents) > 0) {
    auto dirk = Named("dirk", game);
    if (!dirk.ok()) return dirk.status();
    config.extra_opponents.emplace_back(*dirk, absl::GetFlag(FLAGS_dirk_opponents));
  }
  auto eval_population = NamedList(absl::GetFlag(FLAGS_eval_population), game);
  if (!eval_population.ok()) return eval_population.status();
  config.eval_population = *std::move(eval_population);
  auto tune_population = NamedList(absl::GetFlag(FLAGS_tune_population), game);
  if (!tune_population.ok()) return tune_population.status();
  config.tune_population = *std::move(tune_population);
  auto eval_opponents = NamedList(absl::GetFlag(FLAGS_eval_vs), game);
  if (!eval_opponents.ok()) return eval_opponents.status();
  config.eval_opponents = *std::move(eval_opponents);
  return config;
}

// Progress bar on stderr: `done` of `total`, then `note`. Into a file or pipe (train.sh's
// logs when it trains several tables at once) only at each whole percent, one line each.
void ShowProgress(int done, int total, const std::string& note) {
  static const bool terminal = isatty(STDERR_FILENO);
  static int last_percent = -1;
  const int percent = 100 * done / std::max(1, total);
  if (!terminal && percent == last_percent) return;
  last_percent = percent;
  const int width = 40;
  const int filled = width * done / std::max(1, total);
  std::fprintf(stderr, "%s[%s%s] %d/%d %s%s", terminal ? "\r" : "", std::string(filled, '#').c_str(),
               std::string(width - filled, ' ').c_str(), done, total, note.c_str(), terminal ? "" : "\n");
}

void WriteCurveRow(std::ofstream& curve, const std::string& step, const std::string& opponent,
                   const gavel::learn::Evaluation& result, const std::string& loss) {
  if (!curve.is_open()) return;
  curve << step << "," << opponent << "," << result.games << "," << result.win_rate << ","
        << result.win_rate_ci95 << "," << result.mean_score << "," << result.mean_reward << "," << loss
        << "\n"
        << std::flush;
}

absl::Status Save(const gavel::learn::QPolicy& policy, const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  GAVEL_RETURN_IF_ERROR(policy.Save(path));
  std::fprintf(stderr, "weights saved to %s\n", path.c_str());
  return absl::OkStatus();
}

// --method=search: evolution strategies from --start against --search_opponents; saves the best
// policy.
int RunSearch(const gavel::Game& game, std::ofstream& curve) {
  auto advisor = gavel::policy::dirk::Dirk(game.name());
  if (!advisor.ok()) {
    std::fprintf(stderr, "no Dirk for %s\n", game.name().c_str());
    return 2;
  }
  const bool from_dirk = absl::GetFlag(FLAGS_start) == "dirk";
  gavel::OptionMap options;
  if (auto parsed = ParseOptions(absl::GetFlag(FLAGS_options), &options); !parsed.ok()) {
    std::fprintf(stderr, "%s\n", parsed.ToString().c_str());
    return 2;
  }
  auto start = from_dirk ? gavel::learn::AdviceFollowingNetwork(game, absl::GetFlag(FLAGS_players),
                                                                options, "dirk", *advisor)
                         : gavel::learn::QPolicy::Load(game, absl::GetFlag(FLAGS_start));
  if (!start.ok()) {
    std::fprintf(stderr, "%s\n", start.status().ToString().c_str());
    return 2;
  }
  start->set_advisor(*advisor);
  gavel::learn::SearchConfig config;
  config.players = absl::GetFlag(FLAGS_players);
  config.options = options;
  config.seed = absl::GetFlag(FLAGS_seed);
  config.sigma_absolute = from_dirk;
  config.move_features = absl::GetFlag(FLAGS_search_move_features);
  config.iterations = absl::GetFlag(FLAGS_iterations);
  config.pairs = absl::GetFlag(FLAGS_pairs);
  config.games = absl::GetFlag(FLAGS_search_games);
  config.layers = absl::GetFlag(FLAGS_search_layers);
  config.sigma = absl::GetFlag(FLAGS_sigma);
  config.margin_sigma = absl::GetFlag(FLAGS_margin_sigma);
  config.step = absl::GetFlag(FLAGS_search_step);
  config.eval_every = absl::GetFlag(FLAGS_eval_every);
  config.eval_games = absl::GetFlag(FLAGS_eval_games);
  config.threads = absl::GetFlag(FLAGS_eval_threads);
  auto opponents = gavel::learn::PoliciesNamed(absl::GetFlag(FLAGS_search_opponents), game);
  if (!opponents.ok()) {
    std::fprintf(stderr, "--search_opponents: %s\n", opponents.status().ToString().c_str());
    return 2;
  }
  config.opponents = *std::move(opponents);
  // The population's name in the curve: its members joined by '+' (the CSV's commas separate columns).
  const std::string population = absl::StrReplaceAll(absl::GetFlag(FLAGS_search_opponents), {{",", "+"}});
  gavel::learn::PolicySearch search(game, *std::move(start), std::move(config));
  const int iterations = absl::GetFlag(FLAGS_iterations);
  const auto status = search.Run([&](const gavel::learn::SearchProgress& progress) {
    ShowProgress(progress.iteration, iterations, absl::StrCat("fitness ", progress.mean_fitness));
    if (!progress.evaluation) return;
    const auto& result = *progress.evaluation;
    std::fprintf(stderr, "\n  iteration %d%s: vs %s %.3f +- %.3f; margin %.3f\n", progress.iteration,
                 progress.best_so_far ? " (best)" : "", population.c_str(), result.win_rate,
                 result.win_rate_ci95, search.current().advice_margin());
    WriteCurveRow(curve, absl::StrCat("iteration=", progress.iteration), population, result,
                  absl::StrCat(progress.mean_fitness));
  });
  std::fprintf(stderr, "\n");
  if (!status.ok()) {
    std::fprintf(stderr, "search failed: %s\n", status.ToString().c_str());
    return 1;
  }
  for (const auto& [policy, path] : {std::pair{&search.best(), absl::GetFlag(FLAGS_out)},
                                     std::pair{&search.current(), absl::GetFlag(FLAGS_out_last)}}) {
    if (auto saved = Save(*policy, path); !saved.ok()) {
      std::fprintf(stderr, "%s\n", saved.ToString().c_str());
      return 1;
    }
  }
  return 0;
}

// --method=blend: every weight (1 - share) of --start's plus --blend_share of --blend_with's
// (Mlp::Blend), with --start's advice margin; evaluated against --eval_vs and saved to --out.
int RunBlend(const gavel::Game& game, std::ofstream& curve) {
  auto fail = [](const absl::Status& status) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 2;
  };
  auto start = gavel::learn::LoadTrainedNetwork(game, absl::GetFlag(FLAGS_start));
  if (!start.ok()) return fail(start.status());
  auto with = gavel::learn::LoadTrainedNetwork(game, absl::GetFlag(FLAGS_blend_with));
  if (!with.ok()) return fail(with.status());
  if (start->players != with->players || start->policy.layout() != with->policy.layout() ||
      start->policy.AdvisorName() != with->policy.AdvisorName())
    return fail(absl::FailedPreconditionError("--start and --blend_with are not networks of one table and layout"));
  const double share = absl::GetFlag(FLAGS_blend_share);
  auto blended = gavel::learn::Mlp::Blend(start->policy.network(), with->policy.network(), static_cast<float>(share));
  if (!blended.ok()) return fail(blended.status());
  gavel::learn::QPolicy& policy = start->policy;
  policy.mutable_network() = *std::move(blended);
  policy.mutable_network().SetMetadataValue("blend_share", absl::StrCat(share));
  gavel::OptionMap options;
  if (auto parsed = ParseOptions(absl::GetFlag(FLAGS_options), &options); !parsed.ok()) return fail(parsed);
  auto opponents = NamedList(absl::GetFlag(FLAGS_eval_vs), game);
  if (!opponents.ok()) return fail(opponents.status());
  const gavel::policy::Policy candidate = [&policy](const gavel::policy::Turn& turn) { return policy.Choose(turn); };
  for (const NamedPolicy& opponent : *opponents) {
    auto result = gavel::learn::Evaluate(game, start->players, options, candidate, opponent.policy,
                                         absl::GetFlag(FLAGS_eval_games), absl::GetFlag(FLAGS_seed) * 7919 + 17,
                                         absl::GetFlag(FLAGS_eval_threads));
    if (!result.ok()) return fail(result.status());
    std::fprintf(stderr, "  blend %.3f: vs %s %.3f +- %.3f\n", share, opponent.name.c_str(), result->win_rate,
                 result->win_rate_ci95);
    WriteCurveRow(curve, absl::StrCat("blend=", share), opponent.name, *result, "");
  }
  if (auto saved = Save(policy, absl::GetFlag(FLAGS_out)); !saved.ok()) return fail(saved);
  return 0;
}

// --method=value's settings; "learned" in --value_population plays the networks of
// --value_weights, which `learned` then holds.
absl::StatusOr<gavel::learn::ValueTrainConfig> ValueConfigFromFlags(
    const gavel::Game& game, std::unique_ptr<gavel::learn::LearnedPolicy>& learned) {
  gavel::learn::ValueTrainConfig config;
  config.players = absl::GetFlag(FLAGS_players);
  GAVEL_RETURN_IF_ERROR(ParseOptions(absl::GetFlag(FLAGS_options), &config.options));
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_value_population), ',', absl::SkipEmpty())) {
    if (name == "learned") {
      if (!learned) {
        GAVEL_ASSIGN_OR_RETURN(learned, gavel::learn::LearnedPolicy::Load(absl::GetFlag(FLAGS_value_weights)));
      }
      config.population.push_back({"learned", learned->AsPolicy()});
      continue;
    }
    auto policy = Named(std::string(name), game);
    if (!policy.ok()) return policy.status();
    config.population.push_back(*std::move(policy));
  }
  config.seed = absl::GetFlag(FLAGS_seed);
  config.games = absl::GetFlag(FLAGS_episodes);
  config.sample_rate = absl::GetFlag(FLAGS_value_sample_rate);
  GAVEL_RETURN_IF_ERROR(ParseHidden(&config.hidden));
  config.epochs = absl::GetFlag(FLAGS_epochs);
  config.learning_rate = static_cast<float>(absl::GetFlag(FLAGS_learning_rate));
  config.threads = absl::GetFlag(FLAGS_eval_threads);
  return config;
}

// --method=value: a value network (learn/value_network.h) fitted to the places of --episodes
// games of --value_population; saved to --out.
int RunValue(const gavel::Game& game) {
  std::unique_ptr<gavel::learn::LearnedPolicy> learned;
  auto config = ValueConfigFromFlags(game, learned);
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 2;
  }
  gavel::learn::ValueFit fit;
  auto value = gavel::learn::TrainValueNetwork(game, *config, [](int epoch, const gavel::learn::ValueFit& fit) {
    std::fprintf(stderr, "epoch %d: mean squared error %.4f on %d training samples, %.4f on %d held out "
                 "(a constant: %.4f)\n", epoch, fit.train_mse, fit.train_samples, fit.holdout_mse,
                 fit.holdout_samples, fit.holdout_constant_mse);
  }, &fit);
  if (!value.ok()) {
    std::fprintf(stderr, "training failed: %s\n", value.status().ToString().c_str());
    return 1;
  }
  const std::string path = absl::GetFlag(FLAGS_out);
  if (path.empty()) return 0;
  if (auto saved = value->network().Save(path); !saved.ok()) {
    std::fprintf(stderr, "%s\n", saved.ToString().c_str());
    return 1;
  }
  std::fprintf(stderr, "value network saved to %s\n", path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_list_games)) {
    for (const std::string& name : gavel::GameNames()) std::printf("%s\n", name.c_str());
    return 0;
  }
  const gavel::Game* game = gavel::FindGame(absl::GetFlag(FLAGS_game));
  if (game == nullptr) {
    std::fprintf(stderr, "unknown game %s\n", absl::GetFlag(FLAGS_game).c_str());
    return 2;
  }
  std::ofstream curve;
  if (!absl::GetFlag(FLAGS_curve).empty()) {
    curve.open(absl::GetFlag(FLAGS_curve));
    curve << "episode,opponent,games,win_rate,ci95,mean_score,mean_reward,loss\n";
  }
  if (absl::GetFlag(FLAGS_method) == "search") return RunSearch(*game, curve);
  if (absl::GetFlag(FLAGS_method) == "value") return RunValue(*game);
  if (absl::GetFlag(FLAGS_method) == "blend") return RunBlend(*game, curve);
  auto config = ConfigFromFlags(*game);
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 2;
  }
  if (auto probe = game->NewGame(config->players, 1, config->options); !probe.ok()) {
    std::fprintf(stderr, "%s\n", probe.status().ToString().c_str());
    return 2;
  }
  const int episodes = config->episodes;
  const int players = config->players;
  gavel::learn::Trainer trainer(*game, *std::move(config));
  const auto status = trainer.Run([&](const gavel::learn::TrainProgress& progress) {
    ShowProgress(progress.episode, episodes, absl::StrCat("loss ", progress.loss));
    if (progress.evaluations.empty()) return;
    std::fprintf(stderr, "\n  episode %d%s:", progress.episode, progress.best_so_far ? " (best)" : "");
    for (const auto& [opponent, result] : progress.evaluations) {
      std::fprintf(stderr, " vs %s %.3f +- %.3f;", opponent.c_str(), result.win_rate,
                   result.win_rate_ci95);
      WriteCurveRow(curve, absl::StrCat(progress.episode), opponent, result, absl::StrCat(progress.loss));
    }
    std::fprintf(stderr, " fair share %.3f\n", 1.0 / players);
  });
  std::fprintf(stderr, "\n");
  if (!status.ok()) {
    std::fprintf(stderr, "training failed: %s\n", status.ToString().c_str());
    return 1;
  }
  if (!trainer.policy().AdvisorName().empty()) {
    std::vector<double> margins;
    for (absl::string_view text : absl::StrSplit(absl::GetFlag(FLAGS_tune_margins), ',', absl::SkipEmpty())) {
      double margin = 0;
      if (absl::SimpleAtod(text, &margin)) margins.push_back(margin);
    }
    if (!margins.empty()) {
      auto tuned = trainer.TuneMargin(margins, absl::GetFlag(FLAGS_tune_games));
      if (!tuned.ok()) {
        std::fprintf(stderr, "margin tuning failed: %s\n", tuned.status().ToString().c_str());
        return 1;
      }
      for (const auto& [margin, result] : *tuned) {
        std::fprintf(stderr, "  margin %.3f: win rate %.3f +- %.3f\n", margin, result.win_rate,
                     result.win_rate_ci95);
        WriteCurveRow(curve, absl::StrCat("margin=", margin), "tuning", result, "");
      }
      std::fprintf(stderr, "  kept margin %.3f\n", trainer.best().advice_margin());
    }
  }
  for (const auto& [policy, path] : {std::pair{&trainer.best(), absl::GetFlag(FLAGS_out)},
                                     std::pair{&trainer.policy(), absl::GetFlag(FLAGS_out_last)}}) {
    if (auto saved = Save(*policy, path); !saved.ok()) {
      std::fprintf(stderr, "%s\n", saved.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
