// Moonlight Market's wire forms: options and game creation, full state, validation of
// untrusted states, the view filter, resampling from a view, and move decoding.
#include <bit>

#include "absl/strings/str_cat.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/core/registry.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {

absl::Status FeaturizeMoonlight(const v1::View& view, std::span<const Move> moves, Features* out);

namespace {

using RepeatedU32 = google::protobuf::RepeatedField<uint32_t>;

absl::Status Invalid(auto&&... parts) {
  return absl::InvalidArgumentError(absl::StrCat("moonlight_market: ", parts...));
}

// The smallest allowed bot count per number of humans (rules §2).
constexpr std::array<int, kMaxParticipants + 1> kDefaultBots = {0, 2, 1, 0, 0, 0};

absl::Status CheckSeating(int humans, int bots) {
  const int n = humans + bots;
  if (n < 3 || n > kMaxParticipants)
    return Invalid(humans, " humans and ", bots, " bots make ", n, " seats; 3 to 5 are needed");
  if (humans == 1 && bots != 2) return Invalid("a solo game needs both bots (bots=2)");
  if (humans == 2 && bots < 1) return Invalid("a 2-human game needs Dirk (bots=1 or 2)");
  return absl::OkStatus();
}

void CardsToProto(CardSet cards, RepeatedU32* out) {
  for (int card = 1; card <= kCards; ++card)
    if (cards & CardBit(card)) out->Add(card);
}

absl::Status CardsFromProto(const RepeatedU32& in, const std::string& what, CardSet* out) {
  if (in.size() > kCards) return Invalid(what, " lists ", in.size(), " cards, more than exist");
  CardSet cards = 0;
  for (uint32_t card : in) {
    if (card < 1 || card > kCards) return Invalid(what, " holds card ", card, ", which does not exist");
    if (cards & CardBit(static_cast<int>(card))) return Invalid(what, " lists card ", card, " twice");
    cards |= CardBit(static_cast<int>(card));
  }
  *out = cards;
  return absl::OkStatus();
}

absl::Status CardFromProto(uint32_t card, const std::string& what, uint8_t* out) {
  if (card > kCards) return Invalid(what, " is card ", card, ", which does not exist");
  *out = static_cast<uint8_t>(card);
  return absl::OkStatus();
}

void CountsToProto(const TileCounts& counts, RepeatedU32* out) {
  for (uint8_t count : counts) out->Add(count);
}

absl::Status CountsFromProto(const RepeatedU32& in, const std::string& what, TileCounts* out) {
  if (in.size() != kTileKinds)
    return Invalid(what, " must list ", kTileKinds, " tile counts, not ", in.size());
  for (int tile = 0; tile < kTileKinds; ++tile) {
    if (in[tile] > static_cast<uint32_t>(InitialCount(tile)))
      return Invalid(what, " holds ", in[tile], " tiles of code ", tile, ", more than exist");
    (*out)[tile] = static_cast<uint8_t>(in[tile]);
  }
  return absl::OkStatus();
}

absl::Status TileFromProto(uint32_t tile, const std::string& what, uint8_t* out) {
  if (tile >= kTileKinds) return Invalid(what, " holds tile ", tile, ", which does not exist");
  *out = static_cast<uint8_t>(tile);
  return absl::OkStatus();
}

void RulesToProto(const Data& data, v1::MoonlightRules* out) {
  out->set_competition_ranking(data.competition);
  out->set_unlimited_seals(data.unlimited_seals);
  out->set_face_discard_value(data.face_discard);
}

void CushionsToProto(const Data& data,
                     google::protobuf::RepeatedPtrField<v1::MoonlightCushion>* out) {
  for (int cushion = 0; cushion < data.participants(); ++cushion) {
    auto* shown = out->Add();
    for (int column = 0; column < kColumns; ++column) {
      auto* shown_column = shown->add_columns();
      for (uint8_t tile : data.slots[cushion][column])
        if (tile != kNoTile) shown_column->add_tiles(tile);
    }
    shown->set_bid_seat(data.bids[cushion].seat);
    shown->set_bid_card(data.bids[cushion].card);
  }
}

// The public part of a seat, written the same way into states and views.
template <typename SeatProto>
void PublicSeatToProto(const SeatData& holder, SeatProto* out) {
  CardsToProto(holder.discard, out->mutable_discard());
  out->set_displaced(holder.displaced);
  out->set_seals(holder.seals);
  out->set_prestige(holder.prestige);
  out->set_taken_cushion(holder.taken);
  for (const Chain& chain : holder.chains) {
    auto* shown = out->add_chains();
    for (uint8_t tile : Tiles(chain)) shown->add_tiles(tile);
  }
  for (int i = 0; i < holder.held_count; ++i) out->add_held(holder.held[i]);
}

template <typename SeatProto>
absl::Status PublicSeatFromProto(const SeatProto& in, const std::string& who, SeatData* out) {
  if (auto status = CardsFromProto(in.discard(), who + "discard pile", &out->discard); !status.ok())
    return status;
  if (auto status = CardFromProto(in.displaced(), who + "displaced card", &out->displaced);
      !status.ok())
    return status;
  if (in.seals() > 255) return Invalid(who, "seal count ", in.seals(), " is out of range");
  out->seals = static_cast<uint8_t>(in.seals());
  if (in.prestige() < 0 || in.prestige() > 1000)
    return Invalid(who, "prestige ", in.prestige(), " is out of range");
  out->prestige = static_cast<int16_t>(in.prestige());
  if (in.taken_cushion() < -1 || in.taken_cushion() >= kMaxParticipants)
    return Invalid(who, "taken cushion ", in.taken_cushion(), " is out of range");
  out->taken = static_cast<int8_t>(in.taken_cushion());
  if (in.chains_size() != kColours) return Invalid(who, "board must have 5 chains");
  for (int colour = 0; colour < kColours; ++colour) {
    const auto& tiles = in.chains(colour).tiles();
    if (tiles.size() > kChainLimit) return Invalid(who, "chain ", colour, " is longer than 3");
    Chain& chain = out->chains[colour];
    for (uint32_t tile : tiles)
      if (auto status = TileFromProto(tile, who + "chain", &chain.tiles[chain.size++]); !status.ok())
        return status;
  }
  if (in.held_size() > kColumns) return Invalid(who, "holds more than 3 tiles");
  for (uint32_t tile : in.held())
    if (auto status = TileFromProto(tile, who + "held tiles", &out->held[out->held_count++]);
        !status.ok())
      return status;
  return absl::OkStatus();
}

// The fields a state and a view share.
template <typename Proto>
absl::Status DecodePublic(const Proto& in, Data* data) {
  if (in.humans() < 1 || in.humans() > kMaxParticipants || in.bots() > 2)
    return Invalid("humans ", in.humans(), " and bots ", in.bots(), " are out of range");
  data->humans = static_cast<uint8_t>(in.humans());
  data->bots = static_cast<uint8_t>(in.bots());
  GAVEL_RETURN_IF_ERROR(CheckSeating(data->humans, data->bots));
  const int n = data->participants();
  data->competition = in.rules().competition_ranking();
  data->unlimited_seals = in.rules().unlimited_seals();
  data->face_discard = in.rules().face_discard_value();
  if (in.phase() < v1::MOONLIGHT_PHASE_BID || in.phase() > v1::MOONLIGHT_PHASE_FINISHED)
    return Invalid("phase ", static_cast<int>(in.phase()), " is not a phase");
  data->phase = static_cast<Phase>(in.phase());
  if (in.pass() > kPasses || in.round() >= kRounds)
    return Invalid("pass ", in.pass(), " round ", in.round(), " is out of range");
  data->pass = static_cast<uint8_t>(in.pass());
  data->round = static_cast<uint8_t>(in.round());
  if (in.coin_holder() < -1 || in.coin_holder() >= n)
    return Invalid("the coin holder ", in.coin_holder(), " is not a seat");
  data->coin_holder = static_cast<int8_t>(in.coin_holder());
  if (in.seal_supply() > kSealTokens) return Invalid("the seal supply holds more than 29 seals");
  data->seal_supply = static_cast<uint8_t>(in.seal_supply());
  if (auto status = CountsFromProto(in.supply(), "the supply", &data->supply); !status.ok())
    return status;
  GAVEL_RETURN_IF_ERROR(CountsFromProto(in.box(), "the box", &data->box));
  if (in.cushions_size() != n) return Invalid("there must be ", n, " cushions, not ", in.cushions_size());
  for (int cushion = 0; cushion < n; ++cushion) {
    const v1::MoonlightCushion& shown = in.cushions(cushion);
    const std::string what = absl::StrCat("cushion ", cushion);
    if (shown.columns_size() != kColumns) return Invalid(what, " must have 3 columns");
    for (int column = 0; column < kColumns; ++column) {
      const auto& tiles = shown.columns(column).tiles();
      if (!tiles.empty() && tiles.size() != Rows(cushion))
        return Invalid(what, " column ", column, " holds ", tiles.size(), " tiles, not ",
                       Rows(cushion), " or 0");
      for (int row = 0; row < tiles.size(); ++row)
        if (auto status = TileFromProto(tiles[row], what, &data->slots[cushion][column][row]);
            !status.ok())
          return status;
    }
    if (shown.bid_seat() < -1 || shown.bid_seat() >= n)
      return Invalid(what, "'s card belongs to ", shown.bid_seat(), ", not a seat");
    data->bids[cushion].seat = static_cast<int8_t>(shown.bid_seat());
    if (auto status = CardFromProto(shown.bid_card(), what + "'s card", &data->bids[cushion].card);
        !status.ok())
      return status;
  }
  if (in.seats_size() != n) return Invalid("there must be ", n, " seats, not ", in.seats_size());
  for (int seat = 0; seat < n; ++seat)
    if (auto status = PublicSeatFromProto(in.seats(seat), absl::StrCat("seat ", seat, "'s "),
                                          &data->seats[seat]);
        !status.ok())
      return status;
  return absl::OkStatus();
}

absl::Status ValidateTiles(const Data& data) {
  const int n = data.participants();
  const bool finished = data.phase == Phase::kFinished;
  std::array<int, kTileKinds> count{};
  for (int tile = 0; tile < kTileKinds; ++tile) count[tile] = data.supply[tile] + data.box[tile];
  // Which columns are full: the rest of the pass's rounds (rules §4).
  for (int cushion = 0; cushion < kMaxParticipants; ++cushion) {
    for (int column = 0; column < kColumns; ++column) {
      const bool full = cushion < n && !finished &&
                        (column > data.round || (column == data.round && data.phase == Phase::kBid));
      for (int row = 0; row < 3; ++row) {
        const uint8_t tile = data.slots[cushion][column][row];
        if ((tile != kNoTile) != (full && row < Rows(cushion)))
          return Invalid("cushion ", cushion, " column ", column, " must be ",
                         full ? "full" : "empty", " now");
        if (tile != kNoTile) ++count[tile];
      }
    }
  }
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& holder = data.seats[seat];
    for (int colour = 0; colour < kColours; ++colour) {
      for (uint8_t tile : Tiles(holder.chains[colour])) {
        if (!Attachable(tile, colour))
          return Invalid("seat ", seat, "'s chain ", colour, " holds tile ", static_cast<int>(tile),
                         ", which cannot lie there");
        ++count[tile];
      }
    }
    for (int i = 0; i < holder.held_count; ++i) ++count[holder.held[i]];
  }
  for (int tile = 0; tile < kTileKinds; ++tile)
    if (count[tile] != InitialCount(tile))
      return Invalid("there are ", count[tile], " tiles of code ", tile, " instead of ",
                     InitialCount(tile));
  // Nothing returns to the supply, so its size tells how many passes were dealt.
  int supply = 0;
  for (uint8_t c : data.supply) supply += c;
  const int dealt = PassTiles(n) * (finished ? kPasses : data.pass + 1);
  if (kTotalTiles - supply != dealt)
    return Invalid(kTotalTiles - supply, " tiles left the supply; pass ", data.pass + 1,
                   " needs exactly ", dealt);
  if (!finished && data.pass == 0 && data.supply[kHammer] != 5)
    return Invalid("no hammer can leave the supply in pass 1");
  return absl::OkStatus();
}

// Bids, turn and the chain-phase resolution order.
absl::Status ValidateTurn(const Data& data) {
  const int n = data.participants();
  std::array<int, kMaxParticipants> bids_of{};
  for (int cushion = 0; cushion < kMaxParticipants; ++cushion) {
    const CushionBid& bid = data.bids[cushion];
    if (bid.seat < 0) {
      if (bid.card != 0) return Invalid("cushion ", cushion, " has a card but no owner");
      continue;
    }
    if (data.phase != Phase::kBid || cushion >= n || bid.seat >= n || bid.card == 0)
      return Invalid("cushion ", cushion, " cannot hold a card now");
    if (++bids_of[bid.seat] > 1) return Invalid("seat ", static_cast<int>(bid.seat), " has two cards at cushions");
  }
  if (data.phase == Phase::kFinished) {
    if (data.turn != -1 || data.coin_holder < 0 || data.coin_holder >= n)
      return Invalid("a finished game has no turn but a coin holder");
    for (int seat = 0; seat < n; ++seat) {
      const SeatData& holder = data.seats[seat];
      if (holder.taken != -1 || holder.held_count != 0 || holder.displaced != 0)
        return Invalid("seat ", seat, " holds tiles or a displaced card after the game");
    }
    return absl::OkStatus();
  }
  if (data.turn < 0 || data.turn >= n || data.IsBot(data.turn))
    return Invalid("seat ", static_cast<int>(data.turn), " cannot be the seat to move");
  const SeatData& mover = data.seats[data.turn];
  if (data.phase == Phase::kBid) {
    if (data.coin_holder != -1) return Invalid("the start coin lies beside the moon cushion while bidding");
    if (bids_of[data.turn] != 0) return Invalid("the seat to move already has a card at a cushion");
    for (int seat = 0; seat < n; ++seat) {
      const SeatData& holder = data.seats[seat];
      if (holder.taken != -1 || holder.held_count != 0)
        return Invalid("seat ", seat, " cannot hold tiles while bidding");
      if (holder.displaced && bids_of[seat])
        return Invalid("seat ", seat, " has a displaced card and a card at a cushion");
    }
    return absl::OkStatus();
  }
  if (data.coin_holder < 0 || data.coin_holder >= n)
    return Invalid("in the chain phase a seat holds the start coin");
  std::array<bool, kMaxParticipants> cushion_taken{};
  const int mover_offset = (data.turn - data.coin_holder + n) % n;
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& holder = data.seats[seat];
    if (holder.displaced) return Invalid("seat ", seat, " cannot have a displaced card now");
    if (holder.taken < 0 || holder.taken >= n || cushion_taken[holder.taken])
      return Invalid("seat ", seat, " must have taken a cushion of its own");
    cushion_taken[holder.taken] = true;
    if ((holder.taken == 0) != (seat == data.coin_holder))
      return Invalid("the coin holder is the seat that took the moon cushion");
    const int offset = (seat - data.coin_holder + n) % n;
    const int rows = Rows(holder.taken);
    const bool ok = offset < mover_offset   ? holder.held_count == 0
                    : offset > mover_offset ? holder.held_count == rows
                                            : holder.held_count >= 1 && holder.held_count <= rows;
    if (!ok) return Invalid("seat ", seat, " holds ", static_cast<int>(holder.held_count),
                            " tiles, which does not fit the resolution order");
  }
  for (int i = 0; i < mover.held_count; ++i)
    if (mover.held[i] == kSealTile) return Invalid("the seat to move still holds a seal tile");
  return absl::OkStatus();
}

absl::Status ValidateCards(const Data& data) {
  const int n = data.participants();
  const bool finished = data.phase == Phase::kFinished;
  const int rounds_done = finished ? kPasses * kRounds : kRounds * data.pass + data.round;
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& holder = data.seats[seat];
    CardSet placed = 0;
    for (int cushion = 0; cushion < n; ++cushion)
      if (data.bids[cushion].seat == seat) placed = CardBit(data.bids[cushion].card);
    const CardSet displaced = holder.displaced ? CardBit(holder.displaced) : 0;
    const std::array<CardSet, 6> parts = {holder.pile, holder.under, holder.hand, holder.discard,
                                          placed, displaced};
    CardSet all = 0;
    int total = 0;
    for (CardSet part : parts) {
      all |= part;
      total += CardCount(part);
    }
    if (all != kAllCards || total != kCards)
      return Invalid("seat ", seat, "'s cards 1-13 must each be in exactly one place");
    // Played this round (bid phase: at most one; chain phase: already discarded).
    const int discard = rounds_done + (data.phase == Phase::kChain ? 1 : 0);
    const int in_play = CardCount(placed) + CardCount(displaced);
    int pile = 0, under = 0, hand = 0;
    if (data.IsBot(seat)) {
      hand = data.phase == Phase::kBid ? 1 - in_play : 0;
      pile = kCards - discard - in_play - hand;
    } else {
      pile = data.pass + 1 < kPasses && !finished ? kCards - kHandSize * (data.pass + 1) : 0;
      under = data.pass + 1 < kPasses && !finished ? data.pass : 0;
      hand = kCards - discard - in_play - pile - under;
    }
    if (CardCount(holder.discard) != discard || CardCount(holder.pile) != pile ||
        CardCount(holder.under) != under || CardCount(holder.hand) != hand || hand < 0)
      return Invalid("seat ", seat, " must have ", discard, " discarded, ", pile, " in the pile, ",
                     under, " under it and ", hand, " in hand now");
  }
  return absl::OkStatus();
}

absl::Status ValidateSeals(const Data& data) {
  int seals = 0;
  for (int seat = 0; seat < data.participants(); ++seat) seals += data.seats[seat].seals;
  if (data.unlimited_seals) {
    // Seals only come from seal tiles and discarded chains (at most 44 in a game).
    const int most = kStartSeals * data.participants() + 5 + 44;
    if (data.seal_supply != 0 || seals > most)
      return Invalid("with unlimited seals the supply count is 0 and seats hold at most ", most);
    return absl::OkStatus();
  }
  if (seals + data.seal_supply != kSealTokens)
    return Invalid("seats hold ", seals, " seals and the supply ", static_cast<int>(data.seal_supply),
                   "; together they must be 29");
  return absl::OkStatus();
}

class MoonlightGameImpl final : public Game {
 public:
  MoonlightGameImpl() {
    info_.name = "moonlight_market";
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
                                                  uint64_t seed) const override;
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
    Scratch<v1::MoonlightState> scratch;  // arena-backed: no allocation per repeated field
    v1::MoonlightState& in = *scratch;
    GAVEL_RETURN_IF_ERROR(UnpackAny(any, &in, "the moonlight_market state"));
    Data data;
    GAVEL_RETURN_IF_ERROR(DecodePublic(in, &data));
    if (in.turn() < -1 || in.turn() >= data.participants())
      return Invalid("the turn ", in.turn(), " is not a seat");
    data.turn = static_cast<int8_t>(in.turn());
    for (int seat = 0; seat < data.participants(); ++seat) {
      const v1::MoonlightSeatState& shown = in.seats(seat);
      SeatData& holder = data.seats[seat];
      const std::string who = absl::StrCat("seat ", seat, "'s ");
      GAVEL_RETURN_IF_ERROR(CardsFromProto(shown.pile(), who + "pile", &holder.pile));
      if (auto status = CardsFromProto(shown.under(), who + "cards under the pile", &holder.under);
          !status.ok())
        return status;
      GAVEL_RETURN_IF_ERROR(CardsFromProto(shown.hand(), who + "hand", &holder.hand));
      uint8_t next = 0;
      GAVEL_RETURN_IF_ERROR(CardFromProto(shown.next_card(), who + "next card", &next));
      if (data.IsBot(seat) ? holder.hand != 0 : next != 0)
        return Invalid(who, data.IsBot(seat) ? "hand must be empty (a bot has none)"
                                             : "next card is for bots only");
      if (next) holder.hand = CardBit(next);
    }
    data.rng = in.rng();
    GAVEL_RETURN_IF_ERROR(Validate(data));
    return std::unique_ptr<State>(std::make_unique<MoonlightState>(data));
  }

  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override {
    v1::MoonlightMove in;
    GAVEL_RETURN_IF_ERROR(UnpackAny(detail, &in, "the move detail"));
    if (in.has_bid()) {
      if (in.bid().card() < 1 || in.bid().card() > kCards || in.bid().cushion() >= kMaxParticipants)
        return Invalid("bid ", in.bid().card(), " on cushion ", in.bid().cushion(), " is out of range");
      return BidMove(static_cast<int>(in.bid().card()), static_cast<int>(in.bid().cushion()));
    }
    if (in.has_hammer()) {
      if (in.hammer().discard()) return HammerDiscardMove();
      const int colour = in.hammer().colour() - 1;
      if (colour < 0 || colour >= kColours || in.hammer().position() >= kChainLimit)
        return Invalid("the hammer's target is out of range");
      return HammerMove(colour, static_cast<int>(in.hammer().position()));
    }
    if (in.has_attach()) {
      const int colour = in.attach().colour() - 1;
      if (colour < 0 || colour >= kColours || in.attach().tile() > kWorthless)
        return Invalid("attaching tile ", in.attach().tile(), " to colour ", colour + 1,
                       " is out of range");
      return AttachMove(static_cast<int>(in.attach().tile()), colour);
    }
    return Invalid("the move names no bid, hammer or attachment");
  }

 private:
  GameInfo info_;
};

}  // namespace

absl::Status Validate(const Data& data) {
  GAVEL_RETURN_IF_ERROR(CheckSeating(data.humans, data.bots));
  const bool finished = data.phase == Phase::kFinished;
  if (finished ? (data.pass != kPasses || data.round != 0)
               : (data.pass >= kPasses || data.round >= kRounds))
    return Invalid("pass ", data.pass, " round ", data.round, " does not fit phase ",
                   static_cast<int>(data.phase));
  for (int seat = data.participants(); seat < kMaxParticipants; ++seat)
    if (data.seats[seat].held_count || data.seats[seat].pile) return Invalid("an unused seat is in play");
  GAVEL_RETURN_IF_ERROR(ValidateTurn(data));
  GAVEL_RETURN_IF_ERROR(ValidateTiles(data));
  GAVEL_RETURN_IF_ERROR(ValidateCards(data));
  GAVEL_RETURN_IF_ERROR(ValidateSeals(data));
  // At most 4 per colour per pass scored so far, plus the two final scorings; a bound that
  // ignored progress would accept a state whose later scorings overflow it.
  const int most_prestige = 4 * kColours * data.pass + (finished ? 8 : 0);
  for (int seat = 0; seat < data.participants(); ++seat)
    if (data.seats[seat].prestige < 0 || data.seats[seat].prestige > most_prestige)
      return Invalid("seat ", seat, "'s prestige ", data.seats[seat].prestige, " is more than the game awards");
  return absl::OkStatus();
}

void MoonlightState::Serialize(v1::GameState* out) const {
  Scratch<v1::MoonlightState> scratch;
  v1::MoonlightState& proto = *scratch;
  proto.set_humans(data_.humans);
  proto.set_bots(data_.bots);
  RulesToProto(data_, proto.mutable_rules());
  proto.set_phase(static_cast<v1::MoonlightPhase>(data_.phase));
  proto.set_pass(data_.pass);
  proto.set_round(data_.round);
  proto.set_turn(data_.turn);
  proto.set_coin_holder(data_.coin_holder);
  proto.set_seal_supply(data_.seal_supply);
  CountsToProto(data_.supply, proto.mutable_supply());
  CountsToProto(data_.box, proto.mutable_box());
  CushionsToProto(data_, proto.mutable_cushions());
  for (int seat = 0; seat < data_.participants(); ++seat) {
    const SeatData& holder = data_.seats[seat];
    auto* shown = proto.add_seats();
    CardsToProto(holder.pile, shown->mutable_pile());
    CardsToProto(holder.under, shown->mutable_under());
    if (data_.IsBot(seat)) {
      if (holder.hand) shown->set_next_card(std::countr_zero(static_cast<unsigned>(holder.hand)));
    } else {
      CardsToProto(holder.hand, shown->mutable_hand());
    }
    PublicSeatToProto(holder, shown);
  }
  proto.set_rng(data_.rng);
  out->set_game("moonlight_market");
  out->mutable_state()->PackFrom(proto);
}

void MoonlightState::PackView(Seat viewer, google::protobuf::Any* out) const {
  v1::MoonlightView view;
  view.set_humans(data_.humans);
  view.set_bots(data_.bots);
  RulesToProto(data_, view.mutable_rules());
  view.set_phase(static_cast<v1::MoonlightPhase>(data_.phase));
  view.set_pass(data_.pass);
  view.set_round(data_.round);
  view.set_seat(viewer);
  view.set_to_move(to_move());
  view.set_coin_holder(data_.coin_holder);
  view.set_seal_supply(data_.seal_supply);
  CountsToProto(data_.supply, view.mutable_supply());
  CountsToProto(data_.box, view.mutable_box());
  CushionsToProto(data_, view.mutable_cushions());
  for (int seat = 0; seat < data_.participants(); ++seat) {
    const SeatData& holder = data_.seats[seat];
    auto* shown = view.add_seats();
    const bool bot = data_.IsBot(seat);
    shown->set_automaton(bot);
    shown->set_name(BotName(data_, seat));
    if (bot) {
      shown->set_has_next_card(holder.hand != 0);
      if (seat == viewer && holder.hand)
        shown->set_next_card(std::countr_zero(static_cast<unsigned>(holder.hand)));
    } else {
      shown->set_hand_count(CardCount(holder.hand));
      shown->set_under_count(CardCount(holder.under));
      if (seat == viewer) {
        CardsToProto(holder.hand, shown->mutable_hand());
        CardsToProto(holder.under, shown->mutable_under());
      }
    }
    shown->set_pile_count(CardCount(holder.pile));
    PublicSeatToProto(holder, shown);
    for (const Chain& chain : holder.chains) shown->add_chain_values(ChainValue(Tiles(chain)));
  }
  out->PackFrom(view);
}

absl::StatusOr<std::unique_ptr<State>> MoonlightGameImpl::Resample(const v1::View& view_proto,
                                                                   uint64_t seed) const {
  v1::MoonlightView view;
  if (auto status = UnpackAny(view_proto.view(), &view, "the moonlight_market view"); !status.ok())
    return status;
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, &data));
  const int n = data.participants();
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= n) return Invalid("the viewer ", viewer, " is not a seat");
  if (view.to_move() < -1 || view.to_move() >= n) return Invalid("the seat to move is out of range");
  data.turn = static_cast<int8_t>(view.to_move());
  Rng rng(Rng::FromSeed(seed));
  for (int seat = 0; seat < n; ++seat) {
    const v1::MoonlightSeatView& shown = view.seats(seat);
    SeatData& holder = data.seats[seat];
    const std::string who = absl::StrCat("seat ", seat, "'s ");
    // The cards not seen anywhere public: hand, pile, cards under it, a bot's next card.
    CardSet unseen = static_cast<CardSet>(kAllCards & ~holder.discard);
    if (holder.displaced) unseen = static_cast<CardSet>(unseen & ~CardBit(holder.displaced));
    for (int cushion = 0; cushion < n; ++cushion)
      if (data.bids[cushion].seat == seat && data.bids[cushion].card)
        unseen = static_cast<CardSet>(unseen & ~CardBit(data.bids[cushion].card));
    auto deal = [&](CardSet& to, uint32_t count) -> absl::Status {
      if (count > static_cast<uint32_t>(CardCount(unseen)))
        return Invalid(who, "card counts do not match its unseen cards");
      for (uint32_t i = 0; i < count; ++i) to |= CardBit(DrawCard(unseen, rng));
      return absl::OkStatus();
    };
    auto take_known = [&](CardSet known, CardSet& to) -> absl::Status {
      if ((known & unseen) != known) return Invalid(who, "cards contradict the public cards");
      unseen = static_cast<CardSet>(unseen & ~known);
      to = known;
      return absl::OkStatus();
    };
    absl::Status status;
    if (data.IsBot(seat)) {
      if (seat == viewer && shown.next_card() != 0) {
        uint8_t next = 0;
        status = CardFromProto(shown.next_card(), who + "next card", &next);
        if (status.ok()) status = take_known(CardBit(next), holder.hand);
      } else if (shown.has_next_card()) {
        status = deal(holder.hand, 1);
      }
    } else if (seat == viewer) {
      CardSet hand = 0, under = 0;
      status = CardsFromProto(shown.hand(), who + "hand", &hand);
      if (status.ok()) status = CardsFromProto(shown.under(), who + "cards under the pile", &under);
      if (status.ok()) status = take_known(hand, holder.hand);
      if (status.ok()) status = take_known(under, holder.under);
    } else {
      status = deal(holder.hand, shown.hand_count());
      if (status.ok()) status = deal(holder.under, shown.under_count());
    }
    if (!status.ok()) return status;
    if (static_cast<uint32_t>(CardCount(unseen)) != shown.pile_count())
      return Invalid(who, "pile size does not match its unseen cards");
    holder.pile = unseen;
  }
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MoonlightState>(data));
}

const Game& MoonlightMarketGame() {
  static const MoonlightGameImpl game;
  return game;
}

const Game& MoonlightState::game() const { return MoonlightMarketGame(); }

}  // namespace gavel::moonlight_market

GAVEL_REGISTER_GAME(moonlight_market, moonlight_market::MoonlightMarketGame)
