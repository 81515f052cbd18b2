#pragma once
// Places from ordered keys, shared by every game's final ranking and by the 4/2/1-style
// awards: a seat's place is 1 + the number of seats whose key is strictly better.
#include <functional>
#include <utility>
#include <vector>

#include "engine/core/game.h"

namespace gavel {

// Competition ranking ("1224"): 1 + the number of strictly better keys.
template <typename Key, typename Better = std::greater<Key>>
std::vector<int> CompetitionRanks(const std::vector<Key>& keys, Better better = Better()) {
  std::vector<int> ranks(keys.size(), 1);
  for (size_t i = 0; i < keys.size(); ++i)
    for (size_t j = 0; j < keys.size(); ++j)
      if (better(keys[j], keys[i])) ++ranks[i];
  return ranks;
}

// The outcome of a game that ranks by ordered keys: every seat's score, and its competition
// rank by `keys` (higher is better) once `finished`, all 0 before. The callers size both
// vectors at once: the service asks for the outcome in every call.
template <typename Key>
Outcome RankedOutcome(std::vector<double> scores, const std::vector<Key>& keys, bool finished) {
  Outcome outcome;
  outcome.ranks = finished ? CompetitionRanks(keys) : std::vector<int>(keys.size(), 0);
  outcome.scores = std::move(scores);
  return outcome;
}

// Dense ranking ("1223"): 1 + the number of distinct strictly better keys.
template <typename Key, typename Better = std::greater<Key>>
std::vector<int> DenseRanks(const std::vector<Key>& keys, Better better = Better()) {
  std::vector<int> ranks(keys.size(), 1);
  for (size_t i = 0; i < keys.size(); ++i) {
    std::vector<Key> distinct_better;
    for (size_t j = 0; j < keys.size(); ++j) {
      if (!better(keys[j], keys[i])) continue;
      bool seen = false;
      for (const Key& key : distinct_better)
        if (!better(key, keys[j]) && !better(keys[j], key)) seen = true;
      if (!seen) distinct_better.push_back(keys[j]);
    }
    ranks[i] += static_cast<int>(distinct_better.size());
  }
  return ranks;
}

}  // namespace gavel
