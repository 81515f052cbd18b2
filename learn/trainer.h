#pragma once
// Self-play training of a Q(s, a) network (in the spirit of DouZero): episodes are played
// with the in-process engine, every decision of a learning seat is recorded as (view
// features + chosen move features), its target is that seat's final place reward, and the
// network regresses the targets (Monte-Carlo returns). Opponents mix the current network,
// older snapshots and random play; exploration is epsilon-greedy.
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/core/game.h"
#include "learn/play.h"
#include "learn/q_policy.h"

namespace gavel::learn {

struct TrainConfig {
  int players = 0;
  OptionMap options;
  uint64_t seed = 1;
  int episodes = 2000;
  std::vector<int> hidden = {128, 64};
  int batch = 256;
  float learning_rate = 1e-3f;
  int train_steps_per_episode = 2;
  int buffer_size = 200000;
  double epsilon_start = 0.3, epsilon_end = 0.02;
  double random_opponents = 0.2;    // share of opponent seats played at random
  double snapshot_opponents = 0.2;  // share played by an older snapshot
  int snapshot_every = 500;         // episodes between snapshots
  int eval_every = 500;             // episodes between evaluations against random
  int eval_games = 200;
  // Extra opponents (e.g. dirk) by share; each takes that share of opponent seats.
  std::vector<std::pair<Policy, double>> extra_opponents;
};

struct TrainProgress {
  int episode = 0;
  float loss = 0;
  bool evaluated = false;
  Evaluation vs_random;  // set when evaluated
};

class Trainer {
 public:
  Trainer(const Game& game, TrainConfig config);
  // Runs every episode; `progress` is called after each one.
  absl::Status Run(const std::function<void(const TrainProgress&)>& progress);
  const QPolicy& policy() const { return policy_; }
  // The policy as a Policy (greedy).
  Policy Greedy() const;

 private:
  struct Sample {
    std::vector<float> input;
    float target;
  };
  absl::Status PlayEpisode(int episode, double epsilon);
  float TrainBatch();

  const Game& game_;
  TrainConfig config_;
  QPolicy policy_;
  std::vector<QPolicy> snapshots_;
  std::vector<Sample> buffer_;
  size_t next_slot_ = 0;
  Rng rng_;
};

}  // namespace gavel::learn
