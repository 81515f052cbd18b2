#include "learn/policy_search.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "engine/core/status.h"
#include "learn/trainer.h"

namespace gavel::learn {
namespace {

// Deal seeds far from each other and from gavel-eval's, so that no iteration, evaluation
// or reported table plays the same deals.
uint64_t SearchDeals(uint64_t seed, int iteration) {
  return (seed << 32) + static_cast<uint64_t>(iteration) * 1000003;
}
uint64_t EvaluationDeals(uint64_t seed, int iteration) {
  return SearchDeals(seed, iteration) + 0x80000000ull;
}

}  // namespace

absl::StatusOr<QPolicy> AdviceFollowingNetwork(const Game& game, int players, const OptionMap& options,
                                               const std::string& advisor_name, Advisor advisor) {
  TrainConfig config;
  config.players = players;
  config.options = options;
  config.hidden = {};
  config.episodes = 0;
  config.advisor_name = advisor_name;
  config.advisor = std::move(advisor);
  QPolicy policy = Trainer(game, config).policy();
  Mlp& network = policy.mutable_network();
  if (network.input_size() == 0 || advisor_name.empty())
    return absl::InvalidArgumentError("an advice-following network needs a game and an advisor");
  Eigen::VectorXf weights = Eigen::VectorXf::Zero(network.input_size() + 1);
  weights[network.input_size() - 1] = 1;  // the advised bit is the row's last input
  network.SetTailParameters(1, weights);
  policy.set_advice_margin(0);
  return policy;
}

absl::StatusOr<MoveSpread> MoveFeatureSpread(const Game& game, int players, const OptionMap& options,
                                             const QPolicy& policy, int count, int games,
                                             uint64_t seed) {
  if (policy.layout() != InputLayout::kViewAdviceMoveAdvised)
    return absl::InvalidArgumentError("the feature spread needs a network that sees the advice's features");
  std::vector<double> squares(static_cast<size_t>(std::max(count, 0)), 0.0);
  double moves = 0;
  // A row holds the view's features, the advice's, the move's, then the advised bit; the
  // sizes are the game's, the same at every decision.
  Eigen::Index advice_column = -1, move_size = 0;
  const Decider record = [&](const Turn& turn, Seat) -> absl::StatusOr<Move> {
    if (advice_column < 0) {
      Features sizes;
      GAVEL_RETURN_IF_ERROR(game.Featurize(turn.view(), {}, &sizes));
      advice_column = static_cast<Eigen::Index>(sizes.observation.size());
      move_size = sizes.move_size;
      if (count > move_size)
        return absl::InvalidArgumentError(absl::StrCat("a move has only ", move_size, " features"));
    }
    Mlp::Matrix rows;
    std::optional<Move> advice;
    GAVEL_RETURN_IF_ERROR(policy.Rows(turn, turn.legal(), &rows, &advice));
    const Mlp::Matrix differences =
        rows.middleCols(advice_column + move_size, count) - rows.middleCols(advice_column, count);
    for (Eigen::Index k = 0; k < count; ++k)
      squares[static_cast<size_t>(k)] += differences.col(k).squaredNorm();
    moves += static_cast<double>(rows.rows());
    return *advice;
  };
  for (int g = 0; g < games; ++g) {
    auto state = game.NewGame(players, seed + static_cast<uint64_t>(g), options);
    if (!state.ok()) return state.status();
    Rng unused(Rng::FromSeed(seed));  // the advice and the network draw nothing
    GAVEL_RETURN_IF_ERROR(PlayToEnd(**state, record, unused));
  }
  for (double& square : squares) square = moves > 0 ? std::sqrt(square / moves) : 0.0;
  return MoveSpread{std::move(squares), static_cast<int>(advice_column + move_size)};
}

double SearchFitness(const Evaluation& evaluation) {
  return 0.5 * (evaluation.win_rate + evaluation.mean_reward);
}

PolicySearch::PolicySearch(const Game& game, QPolicy start, SearchConfig config)
    : game_(game),
      config_(std::move(config)),
      start_(start),
      current_(std::move(start)),
      rng_(Rng::FromSeed(config_.seed)) {
  const Mlp& network = start_.network();
  config_.layers = std::clamp(config_.layers, 1, std::max(1, network.layer_count()));
  const Eigen::VectorXf weights = network.TailParameters(config_.layers);
  const Eigen::VectorXf weight_scales = config_.sigma_absolute
                                            ? Eigen::VectorXf::Ones(weights.size())
                                            : network.TailScales(config_.layers);
  start_parameters_.resize(weights.size() + 1);
  start_parameters_ << weights, static_cast<float>(start_.advice_margin());
  // The margin's unit is chosen so that a sigma-sized step moves it by margin_sigma.
  scales_.resize(weights.size() + 1);
  scales_ << weight_scales, static_cast<float>(config_.margin_sigma / config_.sigma);
  offset_ = Eigen::VectorXf::Zero(start_parameters_.size());
}

QPolicy PolicySearch::At(const Eigen::VectorXf& offset) const {
  QPolicy policy = start_;
  const Eigen::VectorXf parameters = start_parameters_ + scales_.cwiseProduct(offset);
  const Eigen::Index weights = parameters.size() - 1;
  policy.mutable_network().SetTailParameters(config_.layers, parameters.head(weights));
  policy.set_advice_margin(std::max(0.0f, parameters[weights]));
  return policy;
}

absl::StatusOr<Evaluation> PolicySearch::Play(const QPolicy& policy, int games, uint64_t deals) const {
  const Policy greedy = [&policy](const Turn& turn) { return policy.Choose(turn); };
  return Evaluate(game_, config_.players, config_.options, greedy, config_.opponents, games, deals,
                  config_.threads);
}

absl::Status PolicySearch::EvaluateNow(int iteration, SearchProgress* report) {
  auto evaluation = Play(current_, config_.eval_games, EvaluationDeals(config_.seed, iteration));
  if (!evaluation.ok()) return evaluation.status();
  report->evaluation = *evaluation;
  if (evaluation->win_rate > best_win_rate_) {
    best_win_rate_ = evaluation->win_rate;
    best_ = current_;
    best_->mutable_network().SetMetadataValue("search_iteration", absl::StrCat(iteration));
    report->best_so_far = true;
  }
  return absl::OkStatus();
}

absl::Status PolicySearch::ScaleByFeatureSpread() {
  const Mlp& network = start_.network();
  if (network.layer_count() != 1)
    return absl::InvalidArgumentError("searching move features needs a linear network");
  auto spread = MoveFeatureSpread(game_, config_.players, config_.options, start_, config_.move_features,
                                  config_.spread_games, EvaluationDeals(config_.seed, -1));
  if (!spread.ok()) return spread.status();
  // Only the searched weights move; a feature that never differs from the advice's stays.
  scales_.setZero();
  for (size_t k = 0; k < spread->rms.size(); ++k)
    if (spread->rms[k] > 1e-6)
      scales_[spread->first_column + static_cast<Eigen::Index>(k)] = static_cast<float>(1.0 / spread->rms[k]);
  scales_[network.input_size() - 1] = 1;  // the advised bit
  return absl::OkStatus();
}

absl::Status PolicySearch::Run(const std::function<void(const SearchProgress&)>& progress) {
  if (start_.AdvisorName().empty()) return absl::FailedPreconditionError("the search tunes an advised network");
  const auto missing = [](const Policy& opponent) { return !opponent; };
  if (config_.opponents.empty() ||
      std::any_of(config_.opponents.begin(), config_.opponents.end(), missing))
    return absl::InvalidArgumentError("the search needs opponents");
  if (config_.pairs < 1 || config_.games < 1 || config_.sigma <= 0)
    return absl::InvalidArgumentError("the search needs pairs, games and sigma above 0");
  if (config_.move_features > 0)
    GAVEL_RETURN_IF_ERROR(ScaleByFeatureSpread());
  SearchProgress start;
  GAVEL_RETURN_IF_ERROR(EvaluateNow(0, &start));
  progress(start);
  const Eigen::Index size = offset_.size();
  for (int iteration = 1; iteration <= config_.iterations; ++iteration) {
    SearchProgress report;
    report.iteration = iteration;
    const uint64_t deals = SearchDeals(config_.seed, iteration);
    std::vector<Eigen::VectorXf> noises;
    std::vector<double> differences;
    for (int pair = 0; pair < config_.pairs; ++pair) {
      Eigen::VectorXf noise(size);
      for (Eigen::Index i = 0; i < size; ++i) noise[i] = StandardNormal(rng_);
      const float sigma = static_cast<float>(config_.sigma);
      auto plus = Play(At(offset_ + sigma * noise), config_.games, deals);
      if (!plus.ok()) return plus.status();
      auto minus = Play(At(offset_ - sigma * noise), config_.games, deals);
      if (!minus.ok()) return minus.status();
      differences.push_back(SearchFitness(*plus) - SearchFitness(*minus));
      report.mean_fitness += (SearchFitness(*plus) + SearchFitness(*minus)) / (2.0 * config_.pairs);
      noises.push_back(std::move(noise));
    }
    // Differences scaled to unit RMS: the step's length does not depend on how much the
    // result moves, only its direction does.
    double square_sum = 0;
    for (double difference : differences) square_sum += difference * difference;
    const double rms = std::sqrt(square_sum / config_.pairs);
    if (rms > 0) {
      Eigen::VectorXf gradient = Eigen::VectorXf::Zero(size);
      for (int pair = 0; pair < config_.pairs; ++pair)
        gradient += static_cast<float>(differences[pair] / rms / config_.pairs) * noises[pair];
      offset_ += static_cast<float>(config_.step * config_.sigma) * gradient;
      current_ = At(offset_);
    }
    if (iteration % std::max(1, config_.eval_every) == 0 || iteration == config_.iterations)
      GAVEL_RETURN_IF_ERROR(EvaluateNow(iteration, &report));
    progress(report);
  }
  return absl::OkStatus();
}

}  // namespace gavel::learn
