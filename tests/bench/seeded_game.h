#pragma once
// Representative Apply requests for the service benchmarks: one per move of a seeded random
// game at the largest table, each the state before the move and the move played. A benchmark
// cycles through them, so a figure is the mean over a whole game: one state would stand for
// the game poorly (a fixed step count lands on Carat's last move, whose scoring of every chip
// is the most expensive move of the game, and on a 52-move choice in another seed).
#include <vector>

#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel {

inline std::vector<v1::ApplyRequest> SeededGameApplyRequests(const Game& game, uint64_t seed = 5) {
  auto state = std::move(*game.NewGame(game.info().max_players, seed, {}));
  Rng rng(seed);
  std::vector<Move> legal;
  std::vector<v1::ApplyRequest> requests;
  while (!state->finished()) {
    state->LegalMoves(legal);
    const Move move = legal[rng.Below(static_cast<uint32_t>(legal.size()))];
    v1::ApplyRequest& request = requests.emplace_back();
    state->Serialize(request.mutable_state()->mutable_full());
    request.mutable_move()->set_id(move.id);
    auto next = state->Clone();
    next->ApplyLegal(move, nullptr);
    state = std::move(next);
  }
  return requests;
}

}  // namespace gavel
