#pragma once
// A player's skill belief and its update from one ranking: the Bayesian approximation of Weng
// and Lin (JMLR 2011, Algorithm 1, Bradley-Terry model with full pairing), for any number of
// players per match; and the interval of a win rate. No dependencies, so the arena and
// in-process evaluation (gavel-eval) rate and report the same way.
#include <utility>
#include <vector>

namespace gavel::arena {

// The spread of one performance around a player's skill (beta of Weng and Lin).
inline constexpr double kPerformanceSpread = 25.0 / 6;

struct Rating {
  double mu = 25.0;
  double sigma = 25.0 / 3;
  int games = 0;
  // What the leaderboards sort by: a rating the player is 99.7% likely to exceed.
  double conservative() const { return mu - 3 * sigma; }
};

// Updates the ratings of the players of one match from their ranks (1 = best, ties
// share a rank). A player listed twice (a bot holding two seats) gets both updates.
void UpdateRatings(const std::vector<Rating*>& players, const std::vector<int>& ranks);

// The Wilson score 95% interval of a rate seen over `n` trials (a win rate; a win shared by k
// players counts 1/k): inside [0, 1] and sound near 0 and 1, where the normal approximation
// is not. {0, 0} for n = 0.
std::pair<double, double> WilsonInterval(double rate, int n);

}  // namespace gavel::arena
