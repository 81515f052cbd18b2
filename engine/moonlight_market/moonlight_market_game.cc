// Moonlight Market's game object: its description and options, setup of a new game, and
// the registration that makes it known to the engine.
#include <array>

#include "engine/core/proto_util.h"
#include "engine/core/registry.h"
#include "engine/core/status.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/moonlight_market/moonlight_market_wire.h"

namespace gavel::moonlight_market {
namespace {

// The smallest allowed bot count per number of humans (docs/rules/moonlight_market.md §2).
constexpr std::array<int, kMaxParticipants + 1> kDefaultBots = {0, 2, 1, 0, 0, 0};

class MoonlightGameImpl final : public Game {
 public:
  MoonlightGameImpl() {
    info_.name = "moonlight_market";
    info_.state_type_url = TypeUrl<v1::MoonlightState>();
    info_.display_name = "Moonlight Market";
    info_.min_players = 1;
    info_.max_players = kMaxParticipants;
    info_.players_note =
        "players = the number of human seats (1-5). The automata Beate and Dirk (option bots) "
        "take the seats after the humans, so seats = humans + bots (3-5); the engine plays them.";
    info_.options = {
        {"ranking", "4/2/1 awards: dense (by distinct values) or competition (1 + seats above)",
         {"dense", "competition"}, 0, 0, "dense"},
        {"seal_supply", "the general supply: finite (29 seals, gains from an empty supply are lost) "
         "or unlimited", {"finite", "unlimited"}, 0, 0, "finite"},
        {"discard_value", "the value compared with 20 when a full chain is discarded: chain "
         "(doubled by a doubler) or face (not doubled)", {"chain", "face"}, 0, 0, "chain"},
        {"bots", "automata filling seats: auto = the fewest allowed (2, 1, 0, 0, 0 for 1..5 "
         "humans); 1 = Dirk; 2 = Beate and Dirk. Seats must total 3-5; 1 human needs 2 bots, "
         "2 humans need at least 1", {"auto", "0", "1", "2"}, 0, 0, "auto"},
    };
  }
  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view,
                                                  uint64_t seed) const override {
    return ResampleMoonlight(view, seed);
  }
  absl::StatusOr<std::unique_ptr<Resampler>> MakeResampler(const v1::View& view) const override {
    return MakeMoonlightResampler(view);
  }
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                         Features* out) const override {
    return FeaturizeMoonlight(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed, const Options& options,
                                                EventSink* events) const override {
    const int bots = options.Is("bots", "auto") ? kDefaultBots[players] : options.GetInt("bots");
    GAVEL_RETURN_IF_ERROR(CheckSeating(players, bots));
    Data data;
    data.humans = static_cast<uint8_t>(players);
    data.bots = static_cast<uint8_t>(bots);
    data.competition = options.Is("ranking", "competition");
    data.unlimited_seals = options.Is("seal_supply", "unlimited");
    data.face_discard = options.Is("discard_value", "face");
    data.seal_supply = data.unlimited_seals ? 0 : kSealTokens - kStartSeals * data.participants();
    for (int tile = 0; tile < kTileKinds; ++tile) data.supply[tile] = static_cast<uint8_t>(InitialCount(tile));
    for (int seat = 0; seat < data.participants(); ++seat) {
      data.seats[seat].pile = kAllCards;
      data.seats[seat].seals = kStartSeals;
    }
    data.coin_holder = 0;
    data.rng = Rng::FromSeed(seed);
    auto state = std::make_unique<MoonlightState>(data);
    state->StartPass(events);
    return state;
  }

  absl::StatusOr<std::unique_ptr<State>> DecodeState(const google::protobuf::Any& any) const override {
    return DecodeMoonlightState(any);
  }
  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override {
    return DecodeMoonlightMove(detail);
  }

 private:
  GameInfo info_;
};

}  // namespace

const Game& MoonlightMarketGame() {
  static const MoonlightGameImpl game;
  return game;
}

const Game& MoonlightState::game() const { return MoonlightMarketGame(); }

}  // namespace gavel::moonlight_market

GAVEL_REGISTER_GAME(moonlight_market, moonlight_market::MoonlightMarketGame)
