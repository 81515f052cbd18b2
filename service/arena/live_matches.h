#pragma once
// The matches being played in this arena, move by move, for the pages' live view. Bounded
// by the matches in play (each is removed when it ends).
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "service/arena/store.h"

namespace gavel::arena {

class LiveMatches {
 public:
  void Begin(const MatchRecord& match);  // after the store gave it its id
  void Append(int64_t id, const MoveRecord& move);
  void End(int64_t id);
  // A copy of the match as far as it was played.
  std::optional<MatchRecord> Find(int64_t id) const;
  // Every match in play, without their moves (`moves` empty; see Find).
  std::vector<MatchRecord> Summaries() const;
  size_t MovesOf(int64_t id) const;

 private:
  mutable std::mutex mutex_;
  std::map<int64_t, MatchRecord> matches_;
};

}  // namespace gavel::arena
