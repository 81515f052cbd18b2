#include "service/arena/live_matches.h"

namespace gavel::arena {

void LiveMatches::Begin(const MatchRecord& match) {
  std::lock_guard lock(mutex_);
  matches_[match.id] = match;
}

void LiveMatches::Append(int64_t id, const MoveRecord& move) {
  std::lock_guard lock(mutex_);
  if (auto it = matches_.find(id); it != matches_.end()) it->second.moves.push_back(move);
}

void LiveMatches::End(int64_t id) {
  std::lock_guard lock(mutex_);
  matches_.erase(id);
}

std::optional<MatchRecord> LiveMatches::Find(int64_t id) const {
  std::lock_guard lock(mutex_);
  auto it = matches_.find(id);
  if (it == matches_.end()) return std::nullopt;
  return it->second;
}

std::vector<MatchRecord> LiveMatches::Summaries() const {
  std::lock_guard lock(mutex_);
  std::vector<MatchRecord> summaries;
  for (const auto& [id, match] : matches_) {
    MatchRecord summary = match;
    summary.moves.clear();
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

size_t LiveMatches::MovesOf(int64_t id) const {
  std::lock_guard lock(mutex_);
  auto it = matches_.find(id);
  return it == matches_.end() ? 0 : it->second.moves.size();
}

}  // namespace gavel::arena
