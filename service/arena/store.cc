#include "service/arena/store.h"

#include <ctime>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "service/arena/postgres_store.h"
#include "service/arena/sqlite_store.h"

namespace gavel::arena {

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& location) {
  if (absl::StartsWith(location, "postgresql://") || absl::StartsWith(location, "postgres://"))
    return PostgresStore::Open(location);
  return SqliteStore::Open(location);
}

namespace {

absl::Status NoQueue() {
  return absl::UnimplementedError("several arenas need a PostgreSQL store (--db=postgresql://...)");
}

}  // namespace

absl::Status Store::EnqueueMatches(const std::vector<QueuedMatch>&) { return NoQueue(); }
absl::StatusOr<std::optional<QueuedMatch>> Store::ClaimMatch(const std::string&,
                                                             const std::vector<std::string>&, int64_t) {
  return NoQueue();
}
absl::Status Store::RenewLeases(const std::string&, int64_t) { return NoQueue(); }
absl::Status Store::FinishQueuedMatch(const std::string&, const QueuedMatch&, const MatchRecord&) {
  return NoQueue();
}
absl::StatusOr<std::vector<Store::QueueEntry>> Store::QueueResults(int64_t) { return NoQueue(); }

int64_t UnixNow() { return static_cast<int64_t>(time(nullptr)); }

std::string EncodeOptions(const OptionMap& options) {
  return absl::StrJoin(options, ";", absl::PairFormatter("="));
}

OptionMap DecodeOptions(const std::string& text) {
  OptionMap options;
  for (absl::string_view item : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::pair<std::string, std::string> pair = absl::StrSplit(item, absl::MaxSplits('=', 1));
    options.insert(pair);
  }
  return options;
}


}  // namespace gavel::arena
