#pragma once
// Self-play training of a Q(s, a) network (in the spirit of DouZero): episodes are played
// with the in-process engine, every decision of a learning seat is recorded as (view
// features + chosen move features), its target is that seat's final result (Monte-Carlo
// return), and the network regresses the targets.
//
// The learning seats mostly play greedily on their own Q, with epsilon-random exploration;
// a share of their decisions can be taken by a guide (e.g. Dirk), annealed away, so that
// early on the network learns the value of sensible play and its greedy choice improves
// on the guide (one step of policy iteration). Opponents mix the current network, older
// snapshots, random play and named extra opponents.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/core/game.h"
#include "learn/ismcts.h"
#include "learn/play.h"
#include "learn/q_policy.h"
#include "learn/rollout.h"

namespace gavel::learn {

struct NamedPolicy {
  std::string name;
  Policy policy;
};

// How the learner's training samples are made.
enum class TrainMethod {
  // Self-play episodes; each decision's target is the seat's own final result.
  kSelfPlay,
  // Rollout policy improvement (Tesauro and Galperin 1996), distilled: at sampled decisions
  // of `base` games, a few moves (the advice among them) are each played out in the same
  // resampled worlds by `base` at every seat; a move's target is its mean result minus the
  // advice's. The paired worlds cancel most of the luck that swamps self-play targets.
  kRollouts,
  // Search distilled (expert iteration's imitation step): at sampled decisions of `base`
  // games an ISMCTS teacher searches from the seat's view, and the network's scores of the
  // legal moves, as a softmax, are fitted to the shares of the root's visits (cross-entropy:
  // the moves are ranked against each other, as a policy network's are, not each fitted
  // alone). Seating and sampling as for kRollouts; the searches of a game run on
  // `rollout_threads` threads.
  kImitation,
};

struct TrainConfig {
  TrainMethod method = TrainMethod::kSelfPlay;
  int players = 0;
  OptionMap options;
  uint64_t seed = 1;
  int episodes = 2000;
  std::vector<int> hidden = {128, 64};
  // The network training starts from (e.g. a past snapshot, to improve on it) instead of
  // fresh weights; `hidden` is then ignored. Its input must be TrainingInputSize's.
  std::optional<Mlp> start;
  // Gives the network Dirk's (or another policy's) choice as a move feature; see QPolicy.
  std::string advisor_name;
  Advisor advisor;
  int batch = 256;
  float learning_rate = 1e-3f;
  // Training batches after each episode: enough for every new sample to be drawn about
  // `sample_reuse` times (more only fits the noise of the targets).
  double sample_reuse = 4;
  int train_steps_per_episode = 0;  // > 0: this many batches per episode instead
  int buffer_size = 200000;
  int decision_buffer = 20000;  // kImitation: the decisions kept (each holds its legal moves' rows)
  double epsilon_start = 0.3, epsilon_end = 0.02;
  // Share of a learning seat's decisions the guide takes, from start to end of training.
  std::optional<NamedPolicy> guide;
  double guide_start = 0.5, guide_end = 0.0;
  // kRollouts: the policy of every seat in base games and rollouts, the decisions sampled,
  // the worlds each sampled decision is played out in, the moves compared per decision.
  std::optional<NamedPolicy> base;
  std::optional<NamedPolicy> playouts;  // plays the compared moves' worlds out instead of `base`
  // kRollouts against a population: each base game draws one member for every seat but one,
  // which `base` plays and whose decisions alone are compared, its play-outs meeting the same
  // opponents (a member named twice sits twice as often). The population also becomes the
  // selecting evaluation opponent. Empty: `base` plays every seat and every seat is compared.
  std::vector<NamedPolicy> base_opponents;
  // kImitation: the search whose visits are the targets (its seed is drawn per decision).
  IsmctsOptions teacher;
  // The teacher's visits are raised to this power before they are normalised into the targets:
  // above 1 sharpens them towards the search's choice (a search's visits spread widely).
  double share_power = 1;
  double sample_rate = 0.1;
  int rollouts = 8;
  int candidates = 6;
  // Of those, how many are the ones the current network rates highest (the rest random):
  // the moves it would deviate to are the ones whose values most need correcting.
  int network_candidates = 0;
  int rollout_threads = 1;  // worlds played out at once; the samples do not depend on it
  // A move's target is its mean gain over the advice; a positive gain less than this many
  // standard errors is taken as 0, so that luck does not teach the network to deviate.
  double target_min_z = 0;
  double random_opponents = 0.2;    // share of opponent seats played at random
  double snapshot_opponents = 0.2;  // share played by an older snapshot
  int snapshot_every = 500;         // episodes between snapshots
  // Extra opponents (e.g. dirk), each taking its share of opponent seats.
  std::vector<std::pair<NamedPolicy, double>> extra_opponents;
  int eval_every = 500;  // episodes between evaluations
  int eval_games = 200;
  int eval_threads = 1;
  // The advice margin the learner plays with while training and is evaluated at.
  double advice_margin = 0.05;
  // Mixed over the other seats of the selecting evaluation instead of `base_opponents` (a
  // self-play network can so be chosen for how it does at tables like the fields it meets).
  std::vector<NamedPolicy> eval_population;
  // Mixed over the other seats of the margin tuning instead of the selecting evaluation's
  // opponents: a margin tuned against copies of one player fits that player (Sultan's
  // four-player network tuned against Dirk deviated from his advice where it lost to
  // tables of other players, docs/learning.md).
  std::vector<NamedPolicy> tune_population;
  // Evaluated against random always, then against `eval_population` (else `base_opponents`)
  // mixed over the seats (when set), then against copies of each of these; the first after
  // random picks the best network seen and tunes the margin (unless `tune_population` does).
  std::vector<NamedPolicy> eval_opponents;
};

struct TrainProgress {
  int episode = 0;
  float loss = 0;
  // Set after an evaluation: the result against each evaluation opponent, in order.
  std::vector<std::pair<std::string, Evaluation>> evaluations;
  bool best_so_far = false;
};

// The input size of the networks a trainer with `config` trains (0 if the game cannot start).
int TrainingInputSize(const Game& game, const TrainConfig& config);

class Trainer {
 public:
  Trainer(const Game& game, TrainConfig config);
  // Runs every episode; `progress` is called after each one.
  absl::Status Run(const std::function<void(const TrainProgress&)>& progress);
  // For an advised network: evaluates the best network at each margin against the
  // selecting opponent (see QPolicy::advice_margin), keeps the best margin in it and its
  // metadata, and returns every (margin, evaluation).
  absl::StatusOr<std::vector<std::pair<double, Evaluation>>> TuneMargin(
      const std::vector<double>& margins, int games);
  // The network after the last episode, and the one that evaluated best.
  const QPolicy& policy() const { return policy_; }
  const QPolicy& best() const { return best_ ? *best_ : policy_; }
  // The current network as a greedy Policy.
  Policy Greedy() const;

 private:
  struct Sample {
    std::vector<float> input;
    float target;
  };
  enum class Seating { kLearner, kSnapshot, kRandom, kExtra };
  struct SeatPlan {
    Seating seating = Seating::kLearner;
    size_t index = 0;  // which snapshot or extra opponent
  };
  std::vector<SeatPlan> PlanSeats(int seats);
  absl::Status PlayEpisode(double epsilon, double guide_share);
  absl::Status RolloutEpisode(double epsilon);
  absl::Status ImitationEpisode(double epsilon);
  // kImitation: a decision's rows, one per legal move, and the teacher's visit shares.
  struct Decision {
    Mlp::Matrix rows;
    Eigen::VectorXf shares;
  };
  // A rollout or imitation game: `base` at every seat, each one compared; or, against a
  // population, `base` at one drawn seat (`learner`, the only one compared) and drawn
  // members at the others.
  struct BaseGame {
    std::unique_ptr<State> state;
    std::vector<const Policy*> members;  // by seat
    Seat learner = kNoSeat;
    bool Compared(Seat seat) const { return learner == kNoSeat || seat == learner; }
  };
  absl::StatusOr<BaseGame> NewBaseGame();
  // A sampled decision of a rollout game: the candidates' paired rollouts to play and their
  // network input rows.
  struct Comparison {
    RolloutRequest rollouts;
    Mlp::Matrix rows;
  };
  absl::StatusOr<Comparison> PrepareComparison(const Turn& turn);
  // Plays the comparisons' rollouts (`playouts` at every seat of their worlds) and stores
  // each candidate's paired gain as its sample.
  absl::Status CompareMoves(std::span<const Comparison> comparisons, const Policy& playouts);
  // Up to config_.network_candidates legal moves other than `reference`, best Q first.
  absl::StatusOr<std::vector<Move>> NetworkFavourites(const Turn& turn, Move reference) const;
  absl::StatusOr<size_t> ChooseFor(const SeatPlan& plan, const Turn& turn, double epsilon,
                                   double guide_share);
  void Store(Sample sample);
  void Store(Decision decision);
  float TrainBatch(float learning_rate);
  // Decisions drawn until they hold a batch of rows; the softmax cross-entropy over each.
  float TrainDecisionBatch(float learning_rate);
  absl::Status EvaluateNow(int episode, TrainProgress* report);
  // Who the candidate meets in evaluations: one policy in every other seat, or a population
  // mixed over them.
  struct Opposition {
    std::string name;
    std::vector<Policy> members;
  };
  static std::vector<Opposition> OppositionsOf(const TrainConfig& config);
  static Opposition PopulationOf(const std::vector<NamedPolicy>& members);
  absl::StatusOr<Evaluation> EvaluateAgainst(const Policy& candidate, const Opposition& opposition, int games,
                                             uint64_t seed) const;

  const Game& game_;
  TrainConfig config_;
  QPolicy policy_;
  std::optional<QPolicy> best_;
  double best_win_rate_ = -1;
  std::vector<QPolicy> snapshots_;
  std::vector<Sample> buffer_;
  size_t next_slot_ = 0;
  std::vector<Decision> decisions_;
  size_t next_decision_ = 0;
  double pending_steps_ = 0;
  const std::vector<Opposition> oppositions_;  // whom evaluations play, from config_
  Rng rng_;
};

}  // namespace gavel::learn
