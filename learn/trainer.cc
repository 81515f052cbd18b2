#include "learn/trainer.h"

#include "absl/strings/str_cat.h"
#include "engine/core/status.h"
#include "learn/ismcts.h"

namespace gavel::learn {
namespace {

std::vector<int> Layers(int input, const std::vector<int>& hidden) {
  std::vector<int> sizes = {input};
  sizes.insert(sizes.end(), hidden.begin(), hidden.end());
  sizes.push_back(1);
  return sizes;
}

Policy GreedyOf(const QPolicy& policy) {
  return [&policy](const Turn& turn) { return policy.Choose(turn); };
}

double Interpolate(double from, double to, double fraction) { return from + (to - from) * fraction; }

// Adds `item` to `ring`, which holds at most `capacity` items: once full, `next` names the
// oldest, which the item replaces.
template <typename T>
void PutInRing(std::vector<T>& ring, size_t& next, int capacity, T item) {
  if (ring.size() < static_cast<size_t>(capacity)) {
    ring.push_back(std::move(item));
  } else {
    ring[next] = std::move(item);
    next = (next + 1) % ring.size();
  }
}

Mlp InitialNetwork(const Game& game, const TrainConfig& config) {
  if (config.start) return *config.start;
  return Mlp(Layers(TrainingInputSize(game, config), config.hidden), config.seed);
}

}  // namespace

int TrainingInputSize(const Game& game, const TrainConfig& config) {
  auto state = game.NewGame(config.players, config.seed, config.options);
  if (!state.ok()) return 0;
  v1::View view;
  (*state)->Observe((*state)->to_move(), &view);
  auto size = InputSize(game, view, LayoutFor(config.advisor_name));
  return size.ok() ? *size : 0;
}

Trainer::Trainer(const Game& game, TrainConfig config)
    : game_(game),
      config_(std::move(config)),
      policy_(game, InitialNetwork(game, config_), config_.advisor_name, config_.advisor),
      oppositions_(OppositionsOf(config_)),
      rng_(Rng::FromSeed(config_.seed)) {
  policy_.mutable_network().metadata =
      absl::StrCat("game=", game.name(), "\nplayers=", config_.players, "\nseed=", config_.seed, "\n");
  if (!config_.advisor_name.empty())
    policy_.mutable_network().metadata += absl::StrCat("advice=", config_.advisor_name, "\n");
  policy_.set_advice_margin(config_.advice_margin);
}

Policy Trainer::Greedy() const { return GreedyOf(policy_); }

std::vector<Trainer::SeatPlan> Trainer::PlanSeats(int seats) {
  std::vector<SeatPlan> plans(static_cast<size_t>(seats));
  const Seat anchor = static_cast<Seat>(rng_.Below(static_cast<uint32_t>(seats)));
  for (Seat seat = 0; seat < seats; ++seat) {
    if (seat == anchor) continue;  // at least one learning seat per episode
    SeatPlan& plan = plans[static_cast<size_t>(seat)];
    double draw = static_cast<double>(rng_.Below(1000000)) / 1e6;
    if ((draw -= config_.random_opponents) < 0) {
      plan.seating = Seating::kRandom;
    } else if (!snapshots_.empty() && (draw -= config_.snapshot_opponents) < 0) {
      plan.seating = Seating::kSnapshot;
      plan.index = rng_.Below(static_cast<uint32_t>(snapshots_.size()));
    } else {
      for (size_t i = 0; i < config_.extra_opponents.size(); ++i) {
        if ((draw -= config_.extra_opponents[i].second) < 0) {
          plan = {Seating::kExtra, i};
          break;
        }
      }
    }
  }
  return plans;
}

absl::StatusOr<size_t> Trainer::ChooseFor(const SeatPlan& plan, const Turn& turn, double epsilon,
                                          double guide_share) {
  const auto legal = turn.legal();
  auto index_of = [&](const absl::StatusOr<Move>& move) -> absl::StatusOr<size_t> {
    if (!move.ok()) return move.status();
    return static_cast<size_t>(std::find(legal.begin(), legal.end(), *move) - legal.begin());
  };
  const bool learner = plan.seating == Seating::kLearner;
  if (plan.seating == Seating::kRandom || (learner && rng_.Below(1000000) < epsilon * 1e6))
    return rng_.Below(static_cast<uint32_t>(legal.size()));
  if (plan.seating == Seating::kExtra)
    return index_of(config_.extra_opponents[plan.index].first.policy(turn));
  if (learner && config_.guide && rng_.Below(1000000) < guide_share * 1e6)
    return index_of(config_.guide->policy(turn));
  const QPolicy& q = plan.seating == Seating::kSnapshot ? snapshots_[plan.index] : policy_;
  return index_of(q.Choose(turn));
}

absl::Status Trainer::PlayEpisode(double epsilon, double guide_share) {
  auto created = game_.NewGame(config_.players, rng_.Next(), config_.options);
  if (!created.ok()) return created.status();
  State& state = **created;
  const std::vector<SeatPlan> plans = PlanSeats(state.seats());
  std::vector<std::vector<std::vector<float>>> decisions(static_cast<size_t>(state.seats()));
  Mlp::Matrix rows;
  auto played = PlayToEnd(state, [&](const Turn& turn, Seat seat) -> absl::StatusOr<Move> {
    const SeatPlan& plan = plans[static_cast<size_t>(seat)];
    auto chosen = ChooseFor(plan, turn, epsilon, guide_share);
    if (!chosen.ok()) return chosen.status();
    if (*chosen >= turn.legal().size()) return absl::InternalError("a policy chose an illegal move");
    const Move move = turn.legal()[*chosen];
    if (plan.seating == Seating::kLearner) {
      GAVEL_RETURN_IF_ERROR(policy_.Rows(turn, std::span<const Move>(&move, 1), &rows));
      decisions[static_cast<size_t>(seat)].emplace_back(rows.data(), rows.data() + rows.cols());
    }
    return move;
  }, rng_);
  if (!played.ok()) return played;
  const std::vector<float> targets = SeatResults(state.outcome());
  for (size_t seat = 0; seat < decisions.size(); ++seat)
    for (auto& input : decisions[seat]) Store(Sample{std::move(input), targets[seat]});
  return absl::OkStatus();
}

absl::StatusOr<Trainer::Comparison> Trainer::PrepareComparison(const Turn& turn) {
  std::optional<Move> advice;
  Comparison comparison;
  GAVEL_RETURN_IF_ERROR(policy_.Rows(turn, {}, &comparison.rows, &advice));
  // The moves compared: the advice (or, unadvised, a random move) and distinct others,
  // those the network rates best first.
  std::vector<Move> favourites;
  if (config_.network_candidates > 0 && advice) {
    auto best = NetworkFavourites(turn, *advice);
    if (!best.ok()) return best.status();
    favourites = *std::move(best);
  }
  RolloutRequest& rollouts = comparison.rollouts;
  rollouts.view = turn.view();
  rollouts.moves = RolloutCandidates(turn, advice, favourites, config_.candidates, rng_);
  rollouts.world_seeds.resize(static_cast<size_t>(config_.rollouts));
  for (uint64_t& seed : rollouts.world_seeds) seed = rng_.Next();
  GAVEL_RETURN_IF_ERROR(policy_.Rows(turn, rollouts.moves, &comparison.rows));
  return comparison;
}

absl::Status Trainer::CompareMoves(std::span<const Comparison> comparisons, const Policy& playouts) {
  std::vector<RolloutRequest> requests;
  for (const Comparison& comparison : comparisons) requests.push_back(comparison.rollouts);
  auto results = PairedRolloutResults(game_, requests, playouts, config_.rollout_threads);
  if (!results.ok()) return results.status();
  for (size_t c = 0; c < comparisons.size(); ++c) {
    const RolloutValues values = SummarizeRollouts((*results)[c]);
    const Mlp::Matrix& rows = comparisons[c].rows;
    for (size_t i = 0; i < values.mean.size(); ++i) {
      const float* row = rows.row(static_cast<Eigen::Index>(i)).data();
      double gain = values.mean[i] - values.mean[0];
      if (gain > 0 && gain <= config_.target_min_z * values.gain_error[i]) gain = 0;
      Store(Sample{std::vector<float>(row, row + rows.cols()), static_cast<float>(gain)});
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Move>> Trainer::NetworkFavourites(const Turn& turn, Move reference) const {
  auto scores = policy_.Scores(turn);
  if (!scores.ok()) return scores.status();
  std::vector<Move> favourites;
  for (Move move : MovesByScore(turn.legal(), *scores))
    if (move != reference && favourites.size() < static_cast<size_t>(config_.network_candidates))
      favourites.push_back(move);
  return favourites;
}

absl::StatusOr<Trainer::BaseGame> Trainer::NewBaseGame() {
  if (!config_.base) return absl::InvalidArgumentError("rollout and imitation training need a base policy");
  auto created = game_.NewGame(config_.players, rng_.Next(), config_.options);
  if (!created.ok()) return created.status();
  const int seats = (*created)->seats();
  BaseGame game{*std::move(created), std::vector<const Policy*>(static_cast<size_t>(seats), &config_.base->policy)};
  if (config_.base_opponents.empty()) return game;
  game.learner = static_cast<Seat>(rng_.Below(static_cast<uint32_t>(seats)));
  for (Seat seat = 0; seat < seats; ++seat)
    if (seat != game.learner)
      game.members[static_cast<size_t>(seat)] =
          &config_.base_opponents[rng_.Below(static_cast<uint32_t>(config_.base_opponents.size()))].policy;
  return game;
}

absl::Status Trainer::RolloutEpisode(double epsilon) {
  auto base_game = NewBaseGame();
  if (!base_game.ok()) return base_game.status();
  const BaseGame& game = *base_game;
  const Policy& compared_playouts = (config_.playouts ? config_.playouts : config_.base)->policy;
  const Policy playouts = [&](const Turn& turn) -> absl::StatusOr<Move> {
    const Seat seat = static_cast<Seat>(turn.view().seat());
    return game.Compared(seat) ? compared_playouts(turn) : (*game.members[static_cast<size_t>(seat)])(turn);
  };
  // The sampled decisions are compared once the game is over, all their worlds at once; the
  // network does not change within a game, so the samples are those of comparing each as it
  // came up.
  std::vector<Comparison> comparisons;
  GAVEL_RETURN_IF_ERROR(PlayToEnd(*game.state, [&](const Turn& turn, Seat seat) -> absl::StatusOr<Move> {
    const std::span<const Move> legal = turn.legal();
    if (game.Compared(seat) && legal.size() > 1 && rng_.Below(1000000) < config_.sample_rate * 1e6) {
      auto comparison = PrepareComparison(turn);
      if (!comparison.ok()) return comparison.status();
      comparisons.push_back(*std::move(comparison));
    }
    // The base game goes on with each seat's policy, the compared seat sometimes at random
    // to widen the states seen.
    const Move move = legal[rng_.Below(static_cast<uint32_t>(legal.size()))];
    if (game.Compared(seat) && rng_.Below(1000000) < epsilon * 1e6) return move;
    return (*game.members[static_cast<size_t>(seat)])(turn);
  }, rng_));
  return CompareMoves(comparisons, playouts);
}

absl::Status Trainer::ImitationEpisode(double epsilon) {
  auto base_game = NewBaseGame();
  if (!base_game.ok()) return base_game.status();
  const BaseGame& game = *base_game;
  // The sampled positions, searched once the game is over: the searches run in parallel,
  // each from its own seed, so the decisions stored do not depend on the thread count.
  struct Sampled {
    v1::View view;
    std::vector<Move> legal;
    Mlp::Matrix rows;
    uint64_t seed;
  };
  std::vector<Sampled> sampled;
  GAVEL_RETURN_IF_ERROR(PlayToEnd(*game.state, [&](const Turn& turn, Seat seat) -> absl::StatusOr<Move> {
    const std::span<const Move> legal = turn.legal();
    if (game.Compared(seat) && legal.size() > 1 && rng_.Below(1000000) < config_.sample_rate * 1e6) {
      Sampled& position = sampled.emplace_back(Sampled{turn.view(), {legal.begin(), legal.end()}, {}, rng_.Next()});
      GAVEL_RETURN_IF_ERROR(policy_.Rows(turn, legal, &position.rows));
    }
    const Move move = legal[rng_.Below(static_cast<uint32_t>(legal.size()))];
    if (game.Compared(seat) && rng_.Below(1000000) < epsilon * 1e6) return move;  // widens the states seen
    return (*game.members[static_cast<size_t>(seat)])(turn);
  }, rng_));
  std::vector<absl::StatusOr<IsmctsRoot>> roots(sampled.size(), absl::UnknownError("not searched"));
  ParallelFor(static_cast<int>(sampled.size()), config_.rollout_threads, [&](int i) {
    IsmctsOptions search = config_.teacher;
    search.seed = sampled[static_cast<size_t>(i)].seed;
    roots[static_cast<size_t>(i)] =
        IsmctsSearch(game_, sampled[static_cast<size_t>(i)].view, sampled[static_cast<size_t>(i)].legal, search);
  });
  for (size_t i = 0; i < sampled.size(); ++i) {
    if (!roots[i].ok()) return roots[i].status();
    const std::vector<int>& visits = roots[i]->visits;
    Eigen::VectorXf shares(static_cast<Eigen::Index>(visits.size()));
    for (size_t m = 0; m < visits.size(); ++m)
      shares(static_cast<Eigen::Index>(m)) = std::pow(static_cast<float>(visits[m]), static_cast<float>(config_.share_power));
    if (shares.sum() <= 0) return absl::InternalError("imitation: the teacher searched no iteration");
    Store(Decision{std::move(sampled[i].rows), shares / shares.sum()});
  }
  return absl::OkStatus();
}

void Trainer::Store(Sample sample) {
  pending_steps_ += config_.sample_reuse / config_.batch;
  PutInRing(buffer_, next_slot_, config_.buffer_size, std::move(sample));
}

void Trainer::Store(Decision decision) {
  pending_steps_ += config_.sample_reuse * static_cast<double>(decision.rows.rows()) / config_.batch;
  PutInRing(decisions_, next_decision_, config_.decision_buffer, std::move(decision));
}

float Trainer::TrainDecisionBatch(float learning_rate) {
  if (decisions_.empty()) return 0;
  std::vector<const Decision*> drawn;
  Eigen::Index rows = 0;
  while (rows < config_.batch) {
    drawn.push_back(&decisions_[rng_.Below(static_cast<uint32_t>(decisions_.size()))]);
    rows += drawn.back()->rows.rows();
  }
  Mlp::Matrix inputs(rows, policy_.network().input_size());
  Eigen::Index at = 0;
  for (const Decision* decision : drawn) {
    inputs.middleRows(at, decision->rows.rows()) = decision->rows;
    at += decision->rows.rows();
  }
  const float count = static_cast<float>(drawn.size());
  return policy_.mutable_network().TrainStep(inputs, [&](const Eigen::VectorXf& scores, Eigen::VectorXf* gradient) {
    gradient->resize(scores.size());
    float loss = 0;
    Eigen::Index first = 0;
    for (const Decision* decision : drawn) {
      const Eigen::Index moves = decision->rows.rows();
      const Eigen::VectorXf shifted = scores.segment(first, moves).array() - scores.segment(first, moves).maxCoeff();
      const Eigen::VectorXf exp = shifted.array().exp();
      const float log_sum = std::log(exp.sum());
      loss -= decision->shares.dot(shifted) - log_sum;  // shares sum to 1
      gradient->segment(first, moves) = (exp / exp.sum() - decision->shares) / count;
      first += moves;
    }
    return loss / count;
  }, learning_rate);
}

float Trainer::TrainBatch(float learning_rate) {
  if (config_.method == TrainMethod::kImitation) return TrainDecisionBatch(learning_rate);
  if (buffer_.size() < static_cast<size_t>(config_.batch)) return 0;
  const int input = policy_.network().input_size();
  Mlp::Matrix inputs(config_.batch, input);
  Eigen::VectorXf targets(config_.batch);
  for (int i = 0; i < config_.batch; ++i) {
    const Sample& sample = buffer_[rng_.Below(static_cast<uint32_t>(buffer_.size()))];
    std::copy(sample.input.begin(), sample.input.end(), inputs.row(i).data());
    targets(i) = sample.target;
  }
  return policy_.mutable_network().TrainStep(inputs, targets, learning_rate);
}

Trainer::Opposition Trainer::PopulationOf(const std::vector<NamedPolicy>& members) {
  Opposition population;
  for (const NamedPolicy& member : members) {
    population.name += population.name.empty() ? member.name : "+" + member.name;
    population.members.push_back(member.policy);
  }
  return population;
}

std::vector<Trainer::Opposition> Trainer::OppositionsOf(const TrainConfig& config) {
  std::vector<Opposition> oppositions = {{"random", {RandomPolicy()}}};
  const std::vector<NamedPolicy>& members =
      config.eval_population.empty() ? config.base_opponents : config.eval_population;
  if (!members.empty()) oppositions.push_back(PopulationOf(members));
  for (const NamedPolicy& opponent : config.eval_opponents) oppositions.push_back({opponent.name, {opponent.policy}});
  return oppositions;
}

absl::StatusOr<Evaluation> Trainer::EvaluateAgainst(const Policy& candidate, const Opposition& opposition,
                                                    int games, uint64_t seed) const {
  return Evaluate(game_, config_.players, config_.options, candidate, opposition.members, games, seed,
                  config_.eval_threads);
}

absl::Status Trainer::EvaluateNow(int episode, TrainProgress* report) {
  for (const Opposition& opponent : oppositions_) {
    auto evaluation = EvaluateAgainst(Greedy(), opponent, config_.eval_games, config_.seed * 1000003 + episode);
    if (!evaluation.ok()) return evaluation.status();
    report->evaluations.emplace_back(opponent.name, *evaluation);
  }
  // The selecting opponent: the first after random, else random.
  const Evaluation& selecting = report->evaluations[oppositions_.size() > 1 ? 1 : 0].second;
  if (selecting.win_rate > best_win_rate_) {
    best_win_rate_ = selecting.win_rate;
    best_ = policy_;
    best_->mutable_network().SetMetadataValue("episode", absl::StrCat(episode));
    report->best_so_far = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<double, Evaluation>>> Trainer::TuneMargin(
    const std::vector<double>& margins, int games) {
  if (policy_.AdvisorName().empty()) return absl::FailedPreconditionError("the network takes no advice");
  if (!best_) best_ = policy_;
  const Opposition opponent = config_.tune_population.empty() ? oppositions_[oppositions_.size() > 1 ? 1 : 0]
                                                              : PopulationOf(config_.tune_population);
  std::vector<std::pair<double, Evaluation>> results;
  double best_margin = best_->advice_margin(), best_rate = -1;
  for (double margin : margins) {
    QPolicy candidate = *best_;
    candidate.set_advice_margin(margin);
    auto evaluation = EvaluateAgainst(GreedyOf(candidate), opponent, games, config_.seed * 7919 + 17);
    if (!evaluation.ok()) return evaluation.status();
    results.emplace_back(margin, *evaluation);
    if (evaluation->win_rate > best_rate) std::tie(best_rate, best_margin) = std::pair(evaluation->win_rate, margin);
  }
  best_->set_advice_margin(best_margin);
  return results;
}

absl::Status Trainer::Run(const std::function<void(const TrainProgress&)>& progress) {
  if (policy_.network().input_size() == 0)
    return absl::InvalidArgumentError("cannot create the game to size the network");
  for (int episode = 1; episode <= config_.episodes; ++episode) {
    const double fraction = static_cast<double>(episode) / config_.episodes;
    const double epsilon = Interpolate(config_.epsilon_start, config_.epsilon_end, fraction);
    const double guide_share = Interpolate(config_.guide_start, config_.guide_end, fraction);
    const absl::Status played = config_.method == TrainMethod::kRollouts    ? RolloutEpisode(epsilon)
                                : config_.method == TrainMethod::kImitation ? ImitationEpisode(epsilon)
                                                                            : PlayEpisode(epsilon, guide_share);
    if (!played.ok()) return played;
    TrainProgress report;
    report.episode = episode;
    // The step size decays linearly to a tenth, to settle the noisy Monte-Carlo targets.
    const float learning_rate = config_.learning_rate * static_cast<float>(1 - 0.9 * fraction);
    if (config_.train_steps_per_episode > 0) pending_steps_ = config_.train_steps_per_episode;
    for (; pending_steps_ >= 1; pending_steps_ -= 1) report.loss = TrainBatch(learning_rate);
    if (episode % config_.snapshot_every == 0) snapshots_.push_back(policy_);
    if (episode % config_.eval_every == 0 || episode == config_.episodes) {
      GAVEL_RETURN_IF_ERROR(EvaluateNow(episode, &report));
    }
    progress(report);
  }
  return absl::OkStatus();
}

}  // namespace gavel::learn
