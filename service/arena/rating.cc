#include "service/arena/rating.h"

#include <algorithm>
#include <cmath>

namespace gavel::arena {
namespace {

constexpr double kKappa = 1e-4;  // keeps sigma^2 positive
constexpr double kComparisonVariance = 2 * kPerformanceSpread * kPerformanceSpread;  // two performances
constexpr double kZ95 = 1.959964;

}  // namespace

void UpdateRatings(const std::vector<Rating*>& players, const std::vector<int>& ranks) {
  const size_t n = players.size();
  std::vector<Rating> before(n);
  for (size_t i = 0; i < n; ++i) before[i] = *players[i];
  std::vector<double> omega(n, 0), delta(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t q = 0; q < n; ++q) {
      if (q == i) continue;
      const double var_i = before[i].sigma * before[i].sigma;
      const double c = std::sqrt(var_i + before[q].sigma * before[q].sigma + kComparisonVariance);
      const double p_iq = 1 / (1 + std::exp((before[q].mu - before[i].mu) / c));
      const double s = ranks[i] < ranks[q] ? 1 : ranks[i] == ranks[q] ? 0.5 : 0;
      const double gamma = before[i].sigma / c;
      omega[i] += var_i / c * (s - p_iq);
      delta[i] += gamma * var_i / (c * c) * p_iq * (1 - p_iq);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    players[i]->mu += omega[i];
    players[i]->sigma *= std::sqrt(std::max(1 - delta[i], kKappa));
    ++players[i]->games;
  }
}

std::pair<double, double> WilsonInterval(double rate, int n) {
  if (n <= 0) return {0, 0};
  const double z2 = kZ95 * kZ95;
  const double center = (rate + z2 / (2 * n)) / (1 + z2 / n);
  const double half = kZ95 * std::sqrt(rate * (1 - rate) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

}  // namespace gavel::arena
