#include "learn/field.h"

#include <algorithm>
#include <cmath>

#include "Eigen/Dense"
#include "engine/core/seating.h"

namespace gavel::learn {
namespace {

// Every way to choose `k` of `n` members, in lexicographic order.
std::vector<std::vector<int>> Combinations(int n, int k) {
  std::vector<std::vector<int>> all;
  std::vector<int> chosen(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) chosen[static_cast<size_t>(i)] = i;
  while (true) {
    all.push_back(chosen);
    int i = k - 1;
    while (i >= 0 && chosen[static_cast<size_t>(i)] == n - k + i) --i;
    if (i < 0) return all;
    ++chosen[static_cast<size_t>(i)];
    for (int j = i + 1; j < k; ++j) chosen[static_cast<size_t>(j)] = chosen[static_cast<size_t>(j - 1)] + 1;
  }
}

// One match's outcome for the field: per decider seat, its entry, rank, score and win share.
struct SeatResult {
  int entry = 0, rank = 0;
  double score = 0, win = 0;
};

absl::StatusOr<std::vector<SeatResult>> PlayFieldMatch(const Game& game, std::span<const FieldEntry> field,
                                                       const std::vector<int>& table,
                                                       int groups, const std::vector<Seat>& deciders, int seats,
                                                       const FieldOptions& options, int deal, int rotation) {
  const int k = static_cast<int>(deciders.size());
  std::vector<Policy> policies(static_cast<size_t>(seats), RandomPolicy());  // automata: never asked
  std::vector<int> entry_of(static_cast<size_t>(seats), -1);
  // The table changes its cyclic order each time it comes round among the `groups` tables.
  const std::vector<int> seated = Seated(table, static_cast<uint64_t>(deal / groups), rotation);
  for (int s = 0; s < k; ++s) {
    const int entry = seated[static_cast<size_t>(s)];
    policies[static_cast<size_t>(deciders[static_cast<size_t>(s)])] = field[static_cast<size_t>(entry)].policy;
    entry_of[static_cast<size_t>(deciders[static_cast<size_t>(s)])] = entry;
  }
  const uint64_t index = static_cast<uint64_t>(deal) * static_cast<uint64_t>(k) + static_cast<uint64_t>(rotation);
  Rng rng = GameRng(options.seed, index);
  const Match match{options.players, options.options, options.seed + static_cast<uint64_t>(deal)};
  auto outcome = PlayGame(game, match, policies, rng);
  if (!outcome.ok()) return outcome.status();
  int winners = 0;
  for (int rank : outcome->ranks) winners += rank == 1;
  std::vector<SeatResult> results;
  for (Seat seat : deciders) {
    const size_t s = static_cast<size_t>(seat);
    results.push_back(SeatResult{entry_of[s], outcome->ranks[s], outcome->scores[s],
                                 outcome->ranks[s] == 1 ? 1.0 / winners : 0.0});
  }
  return results;
}

// Adds one match's pairwise places to the rows (indexed by field entry): for every two seats
// of different members, a meeting for both and the better place's point (half each on a tie).
void CountPlaces(const std::vector<SeatResult>& match, std::vector<FieldRow>& rows) {
  for (const SeatResult& a : match)
    for (const SeatResult& b : match) {
      if (a.entry == b.entry) continue;
      FieldRow& row = rows[static_cast<size_t>(a.entry)];
      ++row.met[static_cast<size_t>(b.entry)];
      row.placed_above[static_cast<size_t>(b.entry)] += a.rank < b.rank ? 1 : a.rank == b.rank ? 0.5 : 0;
    }
}

// The arena's prior (a new player's rating) and the spread of a comparison of two performances.
constexpr double kPriorMu = arena::Rating{}.mu, kPriorSigma = arena::Rating{}.sigma;
const double kComparisonSpread = std::sqrt(2.0) * arena::kPerformanceSpread;

// The log posterior of skills `mu` given the pairwise results, its gradient and Hessian.
double LogPosterior(const std::vector<std::vector<double>>& wins, const Eigen::VectorXd& mu,
                    Eigen::VectorXd* gradient, Eigen::MatrixXd* hessian) {
  const auto n = mu.size();
  const double prior_precision = 1 / (kPriorSigma * kPriorSigma), c = kComparisonSpread;
  double value = -0.5 * prior_precision * (mu.array() - kPriorMu).square().sum();
  *gradient = -prior_precision * (mu.array() - kPriorMu).matrix();
  *hessian = -prior_precision * Eigen::MatrixXd::Identity(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      const double won = wins[static_cast<size_t>(i)][static_cast<size_t>(j)];
      if (i == j || won == 0) continue;
      // i placed above j `won` times: each adds log P(i above j) = -log(1 + exp(-(mu_i - mu_j) / c)).
      const double d = (mu[i] - mu[j]) / c, lost_chance = 1 / (1 + std::exp(d));
      value -= won * std::log1p(std::exp(-d));
      const double slope = won * lost_chance / c, curvature = won * lost_chance * (1 - lost_chance) / (c * c);
      (*gradient)[i] += slope;
      (*gradient)[j] -= slope;
      (*hessian)(i, i) -= curvature;
      (*hessian)(j, j) -= curvature;
      (*hessian)(i, j) += curvature;
      (*hessian)(j, i) += curvature;
    }
  return value;
}

}  // namespace

std::vector<arena::Rating> FitPairwiseRatings(const std::vector<std::vector<double>>& wins) {
  const auto n = static_cast<Eigen::Index>(wins.size());
  Eigen::VectorXd mu = Eigen::VectorXd::Constant(n, kPriorMu), gradient;
  Eigen::MatrixXd hessian;
  double value = LogPosterior(wins, mu, &gradient, &hessian);
  // Newton's method on a strictly concave function, each step halved until it gains.
  for (int iteration = 0; iteration < 100; ++iteration) {
    const Eigen::VectorXd step = (-hessian).ldlt().solve(gradient);
    if (step.lpNorm<Eigen::Infinity>() < 1e-9) break;
    Eigen::VectorXd next_gradient;
    Eigen::MatrixXd next_hessian;
    double scale = 1, next = 0;
    while ((next = LogPosterior(wins, mu + scale * step, &next_gradient, &next_hessian)) < value && scale > 1e-6)
      scale /= 2;
    mu += scale * step;
    value = next;
    gradient = std::move(next_gradient);
    hessian = std::move(next_hessian);
  }
  // Sigma from each skill's own curvature, the others held at their fit, as the match-by-match
  // update treats a match's opponents. (The full covariance would add to every sigma the
  // uncertainty of the field's common level, which only the prior fixes: the same for everyone,
  // so it does not bear on who is better.)
  std::vector<arena::Rating> ratings(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    auto& rating = ratings[static_cast<size_t>(i)];
    rating.mu = mu[i];
    rating.sigma = 1 / std::sqrt(-hessian(i, i));
  }
  return ratings;
}

absl::StatusOr<std::vector<FieldRow>> EvaluateField(const Game& game, std::span<const FieldEntry> field,
                                                    const FieldOptions& options) {
  if (field.empty()) return absl::InvalidArgumentError("a field needs at least one policy");
  if (options.deals <= 0) return absl::InvalidArgumentError("a field evaluation needs at least one deal");
  auto probe = game.NewGame(options.players, 0, options.options);
  if (!probe.ok()) return probe.status();
  const int seats = (*probe)->seats();
  std::vector<Seat> deciders;  // seats of automata (decided by the rules) take no policy
  for (Seat s = 0; s < seats; ++s)
    if (!(*probe)->IsAutomaton(s)) deciders.push_back(s);
  const int n = static_cast<int>(field.size()), k = static_cast<int>(deciders.size());
  std::vector<std::vector<int>> tables;
  if (n >= k) {
    tables = Combinations(n, k);
  } else {
    tables.emplace_back();
    for (int s = 0; s < k; ++s) tables.back().push_back(s % n);
  }

  const int matches = options.deals * k;
  std::vector<absl::StatusOr<std::vector<SeatResult>>> results(static_cast<size_t>(matches));
  ParallelFor(matches, options.threads, [&](int m) {
    const int deal = m / k;
    results[static_cast<size_t>(m)] =
        PlayFieldMatch(game, field, tables[static_cast<size_t>(deal) % tables.size()],
                       static_cast<int>(tables.size()), deciders, seats, options, deal, m % k);
  });

  std::vector<FieldRow> rows(static_cast<size_t>(n));
  for (FieldRow& row : rows) {
    row.met.assign(static_cast<size_t>(n), 0);
    row.placed_above.assign(static_cast<size_t>(n), 0);
  }
  std::vector<std::vector<double>> wins(static_cast<size_t>(n)), scores(static_cast<size_t>(n));
  for (const auto& played : results) {  // in the deals' order, so the ratings are reproducible
    if (!played.ok()) return played.status();
    std::vector<arena::Rating*> players;
    std::vector<int> ranks;
    for (const SeatResult& seat : *played) {
      players.push_back(&rows[static_cast<size_t>(seat.entry)].rating);
      ranks.push_back(seat.rank);
      wins[static_cast<size_t>(seat.entry)].push_back(seat.win);
      scores[static_cast<size_t>(seat.entry)].push_back(seat.score);
    }
    arena::UpdateRatings(players, ranks);
    CountPlaces(*played, rows);
  }
  std::vector<std::vector<double>> placed_above_counts;
  for (const FieldRow& row : rows) placed_above_counts.push_back(row.placed_above);
  const std::vector<arena::Rating> fitted = FitPairwiseRatings(placed_above_counts);
  for (int e = 0; e < n; ++e) {
    FieldRow& row = rows[static_cast<size_t>(e)];
    row.fitted = fitted[static_cast<size_t>(e)];
    row.name = field[static_cast<size_t>(e)].name;
    row.entry = e;
    row.seats = static_cast<int>(wins[static_cast<size_t>(e)].size());
    if (row.seats == 0) continue;
    row.win_rate = MeanAndCi95(wins[static_cast<size_t>(e)]).first;
    for (int other = 0; other < n; ++other)
      if (const int met = row.met[static_cast<size_t>(other)]; met > 0)
        row.placed_above[static_cast<size_t>(other)] /= met;
    std::tie(row.mean_score, row.mean_score_ci95) = MeanAndCi95(scores[static_cast<size_t>(e)]);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const FieldRow& a, const FieldRow& b) {
    return a.rating.conservative() > b.rating.conservative();
  });
  return rows;
}

}  // namespace gavel::learn
