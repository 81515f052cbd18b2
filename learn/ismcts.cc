#include "learn/ismcts.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "engine/core/ranking.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"

namespace gavel::learn {
namespace {

// A prior probability per move id of the root.
using RootPriors = absl::flat_hash_map<uint32_t, double>;

struct Node {
  Move move;              // the move that led here
  Seat mover = kNoSeat;   // the seat that made it
  double reward = 0;      // sum of the mover's rewards through this node
  int visits = 0;
  int available = 0;      // iterations in which this move was legal at the parent
  std::vector<std::unique_ptr<Node>> children;

  Node* Child(Move m) {
    for (auto& child : children)
      if (child->move == m) return child.get();
    return nullptr;
  }
};

// UCB1 with availability (the number of times the child could have been chosen), among the
// children of the moves legal in this determinization.
Node* SelectChild(const std::vector<Node*>& children, double exploration) {
  Node* best = nullptr;
  double best_score = -1;
  for (Node* child : children) {
    const double mean = child->reward / child->visits;
    const double score =
        mean + exploration * std::sqrt(std::log(static_cast<double>(child->available)) / child->visits);
    if (score > best_score) {
      best_score = score;
      best = child;
    }
  }
  return best;
}

// The root's move by PUCT over the legal moves of this determinization that have a prior; an
// untried move counts as neutral (reward 0.5). Null when none has a prior.
Node* SelectByPrior(Node& root, const std::vector<Move>& legal, const RootPriors& priors, double weight) {
  const double explore = weight * std::sqrt(static_cast<double>(root.visits) + 1);
  Node* best = nullptr;
  Move best_move{};
  double best_score = -1;
  for (Move move : legal) {
    auto prior = priors.find(move.id);
    if (prior == priors.end()) continue;
    Node* child = root.Child(move);
    const int visits = child ? child->visits : 0;
    const double mean = visits > 0 ? child->reward / visits : 0.5;
    const double score = mean + explore * prior->second / (1 + visits);
    if (score > best_score) {
      best_score = score;
      best = child;
      best_move = move;
    }
  }
  if (best == nullptr && best_score >= 0) {  // the best is untried: expand it
    auto child = std::make_unique<Node>();
    child->move = best_move;
    root.children.push_back(std::move(child));
    best = root.children.back().get();
  }
  return best;
}

// A play-out's move: random, or the play-out policy's from the mover's view.
absl::StatusOr<Move> PlayoutMove(const State& state, const std::vector<Move>& legal, Rng& rng,
                                 const IsmctsOptions& options) {
  const Seat mover = state.to_move();
  if (options.playout_policy == nullptr || legal.size() == 1 || state.IsAutomaton(mover))
    return legal[rng.Below(static_cast<uint32_t>(legal.size()))];
  v1::View view;
  state.Observe(mover, &view);
  return (*options.playout_policy)(Turn(state, view, legal, rng));
}

// Buffers an iteration reuses, so that a search allocates only its tree's new nodes.
struct Scratch {
  std::vector<Node*> path;
  std::vector<Move> legal, unexplored;
  std::vector<Node*> children;  // of the legal moves, in their order
};

absl::Status RunIteration(Node& root, State& state, Rng& rng, const IsmctsOptions& options,
                          const RootPriors& priors, Scratch& scratch) {
  std::vector<Node*>& path = scratch.path;
  std::vector<Move>& legal = scratch.legal;
  path.assign(1, &root);
  Node* node = &root;
  bool expanded = false;  // a new leaf was added: straight to the play-out
  if (!priors.empty() && !state.finished()) {
    state.LegalMoves(legal);
    if (Node* chosen = SelectByPrior(root, legal, priors, options.prior_weight); chosen != nullptr) {
      expanded = chosen->visits == 0;
      chosen->mover = state.to_move();
      path.push_back(chosen);
      state.ApplyLegal(chosen->move, nullptr);
      node = chosen;
    }
  }
  // Selection and expansion over the moves legal in this determinization.
  while (!expanded && !state.finished()) {
    state.LegalMoves(legal);
    std::vector<Move>& unexplored = scratch.unexplored;
    std::vector<Node*>& children = scratch.children;
    unexplored.clear();
    children.clear();
    for (Move move : legal) {
      Node* child = node->Child(move);
      children.push_back(child);
      if (child == nullptr) unexplored.push_back(move);
      else ++child->available;
    }
    const Seat mover = state.to_move();
    if (!unexplored.empty()) {
      const Move move = unexplored[rng.Below(static_cast<uint32_t>(unexplored.size()))];
      auto child = std::make_unique<Node>();
      child->move = move;
      child->mover = mover;
      child->available = 1;
      node->children.push_back(std::move(child));
      node = node->children.back().get();
      path.push_back(node);
      state.ApplyLegal(move, nullptr);
      break;
    }
    node = SelectChild(children, options.exploration);
    path.push_back(node);
    state.ApplyLegal(node->move, nullptr);
  }
  // playout_moves 0 means "to the end", except with leaf values: "none, value the leaf".
  const int playout_limit = options.playout_moves > 0 || options.leaf_values ? options.playout_moves : -1;
  for (int played = 0; played != playout_limit && !state.finished(); ++played) {
    state.LegalMoves(legal);
    auto move = PlayoutMove(state, legal, rng, options);
    if (!move.ok()) return move.status();
    if (options.playout_policy != nullptr && std::find(legal.begin(), legal.end(), *move) == legal.end())
      return absl::InternalError("ismcts: the play-out policy chose an illegal move");
    state.ApplyLegal(*move, nullptr);
  }
  std::vector<double> rewards;
  if (state.finished()) {
    rewards = PlaceRewards(state.outcome());
  } else if (options.leaf_values) {
    auto values = options.leaf_values(state);
    if (!values.ok()) return values.status();
    if (values->size() != static_cast<size_t>(state.seats()))
      return absl::InternalError("ismcts: the leaf values must give one reward per seat");
    rewards = *std::move(values);
  } else {
    rewards = ProvisionalRewards(state.outcome());
  }
  for (Node* visited : path) {
    ++visited->visits;
    if (visited->mover != kNoSeat) visited->reward += rewards[visited->mover];
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<double> PlaceRewards(const Outcome& outcome) {
  const size_t seats = outcome.ranks.size();
  std::vector<double> rewards(seats, 0);
  for (size_t seat = 0; seat < seats; ++seat)
    rewards[seat] = seats > 1 ? static_cast<double>(seats - outcome.ranks[seat]) / (seats - 1) : 1;
  return rewards;
}

std::vector<double> ProvisionalRewards(const Outcome& outcome) {
  Outcome ranked = outcome;
  ranked.ranks = CompetitionRanks(outcome.scores);
  return PlaceRewards(ranked);
}

absl::StatusOr<IsmctsRoot> IsmctsSearch(const Game& game, const v1::View& view,
                                        std::span<const Move> legal, const IsmctsOptions& options,
                                        std::span<const double> root_priors) {
  if (legal.empty()) return absl::InvalidArgumentError("ismcts: no legal move to choose from");
  IsmctsRoot result{std::vector<int>(legal.size(), 0), std::vector<double>(legal.size(), 0), 0};
  if (legal.size() == 1) return result;
  if (!root_priors.empty() && root_priors.size() != legal.size())
    return absl::InvalidArgumentError("ismcts: one prior per legal move");
  RootPriors priors;
  for (size_t i = 0; i < root_priors.size(); ++i) priors[legal[i].id] = root_priors[i];
  Rng rng(Rng::FromSeed(options.seed));
  Node root;
  Scratch scratch;
  const auto start = std::chrono::steady_clock::now();  // preparing the view counts too
  auto resampler = game.MakeResampler(view);
  if (!resampler.ok()) return resampler.status();
  for (int iteration = 0;; ++iteration) {
    if (options.time_budget_ms > 0) {
      const std::chrono::duration<double, std::milli> spent = std::chrono::steady_clock::now() - start;
      if (spent.count() >= options.time_budget_ms && iteration > 0) break;
    } else if (iteration >= options.iterations) {
      break;
    }
    auto determinization = (*resampler)->Draw(rng.Next());
    if (!determinization.ok()) return determinization.status();
    if (auto status = RunIteration(root, **determinization, rng, options, priors, scratch); !status.ok()) return status;
  }
  for (size_t i = 0; i < legal.size(); ++i) {
    const Node* child = root.Child(legal[i]);
    if (child == nullptr || child->visits == 0) continue;
    result.visits[i] = child->visits;
    result.mean_reward[i] = child->reward / child->visits;
    if (result.visits[i] > result.visits[result.chosen]) result.chosen = i;
  }
  return result;
}

absl::StatusOr<Move> IsmctsChoose(const Game& game, const v1::View& view,
                                  std::span<const Move> legal, const IsmctsOptions& options,
                                  std::span<const double> root_priors) {
  auto root = IsmctsSearch(game, view, legal, options, root_priors);
  if (!root.ok()) return root.status();
  return legal[root->chosen];
}

Policy IsmctsPolicy(const Game& game, IsmctsOptions options) {
  return [&game, options](const Turn& turn) {
    IsmctsOptions seeded = options;
    seeded.seed = turn.rng().Next();
    return IsmctsChoose(game, turn.view(), turn.legal(), seeded);
  };
}

Policy IsmctsPolicy(IsmctsOptions options) {
  return [options](const Turn& turn) -> absl::StatusOr<Move> {
    const Game* game = FindGame(turn.view().game());
    if (game == nullptr)
      return absl::NotFoundError(absl::StrCat("this build has no game ", turn.view().game()));
    return IsmctsPolicy(*game, options)(turn);
  };
}

}  // namespace gavel::learn
