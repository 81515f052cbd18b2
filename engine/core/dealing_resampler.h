#pragma once
// The Resampler of a game whose view decodes into its Data with only the hidden parts left to
// deal: each draw copies that Data, deals them with a generator seeded by the draw's seed
// (which the state then carries on), and checks the state as Resample does.
#include <functional>
#include <memory>
#include <utility>

#include "engine/core/game.h"
#include "engine/core/rng.h"
#include "engine/core/status.h"

namespace gavel {

template <typename Data, typename GameState>
class DealingResampler final : public Resampler {
 public:
  using Deal = std::function<void(Data&, Rng&)>;
  using Check = absl::Status (*)(const Data&);

  DealingResampler(Data known, Deal deal, Check check)
      : known_(std::move(known)), deal_(std::move(deal)), check_(check) {}

  absl::StatusOr<std::unique_ptr<State>> Draw(uint64_t seed) const override {
    Data data = known_;
    Rng rng(Rng::FromSeed(seed));
    deal_(data, rng);
    data.rng = rng.state();
    GAVEL_RETURN_IF_ERROR(check_(data));
    return std::unique_ptr<State>(std::make_unique<GameState>(data));
  }

 private:
  const Data known_;
  const Deal deal_;
  const Check check_;
};

}  // namespace gavel
