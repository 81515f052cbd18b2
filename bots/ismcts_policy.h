#pragma once
// The search baseline: information-set MCTS (learn/ismcts.h) over Resample + Apply with the
// engine in-process, from the seat's view only. Plays every game of this build.
#include "bots/policy.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "learn/ismcts.h"

namespace gavel::bots {

class IsmctsPolicy final : public Policy {
 public:
  IsmctsPolicy(learn::IsmctsOptions options, uint64_t seed)
      : options_(options), rng_(Rng::FromSeed(seed)) {}

  std::vector<std::string> Games() const override {
    std::vector<std::string> games;
    for (const Game* game : AllGames()) games.push_back(game->name());
    return games;
  }

  uint32_t Choose(const v1::View& view, const LegalMoves& legal) override {
    const Game* game = FindGame(view.game());
    std::vector<Move> moves;
    for (const v1::Move& move : legal) moves.push_back(Move{move.id()});
    if (game == nullptr) return moves.front().id;
    learn::IsmctsOptions options = options_;
    options.seed = rng_.Next();
    auto chosen = learn::IsmctsChoose(*game, view, moves, options);
    return chosen.ok() ? chosen->id : moves.front().id;  // an unreadable view: any legal move
  }

 private:
  learn::IsmctsOptions options_;
  Rng rng_;
};

}  // namespace gavel::bots
