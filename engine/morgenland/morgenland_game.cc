// The game object: its description and options, setup of a new game, and the registration.
#include "engine/core/registry.h"
#include "engine/morgenland/morgenland_wire.h"

namespace gavel::morgenland {

absl::StatusOr<std::unique_ptr<State>> MorgenlandGameImpl::Create(int players, uint64_t seed, const Options& options,
                                              EventSink*) const {
  Data data;
  data.players = static_cast<uint8_t>(players);
  data.pro = options.Is("rules", "pro");
  data.choose_camel = options.Is("caravanserai", "choose");
  data.scroll_power = options.Is("scroll_power", "on");
  data.max_rounds = static_cast<uint8_t>(options.GetInt("max_rounds"));
  data.bank.fill(kUnitsPerKind);
  data.deck = (1u << kCardsPerDeck) - 1;
  for (int seat = 0; seat < players; ++seat) data.seats[seat].token_space.fill(kInHand);
  for (auto& stack : data.stack) stack.fill(-1);
  data.face_up.fill(-1);
  Rng rng(Rng::FromSeed(seed));
  // Artifacts (rules §3.5).
  std::array<int8_t, 30> pool{};
  int pool_size = 0;
  const int per_stack = data.pro ? 5 : 6;
  for (int a = 0; a < kArtifactTypes; ++a) {
    const int in_play = data.pro ? players : kArtifactsPerType;
    for (int i = 0; i < in_play; ++i) pool[pool_size++] = static_cast<int8_t>(a);
    if (data.pro) data.box[a] = static_cast<uint8_t>(kArtifactsPerType - players);
  }
  if (data.pro) {
    for (int seat = 0; seat < players; ++seat) data.seats[seat].owned[kLamp] = 1;
    // Each seat's Lamp leaves the pool: the Lamps are the first `players` entries.
    std::copy(pool.begin() + players, pool.begin() + pool_size, pool.begin());
    pool_size -= players;
    data.spell_deck = kAllSpells;
  }
  rng.Shuffle(pool.data(), pool_size);
  int next = 0;
  for (int room = 0; room < players; ++room) {
    for (int i = 0; i < per_stack; ++i) data.stack[room][i] = pool[next++];
    data.stack_size[room] = static_cast<uint8_t>(per_stack);
  }
  for (; next < pool_size; ++next) ++data.box[pool[next]];
  data.rng = rng.state();
  data.phase = Phase::kPick;
  return std::unique_ptr<State>(std::make_unique<MorgenlandState>(data));
}

const Game& MorgenlandGame() {
  static const MorgenlandGameImpl game;
  return game;
}

const Game& MorgenlandState::game() const { return MorgenlandGame(); }

}  // namespace gavel::morgenland

GAVEL_REGISTER_GAME(morgenland, morgenland::MorgenlandGame)
