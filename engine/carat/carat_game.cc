// The game object: its description and options, setup of a new game, and the registration.
#include "engine/carat/carat_wire.h"
#include "engine/core/registry.h"

namespace gavel::carat {

absl::StatusOr<std::unique_ptr<State>> CaratGameImpl::Create(int players, uint64_t seed,
                                                             const Options& options,
                                                             EventSink* events) const {
  Data data;
  data.players = static_cast<uint8_t>(players);
  data.colours_per_player = options.Is("colours_per_player", "2") ? 2 : 1;
  data.hand_size = options.Is("hand_size", "3") ? kMaxHand : 1;
  if (data.colours_per_player == 2 && players != 2)
    return Invalid("colours_per_player=2 needs exactly 2 players, not ", players);
  data.tile.fill(-1);
  data.rng = Rng::FromSeed(seed);
  auto state = std::make_unique<CaratState>(data);
  state->Setup(events);
  return state;
}

const Game& CaratGame() {
  static const CaratGameImpl game;
  return game;
}

const Game& CaratState::game() const { return CaratGame(); }

}  // namespace gavel::carat

GAVEL_REGISTER_GAME(carat, carat::CaratGame)
