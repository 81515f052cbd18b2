#include "learn/value_network.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/core/status.h"
#include "learn/ismcts.h"

namespace gavel::learn {
namespace {

// One played game's samples: every seat's features at the sampled states, and the place
// reward that seat reached.
struct GameSamples {
  std::vector<std::vector<float>> rows;
  std::vector<float> targets;
};

absl::StatusOr<GameSamples> PlaySampled(const Game& game, const ValueTrainConfig& config, int index) {
  Rng rng = GameRng(config.seed, static_cast<uint64_t>(index));
  auto created = game.NewGame(config.players, config.seed + static_cast<uint64_t>(index), config.options);
  if (!created.ok()) return created.status();
  State& state = **created;
  const int seats = state.seats();
  std::vector<const Policy*> policies(seats);
  for (const Policy*& policy : policies)
    policy = &config.population[rng.Below(static_cast<uint32_t>(config.population.size()))].policy;
  const auto threshold = static_cast<uint32_t>(config.sample_rate * (1 << 30));
  std::vector<std::vector<float>> rows;
  std::vector<Seat> row_seats;
  v1::View view;
  Features features;
  auto played = PlayToEnd(state, [&](const Turn& turn, Seat mover) -> absl::StatusOr<Move> {
    if (rng.Below(1 << 30) < threshold) {
      for (Seat seat = 0; seat < seats; ++seat) {
        view.Clear();
        state.Observe(seat, &view);
        GAVEL_RETURN_IF_ERROR(game.Featurize(view, {}, &features));
        rows.push_back(features.observation);
        row_seats.push_back(seat);
      }
    }
    return (*policies[mover])(turn);
  }, rng);
  if (!played.ok()) return played;
  const std::vector<double> rewards = PlaceRewards(state.outcome());
  GameSamples samples{std::move(rows), {}};
  for (Seat seat : row_seats) samples.targets.push_back(static_cast<float>(rewards[seat]));
  return samples;
}

double MeanSquaredError(const Mlp& network, const Mlp::Matrix& rows, const Eigen::VectorXf& targets) {
  if (rows.rows() == 0) return 0;
  return static_cast<double>((network.Forward(rows) - targets).squaredNorm()) / static_cast<double>(rows.rows());
}

// The samples of games [first, last) as one matrix and target vector.
void Gather(const std::vector<GameSamples>& games, size_t first, size_t last, Mlp::Matrix* rows,
            Eigen::VectorXf* targets) {
  size_t count = 0, width = 0;
  for (size_t g = first; g < last; ++g) {
    count += games[g].rows.size();
    if (!games[g].rows.empty()) width = games[g].rows.front().size();
  }
  rows->resize(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(width));
  targets->resize(static_cast<Eigen::Index>(count));
  Eigen::Index at = 0;
  for (size_t g = first; g < last; ++g)
    for (size_t i = 0; i < games[g].rows.size(); ++i, ++at) {
      rows->row(at) = Eigen::Map<const Eigen::RowVectorXf>(games[g].rows[i].data(), static_cast<Eigen::Index>(width));
      (*targets)(at) = games[g].targets[i];
    }
}

}  // namespace

absl::StatusOr<ValueNetwork> ValueNetwork::Load(const Game& game, const std::string& path) {
  auto network = Mlp::Load(path);
  if (!network.ok()) return network.status();
  if (network->MetadataValue("kind") != "value")
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a value network (metadata kind=value)"));
  if (network->MetadataValue("game") != game.name())
    return absl::InvalidArgumentError(absl::StrCat(path, " is a value network of ", network->MetadataValue("game"),
                                                   ", not of ", game.name()));
  ValueNetwork value(game, *std::move(network));
  auto state = game.NewGame(value.players(), 1, {});
  if (!state.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", state.status().message()));
  value.seats_ = (*state)->seats();
  v1::View view;
  (*state)->Observe(0, &view);
  if (auto inputs = value.Inputs(view); !inputs.ok())
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", inputs.status().message(),
                                                      " (weights from another version of the features: train them again)"));
  return value;
}

int ValueNetwork::players() const {
  int players = 0;
  return absl::SimpleAtoi(network_.MetadataValue("players"), &players) ? players : 0;
}

bool ValueNetwork::TrainedFor(const v1::View& view) const {
  if (static_cast<int>(view.seats()) != seats_ || (view.players() != 0 && static_cast<int>(view.players()) != players()))
    return false;
  return Inputs(view).ok();
}

absl::StatusOr<std::vector<float>> ValueNetwork::Inputs(const v1::View& view) const {
  Features features;
  GAVEL_RETURN_IF_ERROR(game_->Featurize(view, {}, &features));
  if (static_cast<int>(features.observation.size()) != network_.input_size())
    return absl::FailedPreconditionError(absl::StrCat("the value network takes ", network_.input_size(),
                                                      " inputs, this view's features are ",
                                                      features.observation.size()));
  return std::move(features.observation);
}

absl::StatusOr<double> ValueNetwork::Value(const v1::View& view) const {
  GAVEL_ASSIGN_OR_RETURN(const std::vector<float> inputs, Inputs(view));
  const Eigen::Map<const Eigen::RowVectorXf> row(inputs.data(), network_.input_size());
  return std::clamp(static_cast<double>(network_.Forward(row)(0)), 0.0, 1.0);
}

absl::StatusOr<std::vector<double>> ValueNetwork::SeatValues(const State& state) const {
  std::vector<double> values(static_cast<size_t>(state.seats()));
  v1::View view;
  for (Seat seat = 0; seat < state.seats(); ++seat) {
    view.Clear();
    state.Observe(seat, &view);
    auto value = Value(view);
    if (!value.ok()) return value.status();
    values[static_cast<size_t>(seat)] = *value;
  }
  return values;
}

absl::StatusOr<ValueNetwork> TrainValueNetwork(const Game& game, const ValueTrainConfig& config,
                                               const std::function<void(int, const ValueFit&)>& progress,
                                               ValueFit* fit) {
  if (config.population.empty()) return absl::InvalidArgumentError("a value network needs policies to play");
  if (config.games < 2) return absl::InvalidArgumentError("a value network needs at least two games");
  if (config.epochs < 1 || config.batch < 1) return absl::InvalidArgumentError("a value network needs an epoch and a batch");
  std::vector<GameSamples> games(static_cast<size_t>(config.games));
  std::vector<absl::Status> statuses(games.size());
  ParallelFor(config.games, config.threads, [&](int index) {
    auto samples = PlaySampled(game, config, index);
    if (samples.ok()) games[static_cast<size_t>(index)] = *std::move(samples);
    else statuses[static_cast<size_t>(index)] = samples.status();
  });
  for (const absl::Status& status : statuses) GAVEL_RETURN_IF_ERROR(status);
  const size_t held = std::clamp<size_t>(static_cast<size_t>(config.holdout * config.games), 1, games.size() - 1);
  Mlp::Matrix train_rows, holdout_rows;
  Eigen::VectorXf train_targets, holdout_targets;
  Gather(games, 0, games.size() - held, &train_rows, &train_targets);
  Gather(games, games.size() - held, games.size(), &holdout_rows, &holdout_targets);
  if (train_rows.rows() == 0 || holdout_rows.rows() == 0)
    return absl::FailedPreconditionError("too few sampled states: raise the games or the sample rate");
  std::vector<int> sizes = {static_cast<int>(train_rows.cols())};
  sizes.insert(sizes.end(), config.hidden.begin(), config.hidden.end());
  sizes.push_back(1);
  Mlp network(sizes, config.seed);
  const float mean = train_targets.mean();
  *fit = ValueFit{static_cast<int>(train_rows.rows()), static_cast<int>(holdout_rows.rows()), 0, 0,
                  static_cast<double>((holdout_targets.array() - mean).square().mean())};
  std::vector<Eigen::Index> order(static_cast<size_t>(train_rows.rows()));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(Rng::FromSeed(config.seed));
  Mlp::Matrix batch_rows(config.batch, train_rows.cols());
  Eigen::VectorXf batch_targets(config.batch);
  for (int epoch = 1; epoch <= config.epochs; ++epoch) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(static_cast<uint32_t>(i))]);
    for (size_t first = 0; first + static_cast<size_t>(config.batch) <= order.size(); first += config.batch) {
      for (int b = 0; b < config.batch; ++b) {
        batch_rows.row(b) = train_rows.row(order[first + static_cast<size_t>(b)]);
        batch_targets(b) = train_targets(order[first + static_cast<size_t>(b)]);
      }
      network.TrainStep(batch_rows, batch_targets, config.learning_rate);
    }
    fit->train_mse = MeanSquaredError(network, train_rows, train_targets);
    fit->holdout_mse = MeanSquaredError(network, holdout_rows, holdout_targets);
    if (progress) progress(epoch, *fit);
  }
  network.SetMetadataValue("kind", "value");
  network.SetMetadataValue("game", game.name());
  network.SetMetadataValue("players", absl::StrCat(config.players));
  network.SetMetadataValue("seed", absl::StrCat(config.seed));
  network.SetMetadataValue("holdout_mse", absl::StrCat(fit->holdout_mse));
  network.SetMetadataValue("holdout_constant_mse", absl::StrCat(fit->holdout_constant_mse));
  return ValueNetwork(game, std::move(network));
}

}  // namespace gavel::learn
