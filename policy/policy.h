#pragma once
// The one policy type every player of gavel is made of: Dirk's rules, random play, the learned
// networks, search. A policy sees one seat's turn (its view and the legal moves, never the
// full state) and returns a move or says why it cannot. Bots (bots/) adapt a policy to the
// arena's protocol; learning and evaluation (learn/) call it in-process.
#include <functional>
#include <optional>
#include <span>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "engine/core/proto_util.h"
#include "engine/core/rng.h"
#include "gavel/v1/engine.pb.h"

namespace gavel::policy {

// The legal moves with id and detail, as the arena sends them.
using LegalMoves = google::protobuf::RepeatedPtrField<v1::Move>;

// One decision as a seat sees it: its view, the legal moves (ids, and their detail messages,
// given or built from the state on first use) and the randomness the policy may use. The
// caller owns the generator: in-process evaluation gives each game its own seeded one (so
// results do not depend on thread counts), a bot process its own seeded one.
class Turn {
 public:
  // In-process: the moves' details are built from `state` when a policy asks for them.
  Turn(const State& state, const v1::View& view, std::span<const Move> legal, Rng& rng)
      : state_(&state), view_(view), legal_(legal), rng_(&rng) {}
  // Over the wire: the details came with the moves.
  Turn(const v1::View& view, std::span<const Move> legal, const LegalMoves& described, Rng& rng)
      : described_given_(&described), view_(view), legal_(legal), rng_(&rng) {}

  const v1::View& view() const { return view_; }
  std::span<const Move> legal() const { return legal_; }
  // Of the table, automata included.
  int seats() const { return static_cast<int>(view_.seats()); }
  const LegalMoves& Described() const;
  Rng& rng() const { return *rng_; }

 private:
  const State* state_ = nullptr;  // only to describe moves: a policy never sees the full state
  const LegalMoves* described_given_ = nullptr;
  const v1::View& view_;
  std::span<const Move> legal_;
  Rng* rng_;
  // Pooled per thread: a play-out describes a turn's moves into messages a turn before it
  // allocated, not fresh ones.
  mutable std::optional<PooledScratch<LegalMoves>> described_;
};

// A legal move for the turn, or why none could be chosen. A policy is called from one thread
// per turn; policies that keep state say whether they are safe to share between threads.
using Policy = std::function<absl::StatusOr<Move>(const Turn& turn)>;

// Uniform over the legal moves, from the turn's generator: the baseline every policy must beat.
Policy RandomPolicy();

}  // namespace gavel::policy
