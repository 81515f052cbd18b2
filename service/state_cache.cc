#include "service/state_cache.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/registry.h"

namespace gavel::service {
namespace {

// Shards keep handler threads from queueing on one lock.
constexpr size_t kShards = 16;

// A state's bytes and their kind, with their hash, computed once per call outside any lock.
struct Key {
  Key(KeptAs kind, absl::string_view bytes) : kind(kind), bytes(bytes), hash(absl::HashOf(kind, bytes)) {}
  Key(KeptAs kind, absl::string_view bytes, size_t hash) : kind(kind), bytes(bytes), hash(hash) {}

  KeptAs kind;
  absl::string_view bytes;
  size_t hash;
};
struct KeyHash {
  size_t operator()(const Key& key) const { return key.hash; }
};
struct KeyEqual {
  bool operator()(const Key& a, const Key& b) const { return a.kind == b.kind && a.bytes == b.bytes; }
};

struct Entry {
  KeptAs kind = KeptAs::kFullState;
  std::string bytes;  // the key's storage; reused by the entry that replaces it
  size_t hash = 0;
  std::unique_ptr<const State> state;
};

}  // namespace

// A ring of entries, replaced oldest first, and an index of their bytes.
struct StateCache::Shard {
  explicit Shard(size_t slots) : ring(slots) {}

  absl::Mutex mutex;
  std::vector<Entry> ring ABSL_GUARDED_BY(mutex);
  absl::flat_hash_map<Key, size_t, KeyHash, KeyEqual> index ABSL_GUARDED_BY(mutex);
  size_t next ABSL_GUARDED_BY(mutex) = 0;
};

StateCache::StateCache(size_t capacity, prometheus::Registry* registry) : capacity_(capacity) {
  if (capacity_ > 0) {
    const size_t slots = (capacity_ + kShards - 1) / kShards;
    for (size_t i = 0; i < kShards; ++i) shards_.push_back(std::make_unique<Shard>(slots));
  }
  if (registry == nullptr) {
    own_registry_ = std::make_unique<prometheus::Registry>();
    registry = own_registry_.get();
  }
  auto& lookups = prometheus::BuildCounter()
                      .Name("gavel_engine_state_cache_lookups_total")
                      .Help("States looked up in the decoded-state cache, by result")
                      .Register(*registry);
  hits_ = &lookups.Add({{"result", "hit"}});
  misses_ = &lookups.Add({{"result", "miss"}});
}

StateCache::~StateCache() = default;

double StateCache::hits() const { return hits_->Value(); }
double StateCache::misses() const { return misses_->Value(); }

StateCache::Shard& StateCache::ShardOf(size_t hash) {
  // The top bits: the map inside uses the low ones.
  return *shards_[(hash >> (8 * sizeof(size_t) - 4)) % kShards];
}

std::unique_ptr<State> StateCache::Find(const Game& game, KeptAs kind, absl::string_view bytes) {
  return CopyKept(&game, kind, bytes);
}

std::unique_ptr<State> StateCache::FindAnyGame(KeptAs kind, absl::string_view bytes) {
  return CopyKept(nullptr, kind, bytes);
}

std::unique_ptr<State> StateCache::CopyKept(const Game* game, KeptAs kind, absl::string_view bytes) {
  if (capacity_ == 0) return nullptr;
  const Key key(kind, bytes);
  Shard& shard = ShardOf(key.hash);
  std::unique_ptr<State> copy;
  {
    absl::MutexLock lock(&shard.mutex);
    const auto found = shard.index.find(key);
    if (found != shard.index.end()) {
      const State& state = *shard.ring[found->second].state;
      if (game == nullptr || &state.game() == game) copy = state.Clone();
    }
  }
  (copy != nullptr ? hits_ : misses_)->Increment();
  return copy;
}

void StateCache::Add(KeptAs kind, absl::string_view bytes, std::unique_ptr<const State> state) {
  if (capacity_ == 0) return;
  const Key key(kind, bytes);
  Shard& shard = ShardOf(key.hash);
  std::unique_ptr<const State> replaced;  // freed after the lock
  absl::MutexLock lock(&shard.mutex);
  if (shard.index.contains(key)) return;  // the same state written again
  Entry& entry = shard.ring[shard.next];
  if (entry.state != nullptr) shard.index.erase(Key(entry.kind, entry.bytes, entry.hash));
  entry.kind = kind;
  entry.bytes.assign(bytes.data(), bytes.size());
  entry.hash = key.hash;
  replaced = std::exchange(entry.state, std::move(state));
  shard.index.emplace(Key(kind, entry.bytes, key.hash), shard.next);
  shard.next = (shard.next + 1) % shard.ring.size();
}

}  // namespace gavel::service
