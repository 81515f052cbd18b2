#pragma once
// An Apply request as a sealed table's seat sends it, for the service benchmarks.
#include <cstdlib>

#include "engine/core/registry.h"
#include "service/engine_handler.h"
#include "service/sealing.h"

namespace gavel {

// `apply`'s state as a token of `table` at move `move_number`, the move made with the mover's
// capability. The requests of one game's moves at one table are what a client sends: each
// token is the one the server returned for the move before.
inline v1::ApplyRequest SealedApplyRequest(const v1::ApplyRequest& apply, uint32_t move_number,
                                           const service::TableId& table, const service::Sealer& sealer) {
  const Game& game = *FindGame(apply.state().full().game());
  auto state = game.Deserialize(apply.state().full());
  if (!state.ok()) std::abort();
  v1::ApplyRequest sealed = apply;
  auto* ref = sealed.mutable_state()->mutable_sealed();
  auto token = service::SealState(**state, {.game = game.name(), .table = table, .move_number = move_number}, sealer);
  if (!token.ok()) std::abort();
  ref->set_token(*std::move(token));
  ref->set_seat_capability(sealer.Capability(table, {.owner = false, .seat = (*state)->to_move()}));
  return sealed;
}

}  // namespace gavel
