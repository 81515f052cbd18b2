#pragma once
// Uniform over the legal moves, from a seeded generator: the baseline every policy must beat.
#include "bots/policy.h"
#include "engine/core/rng.h"

namespace gavel::bots {

class RandomPolicy final : public Policy {
 public:
  RandomPolicy(std::vector<std::string> games, uint64_t seed)
      : games_(std::move(games)), rng_(Rng::FromSeed(seed)) {}
  std::vector<std::string> Games() const override { return games_; }
  uint32_t Choose(const v1::View&, const LegalMoves& legal) override {
    return legal.Get(static_cast<int>(rng_.Below(legal.size()))).id();
  }

 private:
  std::vector<std::string> games_;
  Rng rng_;
};

}  // namespace gavel::bots
