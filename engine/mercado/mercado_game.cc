// The game object: its description and options, setup of a new game, and the registration.
#include "engine/core/registry.h"
#include "engine/mercado/mercado_wire.h"

namespace gavel::mercado {

absl::StatusOr<std::unique_ptr<State>> MercadoGameImpl::Create(int players, uint64_t seed,
                                                               const Options& options,
                                                               EventSink* events) const {
  Data data;
  data.players = static_cast<uint8_t>(players);
  data.side = options.Is("board_side", "A") ? 0 : 1;
  data.start_space = static_cast<uint8_t>(options.GetInt("start_space"));
  data.display.fill(-1);
  data.item_deck = kAllItems;
  data.perfume_deck = static_cast<uint16_t>(kAllPerfumes);
  data.supply[kBlack] = static_cast<uint8_t>(kCounterfeits - kCoinsPerColour * players);
  data.supply[kWhite] = kJokers;
  data.seal_supply = static_cast<uint8_t>(kSeals - players);
  for (int type = 0; type < kPrivilegeTypes; ++type)
    data.privilege_supply[type] = Privilege(type).count;
  for (int seat = 0; seat < players; ++seat) {
    SeatData& holder = data.seats[seat];
    for (int coin : {kGold, kSilver, kCopper, kTurquoise, kBlack})
      holder.bag[coin] = kCoinsPerColour;
    holder.seals = 1;
    holder.height = static_cast<uint8_t>(players - 1 - seat);  // seat 0 on top
  }
  data.rng = Rng::FromSeed(seed);
  auto state = std::make_unique<MercadoState>(data);
  state->Setup(events);
  return state;
}

const Game& MercadoGame() {
  static const MercadoGameImpl game;
  return game;
}

const Game& MercadoState::game() const { return MercadoGame(); }

}  // namespace gavel::mercado

GAVEL_REGISTER_GAME(mercado, mercado::MercadoGame)
