#pragma once
// Policy search: fine-tunes a trained advised network by evolution strategies (Salimans et
// al. 2017) on the measure that counts, its result against given opponents.
//
// Each iteration draws antithetic pairs of perturbations of the network's last layers and
// of the advice margin (or, from a linear advice-following start, of chosen move-feature
// weights: SearchConfig::move_features), and every perturbed policy plays the same freshly
// seeded deals (common random numbers: a pair's difference comes from the decisions that
// differ, not from the cards). The search steps along the perturbations weighted by their pairs'
// differences. Regression on rollout targets ranks moves well where the advice is clearly
// worse, but near the margin its small errors decide many games; the search corrects those
// against the games' results directly.
#include <functional>
#include <optional>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "engine/core/game.h"
#include "learn/play.h"
#include "learn/q_policy.h"

namespace gavel::learn {

struct SearchConfig {
  int players = 4;
  OptionMap options;
  uint64_t seed = 1;
  int iterations = 40;
  int pairs = 8;     // antithetic pairs of perturbations per iteration
  int games = 500;   // games each perturbed policy plays per iteration, the same deals for all
  int layers = 1;    // how many of the network's last layers are searched
  double sigma = 0.1;          // perturbation of a weight, relative to its layer's RMS weight
  bool sigma_absolute = false;  // ... or in the weights' own units (for layers started at 0)
  // > 0, for a linear advised network (AdviceFollowingNetwork): search only the weights of
  // the scored move's first `move_features` features and of the advised bit, each in units
  // of how much that feature differs between a move and the advice (measured on
  // `spread_games` games the advisor plays), so that sigma means the same for every feature.
  int move_features = 0;
  int spread_games = 20;
  double margin_sigma = 0.02;  // perturbation of the advice margin
  double step = 1.0;           // step along the normalized gradient estimate, in sigmas
  int eval_every = 5;          // iterations between evaluations of the current policy
  int eval_games = 2000;
  int threads = 1;
  // Play every other seat, in the search and the evaluations: one opponent, or a population
  // mixed over the seats and deals (play.h's Evaluate), so that the search cannot settle on
  // exploiting one fixed player.
  std::vector<Policy> opponents;
};

struct SearchProgress {
  int iteration = 0;
  double mean_fitness = 0;  // mean result of this iteration's perturbed policies
  std::optional<Evaluation> evaluation;  // the current policy, every eval_every iterations
  bool best_so_far = false;
};

// A game's result for one seat as the search maximizes it: half the share of the win, half
// the place reward (1 best .. 0 worst), as in the self-play targets.
double SearchFitness(const Evaluation& evaluation);

// The start for a search that learns corrections to an advisor: one linear layer over the
// advised layout, every weight 0 but the advised bit's (1), margin 0. It plays exactly the
// advice until the search finds moves whose features outweigh it: a move's Q minus the
// advice's is sum_k w_k (f_k(move) - f_k(advice)) - 1, since the view's part is the same
// for every move of a decision.
absl::StatusOr<QPolicy> AdviceFollowingNetwork(const Game& game, int players, const OptionMap& options,
                                               const std::string& advisor_name, Advisor advisor);

// For a network in the compared layout: the root mean square over every legal move of
// `games` games the advisor plays at every seat of each of the move's first `count`
// features minus the advice's, and the row column where the move's features begin.
struct MoveSpread {
  std::vector<double> rms;
  int first_column = 0;
};
absl::StatusOr<MoveSpread> MoveFeatureSpread(const Game& game, int players, const OptionMap& options,
                                             const QPolicy& policy, int count, int games,
                                             uint64_t seed);

class PolicySearch {
 public:
  // `start` must be an advised network with its advisor set.
  PolicySearch(const Game& game, QPolicy start, SearchConfig config);
  // Runs every iteration; evaluates the start first (iteration 0) so that the best policy
  // is never one that evaluated worse than it.
  absl::Status Run(const std::function<void(const SearchProgress&)>& progress);
  const QPolicy& current() const { return current_; }
  // The policy that evaluated best against the opponents, its metadata naming the iteration.
  const QPolicy& best() const { return best_ ? *best_ : current_; }

 private:
  // Fills scales_ (see SearchConfig::move_features).
  absl::Status ScaleByFeatureSpread();
  // The start policy moved by `offset` (in units of scales_).
  QPolicy At(const Eigen::VectorXf& offset) const;
  absl::StatusOr<Evaluation> Play(const QPolicy& policy, int games, uint64_t deals) const;
  absl::Status EvaluateNow(int iteration, SearchProgress* report);

  const Game& game_;
  SearchConfig config_;
  QPolicy start_, current_;
  std::optional<QPolicy> best_;
  double best_win_rate_ = -1;
  Eigen::VectorXf start_parameters_;  // the searched layers' weights, then the margin
  Eigen::VectorXf scales_;            // a unit step per entry
  Eigen::VectorXf offset_;            // where the search is, in units of scales_
  Rng rng_;
};

}  // namespace gavel::learn
