// The game object: its description, setup of a new game, and the registration.
#include "engine/core/registry.h"
#include "engine/sultan/sultan_wire.h"

namespace gavel::sultan {

absl::StatusOr<std::unique_ptr<State>> SultanGameImpl::Create(int players, uint64_t seed,
                                                              const Options&,
                                                              EventSink* events) const {
  const Params params = ParamsFor(players);
  Data data;
  data.players = static_cast<uint8_t>(players);
  for (int colour = 0; colour < kColours; ++colour)
    data.bag[colour] = static_cast<uint8_t>(kJewelsPerColour[colour]);
  for (int seat = 0; seat < players; ++seat)
    for (int value = 1; value <= params.max_card; ++value)
      data.seats[seat].pile[value] = static_cast<uint8_t>(params.copies);
  data.rng = Rng::FromSeed(seed);
  auto state = std::make_unique<SultanState>(data);
  state->DrawHands(events);
  state->StartRound(events);
  return state;
}

const Game& SultanGame() {
  static const SultanGameImpl game;
  return game;
}

const Game& SultanState::game() const { return SultanGame(); }

}  // namespace gavel::sultan

GAVEL_REGISTER_GAME(sultan, sultan::SultanGame)
