#include "learn/trainer.h"

#include "absl/strings/str_cat.h"
#include "learn/ismcts.h"

namespace gavel::learn {
namespace {

int InputSize(const Game& game, const TrainConfig& config) {
  auto state = game.NewGame(config.players, config.seed, config.options);
  if (!state.ok()) return 0;
  std::vector<Move> legal;
  (*state)->LegalMoves(legal);
  v1::View view;
  (*state)->Observe((*state)->to_move(), &view);
  Features features;
  if (!game.Featurize(view, legal, &features).ok()) return 0;
  return static_cast<int>(features.observation.size()) + features.move_size;
}

std::vector<int> Layers(int input, const std::vector<int>& hidden) {
  std::vector<int> sizes = {input};
  sizes.insert(sizes.end(), hidden.begin(), hidden.end());
  sizes.push_back(1);
  return sizes;
}

Policy GreedyOf(const QPolicy& policy) {
  return [&policy](const v1::View& view, std::span<const Move> legal, Rng&) {
    return policy.Choose(view, legal);
  };
}

}  // namespace

Trainer::Trainer(const Game& game, TrainConfig config)
    : game_(game),
      config_(std::move(config)),
      policy_(game, Mlp(Layers(InputSize(game, config_), config_.hidden), config_.seed)),
      rng_(Rng::FromSeed(config_.seed)) {
  policy_.mutable_network().metadata =
      absl::StrCat("game=", game.name(), "\nplayers=", config_.players, "\nseed=", config_.seed, "\n");
}

Policy Trainer::Greedy() const { return GreedyOf(policy_); }

absl::Status Trainer::PlayEpisode(int episode, double epsilon) {
  auto created = game_.NewGame(config_.players, rng_.Next(), config_.options);
  if (!created.ok()) return created.status();
  State& state = **created;
  // Who plays each seat: the learner, a snapshot, random, or an extra opponent.
  enum Kind { kLearner, kSnapshot, kRandom, kExtra };
  std::vector<Kind> kinds(state.seats(), kLearner);
  std::vector<size_t> extra_index(state.seats(), 0);
  std::vector<size_t> snapshot_index(state.seats(), 0);
  const Seat anchor = static_cast<Seat>(rng_.Below(static_cast<uint32_t>(state.seats())));
  for (Seat seat = 0; seat < state.seats(); ++seat) {
    if (seat == anchor) continue;  // at least one learning seat per episode
    double draw = static_cast<double>(rng_.Below(1000000)) / 1e6;
    if ((draw -= config_.random_opponents) < 0) {
      kinds[seat] = kRandom;
    } else if (!snapshots_.empty() && (draw -= config_.snapshot_opponents) < 0) {
      kinds[seat] = kSnapshot;
      snapshot_index[seat] = rng_.Below(static_cast<uint32_t>(snapshots_.size()));
    } else {
      for (size_t i = 0; i < config_.extra_opponents.size(); ++i) {
        if ((draw -= config_.extra_opponents[i].second) < 0) {
          kinds[seat] = kExtra;
          extra_index[seat] = i;
          break;
        }
      }
    }
  }
  std::vector<std::vector<std::vector<float>>> decisions(state.seats());
  std::vector<Move> legal;
  Mlp::Matrix rows;
  while (!state.finished()) {
    const Seat seat = state.to_move();
    state.LegalMoves(legal);
    v1::View view;
    state.Observe(seat, &view);
    size_t chosen = 0;
    if (kinds[seat] == kRandom || (kinds[seat] == kLearner && rng_.Below(1000000) < epsilon * 1e6)) {
      chosen = rng_.Below(static_cast<uint32_t>(legal.size()));
    } else if (kinds[seat] == kExtra) {
      auto move = config_.extra_opponents[extra_index[seat]].first(view, legal, rng_);
      if (!move.ok()) return move.status();
      chosen = static_cast<size_t>(std::find(legal.begin(), legal.end(), *move) - legal.begin());
    } else {
      const QPolicy& q = kinds[seat] == kSnapshot ? snapshots_[snapshot_index[seat]] : policy_;
      auto scores = q.Scores(view, legal);
      if (!scores.ok()) return scores.status();
      for (size_t i = 1; i < scores->size(); ++i)
        if ((*scores)[i] > (*scores)[chosen]) chosen = i;
    }
    if (chosen >= legal.size()) return absl::InternalError("a policy chose an illegal move");
    if (kinds[seat] == kLearner) {
      if (auto status = FeatureRows(game_, view, std::span<const Move>(&legal[chosen], 1), &rows);
          !status.ok())
        return status;
      decisions[seat].emplace_back(rows.data(), rows.data() + rows.cols());
    }
    state.ApplyLegal(legal[chosen], nullptr);
  }
  const std::vector<double> rewards = PlaceRewards(state.outcome());
  for (Seat seat = 0; seat < state.seats(); ++seat) {
    for (auto& input : decisions[seat]) {
      Sample sample{std::move(input), static_cast<float>(rewards[seat])};
      if (buffer_.size() < static_cast<size_t>(config_.buffer_size)) {
        buffer_.push_back(std::move(sample));
      } else {
        buffer_[next_slot_] = std::move(sample);
        next_slot_ = (next_slot_ + 1) % buffer_.size();
      }
    }
  }
  (void)episode;
  return absl::OkStatus();
}

float Trainer::TrainBatch() {
  if (buffer_.size() < static_cast<size_t>(config_.batch)) return 0;
  const int input = policy_.network().input_size();
  Mlp::Matrix inputs(config_.batch, input);
  Eigen::VectorXf targets(config_.batch);
  for (int i = 0; i < config_.batch; ++i) {
    const Sample& sample = buffer_[rng_.Below(static_cast<uint32_t>(buffer_.size()))];
    std::copy(sample.input.begin(), sample.input.end(), inputs.row(i).data());
    targets(i) = sample.target;
  }
  return policy_.mutable_network().TrainStep(inputs, targets, config_.learning_rate);
}

absl::Status Trainer::Run(const std::function<void(const TrainProgress&)>& progress) {
  if (policy_.network().input_size() == 0)
    return absl::InvalidArgumentError("cannot create the game to size the network");
  for (int episode = 1; episode <= config_.episodes; ++episode) {
    const double fraction = static_cast<double>(episode) / config_.episodes;
    const double epsilon = config_.epsilon_start + (config_.epsilon_end - config_.epsilon_start) * fraction;
    if (auto status = PlayEpisode(episode, epsilon); !status.ok()) return status;
    TrainProgress report;
    report.episode = episode;
    for (int step = 0; step < config_.train_steps_per_episode; ++step) report.loss = TrainBatch();
    if (episode % config_.snapshot_every == 0) snapshots_.push_back(policy_);
    if (episode % config_.eval_every == 0 || episode == config_.episodes) {
      auto evaluation = Evaluate(game_, config_.players, config_.options, Greedy(), RandomPolicy(),
                                 config_.eval_games, config_.seed * 1000003 + episode);
      if (!evaluation.ok()) return evaluation.status();
      report.evaluated = true;
      report.vs_random = *evaluation;
    }
    progress(report);
  }
  return absl::OkStatus();
}

}  // namespace gavel::learn
