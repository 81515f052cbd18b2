#pragma once
// Places from ordered keys, shared by every game's final ranking and by the 4/2/1-style
// awards: a seat's place is 1 + the number of seats whose key is strictly better.
#include <functional>
#include <utility>
#include <vector>

#include "engine/core/game.h"

namespace gavel {

// Competition ranking ("1224"): 1 + the number of strictly better keys.
template <typename Keys, typename Better = std::greater<typename Keys::value_type>>
PerSeat<int> CompetitionRanks(const Keys& keys, Better better = Better()) {
  PerSeat<int> ranks(keys.size(), 1);
  for (size_t i = 0; i < keys.size(); ++i)
    for (size_t j = 0; j < keys.size(); ++j)
      if (better(keys[j], keys[i])) ++ranks[i];
  return ranks;
}

// The outcome of a game that ranks by ordered keys: every seat's score, and its competition
// rank by `keys` (higher is better) once `finished`, all 0 before.
template <typename Keys>
Outcome RankedOutcome(const PerSeat<double>& scores, const Keys& keys, bool finished) {
  return {.scores = scores, .ranks = finished ? CompetitionRanks(keys) : PerSeat<int>(keys.size(), 0)};
}

// Dense ranking ("1223"): 1 + the number of distinct strictly better keys.
template <typename Keys, typename Better = std::greater<typename Keys::value_type>>
PerSeat<int> DenseRanks(const Keys& keys, Better better = Better()) {
  using Key = typename Keys::value_type;
  PerSeat<int> ranks(keys.size(), 1);
  for (size_t i = 0; i < keys.size(); ++i) {
    PerSeat<Key> distinct_better;
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
