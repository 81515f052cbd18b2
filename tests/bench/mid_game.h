#pragma once
// A representative Apply request for the service benchmarks: a mid-game state of the
// largest table, reached by seeded random play, and one of its legal moves.
#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel {

inline v1::ApplyRequest MidGameApplyRequest(const Game& game, int steps = 40) {
  auto state = std::move(*game.NewGame(game.info().max_players, 5, {}));
  Rng rng(5);
  std::vector<Move> legal;
  for (int step = 0; step < steps; ++step) {
    state->LegalMoves(legal);
    auto next = state->Clone();
    next->ApplyLegal(legal[rng.Below(static_cast<uint32_t>(legal.size()))], nullptr);
    if (next->finished()) break;  // keep a move to apply
    state = std::move(next);
  }
  state->LegalMoves(legal);
  v1::ApplyRequest request;
  state->Serialize(request.mutable_state()->mutable_full());
  request.mutable_move()->set_id(legal.front().id);
  return request;
}

}  // namespace gavel
