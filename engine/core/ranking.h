#pragma once
// Places from ordered keys, shared by every game's final ranking and by the 4/2/1-style
// awards: a seat's place is 1 + the number of seats whose key is strictly better.
#include <functional>
#include <vector>

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
