#pragma once
// A random game played to the end and recorded as the arena's referee records it, for tests
// of replays and of the pages.
#include <functional>
#include <string>

#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "service/arena/referee.h"
#include "service/arena/store.h"

namespace gavel::arena::testing {

// `game` at `players` from `seed`, random legal moves, every state hashed from `bytes` (its
// bytes in the state format the record is made in). Empty when the game cannot start.
inline MatchRecord RecordedRandomMatch(const Game& game, int players, uint64_t seed,
                                       const std::function<std::string(const State&)>& bytes) {
  MatchRecord match;
  match.id = static_cast<int64_t>(seed);
  match.game = game.name();
  match.players = players;
  match.seed = seed;
  auto state = game.NewGame(players, seed, match.options);
  if (!state.ok()) return {};
  match.initial_hash = BytesHash(bytes(**state));
  for (Seat seat = 0; seat < (*state)->seats(); ++seat)
    match.bots.push_back((*state)->IsAutomaton(seat) ? "" : "bot" + std::to_string(seat));
  Rng rng(seed);
  std::vector<Move> legal;
  while (!(*state)->finished()) {
    (*state)->LegalMoves(legal);
    const Move move = legal[rng.Below(static_cast<uint32_t>(legal.size()))];
    const Seat mover = (*state)->to_move();
    if (!(*state)->Apply(move).ok()) return {};
    match.moves.push_back({mover, move.id, v1::MOVE_STATUS_OK, BytesHash(bytes(**state))});
  }
  match.finished = true;
  const Outcome outcome = (*state)->outcome();
  match.scores.assign(outcome.scores.begin(), outcome.scores.end());
  match.ranks.assign(outcome.ranks.begin(), outcome.ranks.end());
  match.strikes.assign(match.bots.size(), 0);
  return match;
}

}  // namespace gavel::arena::testing
