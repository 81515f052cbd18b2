#pragma once
// A value network: how a seat stands, from its own view's observation features — its
// expected place reward at the end (PlaceRewards: 1 for the best place, 0 for the worst).
// The search bot (learn/search_policy.h) asks it at the end of short play-outs where random
// play-outs to the end mislead; that is the "value" of AlphaZero's prior and value.
//
// Trained by regression on the final places of played games (gavel-train --method=value):
// at sampled states every seat's features are recorded with the place that seat reached.
// Files are Mlp files (learn/mlp.h) named `<game>-<players>p.value` beside the learned bot's
// networks, with the metadata kind=value, game, players, seed and the fit's figures.
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "learn/mlp.h"
#include "learn/trainer.h"

namespace gavel::learn {

class ValueNetwork {
 public:
  ValueNetwork(const Game& game, Mlp network) : game_(&game), network_(std::move(network)) {}
  // Loads a value file of `game`; an error names the file (another game's file, a file
  // that is not a value network, an input size this build's features do not make).
  static absl::StatusOr<ValueNetwork> Load(const Game& game, const std::string& path);

  // The player count it was trained for (metadata `players`).
  int players() const;
  // Whether `view` is of the table it was trained for (its player count and, once loaded,
  // its seats at the default options) and its features are as many as the network's inputs
  // (game options may change them).
  bool TrainedFor(const v1::View& view) const;
  // The value of the seat whose view this is, clamped to [0, 1].
  absl::StatusOr<double> Value(const v1::View& view) const;
  // Every seat's value in `state`, each from that seat's own view.
  absl::StatusOr<std::vector<double>> SeatValues(const State& state) const;

  const Mlp& network() const { return network_; }

 private:
  // The view's observation features, if they are as many as the network's inputs.
  absl::StatusOr<std::vector<float>> Inputs(const v1::View& view) const;

  const Game* game_;
  Mlp network_;
  int seats_ = 0;  // of the trained table, set by Load
};

struct ValueTrainConfig {
  int players = 0;
  OptionMap options;
  uint64_t seed = 1;
  int games = 2000;
  // The policies at the table: each game draws one member per deciding seat (a member named
  // twice sits twice as often).
  std::vector<NamedPolicy> population;
  double sample_rate = 0.05;  // of the states before each decision
  std::vector<int> hidden = {64};
  int epochs = 20;
  int batch = 256;
  float learning_rate = 1e-3f;
  double holdout = 0.1;  // the last games' share, never trained on: the fit is judged there
  int threads = 1;       // games played at once; the samples do not depend on it
};

// How well a value network fits: mean squared errors of its values on the training games
// and on the held-out games, and on the held-out games of the best constant (the training
// targets' mean), against which the network's must be lower for it to know anything.
struct ValueFit {
  int train_samples = 0, holdout_samples = 0;
  double train_mse = 0, holdout_mse = 0, holdout_constant_mse = 0;
};

// Plays config.games games and fits a network to their places. `progress(epoch, fit)` is
// called after each epoch.
absl::StatusOr<ValueNetwork> TrainValueNetwork(const Game& game, const ValueTrainConfig& config,
                                               const std::function<void(int, const ValueFit&)>& progress,
                                               ValueFit* fit);

}  // namespace gavel::learn
