// gavel-train: trains a learned policy for one game by self-play and saves its weights.
//
//   gavel-train --game=sultan --players=4 --seed=1 --episodes=20000 --out=weights/sultan-4p.gmlp
//
// Same flags, same seed: the same weights (training is single-threaded and seeded).
// Progress goes to stderr; each evaluation against random is a line of --curve (CSV).
#include <cstdio>
#include <fstream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "engine/core/registry.h"
#include "learn/trainer.h"

ABSL_FLAG(std::string, game, "sultan", "game to train");
ABSL_FLAG(int, players, 4, "player count");
ABSL_FLAG(std::string, options, "", "game options, name=value,name=value");
ABSL_FLAG(uint64_t, seed, 1, "training seed");
ABSL_FLAG(int, episodes, 20000, "self-play games");
ABSL_FLAG(std::string, hidden, "128,64", "hidden layer sizes");
ABSL_FLAG(int, eval_every, 2000, "episodes between evaluations against random");
ABSL_FLAG(int, eval_games, 400, "games per evaluation");
ABSL_FLAG(std::string, out, "", "where to save the weights");
ABSL_FLAG(std::string, curve, "", "CSV file for the evaluation curve (optional)");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const gavel::Game* game = gavel::FindGame(absl::GetFlag(FLAGS_game));
  if (game == nullptr) {
    std::fprintf(stderr, "unknown game %s\n", absl::GetFlag(FLAGS_game).c_str());
    return 2;
  }
  gavel::learn::TrainConfig config;
  config.players = absl::GetFlag(FLAGS_players);
  config.seed = absl::GetFlag(FLAGS_seed);
  config.episodes = absl::GetFlag(FLAGS_episodes);
  config.eval_every = absl::GetFlag(FLAGS_eval_every);
  config.eval_games = absl::GetFlag(FLAGS_eval_games);
  for (absl::string_view pair : absl::StrSplit(absl::GetFlag(FLAGS_options), ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (parts.size() == 2) config.options[parts[0]] = parts[1];
  }
  config.hidden.clear();
  for (absl::string_view size : absl::StrSplit(absl::GetFlag(FLAGS_hidden), ',', absl::SkipEmpty())) {
    int value = 0;
    if (absl::SimpleAtoi(size, &value) && value > 0) config.hidden.push_back(value);
  }
  if (auto probe = game->NewGame(config.players, 1, config.options); !probe.ok()) {
    std::fprintf(stderr, "%s\n", probe.status().ToString().c_str());
    return 2;
  }
  std::ofstream curve;
  if (!absl::GetFlag(FLAGS_curve).empty()) {
    curve.open(absl::GetFlag(FLAGS_curve));
    curve << "episode,win_rate_vs_random,ci95,mean_reward,loss\n";
  }
  gavel::learn::Trainer trainer(*game, config);
  const auto status = trainer.Run([&](const gavel::learn::TrainProgress& progress) {
    const int width = 40;
    const int filled = width * progress.episode / config.episodes;
    std::fprintf(stderr, "\r[%s%s] %d/%d loss %.4f", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), progress.episode, config.episodes,
                 progress.loss);
    if (progress.evaluated) {
      std::fprintf(stderr, "\n  episode %d: win rate vs random %.3f +- %.3f (fair share %.3f)\n",
                   progress.episode, progress.vs_random.win_rate, progress.vs_random.win_rate_ci95,
                   1.0 / config.players);
      if (curve.is_open())
        curve << progress.episode << "," << progress.vs_random.win_rate << ","
              << progress.vs_random.win_rate_ci95 << "," << progress.vs_random.mean_reward << ","
              << progress.loss << "\n";
    }
  });
  std::fprintf(stderr, "\n");
  if (!status.ok()) {
    std::fprintf(stderr, "training failed: %s\n", status.ToString().c_str());
    return 1;
  }
  if (!absl::GetFlag(FLAGS_out).empty()) {
    if (auto saved = trainer.policy().network().Save(absl::GetFlag(FLAGS_out)); !saved.ok()) {
      std::fprintf(stderr, "%s\n", saved.ToString().c_str());
      return 1;
    }
    std::fprintf(stderr, "weights saved to %s\n", absl::GetFlag(FLAGS_out).c_str());
  }
  return 0;
}
