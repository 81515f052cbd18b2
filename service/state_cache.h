#pragma once
// Decoded states this server wrote recently, found again by their exact bytes.
//
// A caller sends back the state its last call returned: the arena's referee, a game
// backend, a bot's loop. Decoding and validating those bytes again was the largest part of
// an Apply (docs/performance.md, "The decoded-state cache"). The server keeps each state it
// writes, decoded, under its serialization; a request carrying exactly those bytes gets a
// copy instead of a decode. Any other bytes, one differing byte included, are decoded and
// validated completely, as before: a state from the cache is one this server produced from
// a validated state and a legal move, and equal bytes decode to an equal state. Bounded:
// the oldest state goes when it is full.
//
// A sealed table's state is kept under its token (SealedStateKey), apart from full states: a
// full state whose bytes equal a token's key must not find the table's state, which only a
// capability of that table may open (any seat holds the token).
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/string_view.h"
#include "engine/core/game.h"

namespace prometheus {
class Counter;
class Registry;
}  // namespace prometheus

namespace gavel::service {

// What a state is kept under: the bytes of a full state, or a sealed table's token.
enum class KeptAs : uint8_t { kFullState, kSealedToken };

class StateCache {
 public:
  // Holds up to `capacity` states, rounded up to a multiple of its 16 shards (0: none, every
  // state is decoded). Counts lookups as
  // gavel_engine_state_cache_lookups_total{result="hit"|"miss"}, in `registry` when given.
  explicit StateCache(size_t capacity, prometheus::Registry* registry = nullptr);
  ~StateCache();
  StateCache(const StateCache&) = delete;
  StateCache& operator=(const StateCache&) = delete;

  // A copy of the state of `game` kept as `kind` under exactly `bytes`, or nullptr when none
  // is held.
  std::unique_ptr<State> Find(const Game& game, KeptAs kind, absl::string_view bytes);
  // The same for a state of any game: for keys that name their game themselves.
  std::unique_ptr<State> FindAnyGame(KeptAs kind, absl::string_view bytes);
  // Keeps `state` as `kind` under `bytes`: for a full state, its GameState's bytes.
  void Add(KeptAs kind, absl::string_view bytes, std::unique_ptr<const State> state);

  size_t capacity() const { return capacity_; }
  // Lookups so far that found their state, and those that did not.
  double hits() const;
  double misses() const;

 private:
  struct Shard;
  Shard& ShardOf(size_t hash);
  // A copy of the state kept as `kind` under `bytes`, if it is `game`'s (any game's: nullptr).
  std::unique_ptr<State> CopyKept(const Game* game, KeptAs kind, absl::string_view bytes);

  size_t capacity_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::unique_ptr<prometheus::Registry> own_registry_;  // without a server's
  prometheus::Counter* hits_;
  prometheus::Counter* misses_;
};

}  // namespace gavel::service
