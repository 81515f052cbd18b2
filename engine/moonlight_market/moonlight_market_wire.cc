// Moonlight Market's wire forms: the full state and the move message, both ways, and the
// public fields that states and views share.
#include <bit>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "engine/core/encoded_moves.h"
#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/moonlight_market/moonlight_market_names.h"
#include "engine/moonlight_market/moonlight_market_wire.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {
namespace {

// Format 4's bytes of one cushion's tiles: 3 columns of 3 rows (the moon cushion's; others use 2).
constexpr size_t kCushionTileBytes = kColumns * 3;

// `in`: numbers (a view, a format-1 state) or bytes (a format-2 state), one per tile code.
template <typename Counts>
absl::Status CountsFromProto(const Counts& in, const PartName& what, TileCounts* out) {
  if (in.size() != kTileKinds)
    return Invalid(what, " must list ", kTileKinds, " tile counts, not ", in.size());
  for (int tile = 0; tile < kTileKinds; ++tile) {
    const uint32_t count = static_cast<std::make_unsigned_t<typename Counts::value_type>>(in[tile]);
    if (count > static_cast<uint32_t>(InitialCount(tile)))
      return Invalid(what, " holds ", count, " tiles of code ", tile, ", more than exist");
    (*out)[tile] = static_cast<uint8_t>(count);
  }
  return absl::OkStatus();
}

// The supply and the box: a view's numbers; a state's bytes, or numbers if made before format 2.
absl::Status SupplyAndBoxFromProto(const v1::MoonlightView& in, Data* data) {
  GAVEL_RETURN_IF_ERROR(CountsFromProto(in.supply(), "the supply", &data->supply));
  return CountsFromProto(in.box(), "the box", &data->box);
}
absl::Status SupplyAndBoxFromProto(const v1::MoonlightState& in, Data* data) {
  const bool as_bytes = !in.supply_counts().empty() || !in.box_counts().empty();
  if (!as_bytes) {
    GAVEL_RETURN_IF_ERROR(CountsFromProto(in.supply(), "the supply", &data->supply));
    return CountsFromProto(in.box(), "the box", &data->box);
  }
  if (in.supply_size() != 0 || in.box_size() != 0)
    return Invalid("the supply and the box are listed both as numbers (format 1) and as bytes (format 2)");
  GAVEL_RETURN_IF_ERROR(CountsFromProto(in.supply_counts(), "the supply", &data->supply));
  return CountsFromProto(in.box_counts(), "the box", &data->box);
}

absl::Status TileFromProto(uint32_t tile, const PartName& what, uint8_t* out) {
  if (tile >= kTileKinds) return Invalid(what, " holds tile ", tile, ", which does not exist");
  *out = static_cast<uint8_t>(tile);
  return absl::OkStatus();
}

// A seat's discard pile, chains and held tiles as lists (a view, a state before format 3).
template <typename SeatProto>
absl::Status SeatPilesFromLists(const SeatProto& in, int seat, SeatData* out) {
  GAVEL_RETURN_IF_ERROR(CardsFromProto(in.discard(), PartName(seat, "discard pile"), &out->discard));
  if (in.chains_size() != kColours) return Invalid("seat ", seat, "'s board must have 5 chains");
  for (int colour = 0; colour < kColours; ++colour) {
    const auto& tiles = in.chains(colour).tiles();
    if (tiles.size() > kChainLimit) return Invalid("seat ", seat, "'s chain ", colour, " is longer than 3");
    Chain& chain = out->chains[colour];
    for (uint32_t tile : tiles)
      GAVEL_RETURN_IF_ERROR(TileFromProto(tile, PartName(seat, "chain"), &chain.tiles[chain.size++]));
  }
  if (in.held_size() > kColumns) return Invalid("seat ", seat, " holds more than 3 tiles");
  for (uint32_t tile : in.held())
    GAVEL_RETURN_IF_ERROR(TileFromProto(tile, PartName(seat, "held tiles"), &out->held[out->held_count++]));
  return absl::OkStatus();
}

// Format 3's card set: bit c for card c.
absl::Status CardsFromBits(uint32_t bits, const PartName& what, CardSet* out) {
  if (bits & ~uint32_t{kAllCards}) return Invalid(what, " names cards that do not exist (bits ", bits, ")");
  *out = static_cast<CardSet>(bits);
  return absl::OkStatus();
}

// Format 3's chains: 3 slots per colour, tiles in attachment order, then kNoTile.
absl::Status ChainsFromBytes(const std::string& in, int seat, SeatData* out) {
  if (in.size() != kColours * kChainLimit)
    return Invalid("seat ", seat, "'s chain tiles must be ", kColours * kChainLimit, " bytes, not ", in.size());
  for (int colour = 0; colour < kColours; ++colour) {
    Chain& chain = out->chains[colour];
    for (int slot = 0; slot < kChainLimit; ++slot) {
      const uint8_t tile = static_cast<uint8_t>(in[colour * kChainLimit + slot]);
      if (tile == kNoTile) continue;
      if (chain.size != slot) return Invalid("seat ", seat, "'s chain ", colour, " has a gap");
      GAVEL_RETURN_IF_ERROR(TileFromProto(tile, PartName(seat, "chain"), &chain.tiles[chain.size++]));
    }
  }
  return absl::OkStatus();
}

absl::Status SeatPilesFromProto(const v1::MoonlightSeatView& in, int seat, SeatData* out) {
  return SeatPilesFromLists(in, seat, out);
}
// A state's seat in either form (format 3 has chain tiles; the lists have chains).
absl::Status SeatPilesFromProto(const v1::MoonlightSeatState& in, int seat, SeatData* out) {
  const bool lists = in.pile_size() || in.under_size() || in.hand_size() || in.discard_size() ||
                     in.chains_size() || in.held_size();
  const bool sets = in.pile_cards() || in.under_cards() || in.hand_cards() || in.discard_cards() ||
                    !in.chain_tiles().empty() || !in.held_tiles().empty();
  if (lists && sets)
    return Invalid("seat ", seat, "'s cards and tiles are listed both as lists and as format 3's bits and bytes");
  if (in.chain_tiles().empty()) return SeatPilesFromLists(in, seat, out);
  GAVEL_RETURN_IF_ERROR(CardsFromBits(in.discard_cards(), PartName(seat, "discard pile"), &out->discard));
  GAVEL_RETURN_IF_ERROR(ChainsFromBytes(in.chain_tiles(), seat, out));
  if (in.held_tiles().size() > kColumns) return Invalid("seat ", seat, " holds more than 3 tiles");
  for (const char tile : in.held_tiles())
    GAVEL_RETURN_IF_ERROR(TileFromProto(static_cast<uint8_t>(tile), PartName(seat, "held tiles"),
                                        &out->held[out->held_count++]));
  return absl::OkStatus();
}

template <typename SeatProto>
absl::Status PublicSeatFromProto(const SeatProto& in, int seat, SeatData* out) {
  GAVEL_RETURN_IF_ERROR(CardFromProto(in.displaced(), PartName(seat, "displaced card"), &out->displaced));
  if (in.seals() > 255) return Invalid("seat ", seat, "'s seal count ", in.seals(), " is out of range");
  out->seals = static_cast<uint8_t>(in.seals());
  if (in.prestige() < 0 || in.prestige() > 1000)
    return Invalid("seat ", seat, "'s prestige ", in.prestige(), " is out of range");
  out->prestige = static_cast<int16_t>(in.prestige());
  if (in.taken_cushion() < -1 || in.taken_cushion() >= kMaxParticipants)
    return Invalid("seat ", seat, "'s taken cushion ", in.taken_cushion(), " is out of range");
  out->taken = static_cast<int8_t>(in.taken_cushion());
  return SeatPilesFromProto(in, seat, out);
}
// One cushion's columns (full or taken) and the card lying there.
absl::Status CushionFromProto(const v1::MoonlightCushion& shown, int cushion, Data* data) {
  const PartName what = PartName::Numbered("cushion", cushion);
  if (shown.columns_size() != kColumns) return Invalid(what, " must have 3 columns");
  for (int column = 0; column < kColumns; ++column) {
    const auto& tiles = shown.columns(column).tiles();
    if (!tiles.empty() && tiles.size() != Rows(cushion))
      return Invalid(what, " column ", column, " holds ", tiles.size(), " tiles, not ",
                     Rows(cushion), " or 0");
    for (int row = 0; row < tiles.size(); ++row)
      GAVEL_RETURN_IF_ERROR(TileFromProto(tiles[row], what, &data->slots[cushion][column][row]));
  }
  if (shown.bid_seat() < -1 || shown.bid_seat() >= data->participants())
    return Invalid(what, "'s card belongs to ", shown.bid_seat(), ", not a seat");
  data->bids[cushion].seat = static_cast<int8_t>(shown.bid_seat());
  return CardFromProto(shown.bid_card(), PartName::Numbered("cushion", cushion, "'s card"), &data->bids[cushion].card);
}

absl::Status CushionsFromMessages(const google::protobuf::RepeatedPtrField<v1::MoonlightCushion>& in, Data* data) {
  const int n = data->participants();
  if (in.size() != n) return Invalid("there must be ", n, " cushions, not ", in.size());
  for (int cushion = 0; cushion < n; ++cushion) GAVEL_RETURN_IF_ERROR(CushionFromProto(in[cushion], cushion, data));
  return absl::OkStatus();
}

// Format 4's cushion: 3 columns of 3 bytes (its rows' tiles, or none once taken), then its card
// and the card's owner.
absl::Status CushionFromBytes(std::string_view tiles, std::string_view card, int cushion, Data* data) {
  const PartName what = PartName::Numbered("cushion", cushion);
  for (int column = 0; column < kColumns; ++column) {
    const bool taken = static_cast<uint8_t>(tiles[column * 3]) == kNoTile;
    for (int row = 0; row < 3; ++row) {
      const uint8_t tile = static_cast<uint8_t>(tiles[column * 3 + row]);
      if ((tile == kNoTile) != (taken || row >= Rows(cushion)))
        return Invalid(what, " column ", column, " must hold ", Rows(cushion), " tiles or none");
      if (tile != kNoTile) GAVEL_RETURN_IF_ERROR(TileFromProto(tile, what, &data->slots[cushion][column][row]));
    }
  }
  const uint8_t owner = static_cast<uint8_t>(card[1]);
  if (owner != 255 && owner >= data->participants())
    return Invalid(what, "'s card belongs to ", owner, ", not a seat");
  data->bids[cushion].seat = owner == 255 ? int8_t{-1} : static_cast<int8_t>(owner);
  return CardFromProto(static_cast<uint8_t>(card[0]), PartName::Numbered("cushion", cushion, "'s card"),
                       &data->bids[cushion].card);
}

// The cushions: a view's messages; a state's bytes, or messages if made before format 4.
absl::Status CushionsFromProto(const v1::MoonlightView& in, Data* data) {
  return CushionsFromMessages(in.cushions(), data);
}
absl::Status CushionsFromProto(const v1::MoonlightState& in, Data* data) {
  if (in.cushion_tiles().empty() && in.cushion_cards().empty()) return CushionsFromMessages(in.cushions(), data);
  if (in.cushions_size() != 0)
    return Invalid("the cushions are listed both as messages and as format 4's bytes");
  const size_t n = static_cast<size_t>(data->participants());
  if (in.cushion_tiles().size() != n * kCushionTileBytes || in.cushion_cards().size() != n * 2)
    return Invalid("the cushions must be ", n * kCushionTileBytes, " tile bytes and ", n * 2, " card bytes, not ",
                   in.cushion_tiles().size(), " and ", in.cushion_cards().size());
  const std::string_view tiles = in.cushion_tiles(), cards = in.cushion_cards();
  for (size_t cushion = 0; cushion < n; ++cushion)
    GAVEL_RETURN_IF_ERROR(CushionFromBytes(tiles.substr(cushion * kCushionTileBytes, kCushionTileBytes),
                                           cards.substr(cushion * 2, 2), static_cast<int>(cushion), data));
  return absl::OkStatus();
}

}  // namespace

void CardsToProto(CardSet cards, RepeatedU32* out) {
  for (int card = 1; card <= kCards; ++card)
    if (cards & CardBit(card)) out->Add(card);
}

absl::Status CardsFromProto(const RepeatedU32& in, const PartName& what, CardSet* out) {
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

absl::Status CardFromProto(uint32_t card, const PartName& what, uint8_t* out) {
  if (card > kCards) return Invalid(what, " is card ", card, ", which does not exist");
  *out = static_cast<uint8_t>(card);
  return absl::OkStatus();
}

namespace {

// The supply's or the box's counts as numbers (a state before format 2; the view appends
// them as bytes).
void CountsToProto(const TileCounts& counts, RepeatedU32* out) {
  for (uint8_t count : counts) out->Add(count);
}

}  // namespace

void RulesToProto(const Data& data, v1::MoonlightRules* out) {
  out->set_competition_ranking(data.competition);
  out->set_unlimited_seals(data.unlimited_seals);
  out->set_face_discard_value(data.face_discard);
}

namespace {

// The cushions as messages (a state before format 4; the view writes them with MessageWriter).
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

void PublicSeatScalarsToProto(const SeatData& holder, v1::MoonlightSeatState* out) {
  out->set_displaced(holder.displaced);
  out->set_seals(holder.seals);
  out->set_prestige(holder.prestige);
  out->set_taken_cushion(holder.taken);
}

// A seat of format 3 and later, in field-number order.
void WriteSeat(const Data& data, int seat, MessageWriter& out) {
  using SeatState = v1::MoonlightSeatState;
  const SeatData& holder = data.seats[seat];
  const bool bot = data.IsBot(seat);
  if (bot && holder.hand) out.UInt32(SeatState::kNextCardFieldNumber, std::countr_zero(static_cast<unsigned>(holder.hand)));
  out.UInt32(SeatState::kDisplacedFieldNumber, holder.displaced);
  out.UInt32(SeatState::kSealsFieldNumber, holder.seals);
  out.Int32(SeatState::kPrestigeFieldNumber, holder.prestige);
  out.Int32(SeatState::kTakenCushionFieldNumber, holder.taken);
  out.UInt32(SeatState::kPileCardsFieldNumber, holder.pile);
  out.UInt32(SeatState::kUnderCardsFieldNumber, holder.under);
  if (!bot) out.UInt32(SeatState::kHandCardsFieldNumber, holder.hand);
  out.UInt32(SeatState::kDiscardCardsFieldNumber, holder.discard);
  std::array<uint8_t, kColours * kChainLimit> chains;
  chains.fill(kNoTile);
  for (int colour = 0; colour < kColours; ++colour)
    for (int slot = 0; slot < holder.chains[colour].size; ++slot) chains[colour * kChainLimit + slot] = holder.chains[colour].tiles[slot];
  out.Bytes(SeatState::kChainTilesFieldNumber, AsBytes(chains));
  out.Bytes(SeatState::kHeldTilesFieldNumber, AsBytes(holder.held, holder.held_count));
}

constexpr size_t kSeatBytes = 9 * MessageWriter::ScalarBytes() + MessageWriter::BytesBytes(kColours * kChainLimit) +
                              MessageWriter::BytesBytes(kColumns);

// Format 3's seat (the same as format 4's) through the message.
void SeatAsBitsAndBytes(const Data& data, int seat, v1::MoonlightSeatState* out) {
  std::array<uint8_t, kSeatBytes> buffer;
  MessageWriter fields(buffer.data());
  WriteSeat(data, seat, fields);
  out->ParseFromArray(buffer.data(), static_cast<int>(fields.size()));
}

}  // namespace

void PublicSeatToProto(const SeatData& holder, v1::MoonlightSeatState* out) {
  CardsToProto(holder.discard, out->mutable_discard());
  PublicSeatScalarsToProto(holder, out);
  for (const Chain& chain : holder.chains) {
    auto* shown = out->add_chains();
    for (uint8_t tile : Tiles(chain)) shown->add_tiles(tile);
  }
  for (int i = 0; i < holder.held_count; ++i) out->add_held(holder.held[i]);
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
  GAVEL_RETURN_IF_ERROR(SupplyAndBoxFromProto(in, data));
  GAVEL_RETURN_IF_ERROR(CushionsFromProto(in, data));
  if (in.seats_size() != n) return Invalid("there must be ", n, " seats, not ", in.seats_size());
  for (int seat = 0; seat < n; ++seat)
    GAVEL_RETURN_IF_ERROR(PublicSeatFromProto(in.seats(seat), seat, &data->seats[seat]));
  return absl::OkStatus();
}

template absl::Status DecodePublic(const v1::MoonlightState&, Data*);
template absl::Status DecodePublic(const v1::MoonlightView&, Data*);

void MoonlightState::Serialize(v1::GameState* out) const { SerializeFormat(kFormat, out); }

// Format 4 written field by field in field-number order, so the bytes are protobuf's own
// (replays' recorded hashes pin them) at a fraction of its generic writing's instructions.
void MoonlightState::WriteFormat4(std::string* out) const {
  using Proto = v1::MoonlightState;
  using W = MessageWriter;
  constexpr size_t kCushionTiles = kColumns * std::tuple_size_v<Data::Column>;
  std::array<uint8_t, 9 * W::ScalarBytes() + W::MessageBytes(3 * W::ScalarBytes()) +
                          kMaxParticipants * W::MessageBytes(kSeatBytes) + 2 * W::BytesBytes(kTileKinds) +
                          W::BytesBytes(kMaxParticipants * kCushionTiles) + W::BytesBytes(2 * kMaxParticipants)> buffer;
  W fields(buffer.data());
  fields.UInt32(Proto::kHumansFieldNumber, data_.humans);
  fields.UInt32(Proto::kBotsFieldNumber, data_.bots);
  fields.ShortMessage<3 * W::ScalarBytes()>(Proto::kRulesFieldNumber, [&](W& rules) {
    rules.Bool(v1::MoonlightRules::kCompetitionRankingFieldNumber, data_.competition);
    rules.Bool(v1::MoonlightRules::kUnlimitedSealsFieldNumber, data_.unlimited_seals);
    rules.Bool(v1::MoonlightRules::kFaceDiscardValueFieldNumber, data_.face_discard);
  });
  fields.Int32(Proto::kPhaseFieldNumber, static_cast<int32_t>(data_.phase));
  fields.UInt32(Proto::kPassFieldNumber, data_.pass);
  fields.UInt32(Proto::kRoundFieldNumber, data_.round);
  fields.Int32(Proto::kTurnFieldNumber, data_.turn);
  fields.Int32(Proto::kCoinHolderFieldNumber, data_.coin_holder);
  fields.UInt32(Proto::kSealSupplyFieldNumber, data_.seal_supply);
  for (int seat = 0; seat < data_.participants(); ++seat) {
    std::array<uint8_t, kSeatBytes> seat_buffer;
    W shown(seat_buffer.data());
    WriteSeat(data_, seat, shown);
    fields.Message(Proto::kSeatsFieldNumber, shown);
  }
  fields.Fixed64(Proto::kRngFieldNumber, data_.rng);
  fields.Bytes(Proto::kSupplyCountsFieldNumber, AsBytes(data_.supply));
  fields.Bytes(Proto::kBoxCountsFieldNumber, AsBytes(data_.box));
  std::array<uint8_t, kMaxParticipants * kCushionTiles> tiles;
  std::array<uint8_t, 2 * kMaxParticipants> cards;
  for (int cushion = 0; cushion < data_.participants(); ++cushion) {
    for (int column = 0; column < kColumns; ++column)
      std::copy(data_.slots[cushion][column].begin(), data_.slots[cushion][column].end(),
                tiles.begin() + cushion * kCushionTiles + column * std::tuple_size_v<Data::Column>);
    cards[2 * cushion] = data_.bids[cushion].card;
    cards[2 * cushion + 1] = static_cast<uint8_t>(data_.bids[cushion].seat);  // -1 (none) becomes 255
  }
  fields.Bytes(Proto::kCushionTilesFieldNumber, AsBytes(tiles, data_.participants() * kCushionTiles));
  fields.Bytes(Proto::kCushionCardsFieldNumber, AsBytes(cards, 2 * data_.participants()));
  out->assign(fields.bytes());
}

void MoonlightState::SerializeFormat(int version, v1::GameState* out) const {
  out->set_game("moonlight_market");
  if (version >= 4) {
    out->mutable_state()->set_type_url(TypeUrl<v1::MoonlightState>());
    return WriteFormat4(out->mutable_state()->mutable_value());
  }
  PooledScratch<v1::MoonlightState> scratch;
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
  if (version >= 2) {
    proto.mutable_supply_counts()->assign(AsBytes(data_.supply));
    proto.mutable_box_counts()->assign(AsBytes(data_.box));
  } else {
    CountsToProto(data_.supply, proto.mutable_supply());
    CountsToProto(data_.box, proto.mutable_box());
  }
  CushionsToProto(data_, proto.mutable_cushions());
  for (int seat = 0; seat < data_.participants(); ++seat) {
    const SeatData& holder = data_.seats[seat];
    auto* shown = proto.add_seats();
    if (version >= 3) {
      SeatAsBitsAndBytes(data_, seat, shown);
      continue;
    }
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
  PackAny(proto, out->mutable_state());
}
namespace {

// The hidden fields of one seat: pile, cards under it, hand, a bot's next card.
absl::Status DecodeHiddenSeat(const v1::MoonlightSeatState& shown, const Data& data, int seat,
                              SeatData* holder) {
  if (shown.chain_tiles().empty()) {  // before format 3 (PublicSeatFromProto checked the form)
    GAVEL_RETURN_IF_ERROR(CardsFromProto(shown.pile(), PartName(seat, "pile"), &holder->pile));
    GAVEL_RETURN_IF_ERROR(
        CardsFromProto(shown.under(), PartName(seat, "cards under the pile"), &holder->under));
    GAVEL_RETURN_IF_ERROR(CardsFromProto(shown.hand(), PartName(seat, "hand"), &holder->hand));
  } else {
    GAVEL_RETURN_IF_ERROR(CardsFromBits(shown.pile_cards(), PartName(seat, "pile"), &holder->pile));
    GAVEL_RETURN_IF_ERROR(
        CardsFromBits(shown.under_cards(), PartName(seat, "cards under the pile"), &holder->under));
    GAVEL_RETURN_IF_ERROR(CardsFromBits(shown.hand_cards(), PartName(seat, "hand"), &holder->hand));
  }
  uint8_t next = 0;
  GAVEL_RETURN_IF_ERROR(CardFromProto(shown.next_card(), PartName(seat, "next card"), &next));
  if (data.IsBot(seat) ? holder->hand != 0 : next != 0)
    return Invalid("seat ", seat, "'s ", data.IsBot(seat) ? "hand must be empty (a bot has none)"
                                                         : "next card is for bots only");
  if (next) holder->hand = CardBit(next);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<State>> DecodeMoonlightState(const google::protobuf::Any& any) {
  PooledScratch<v1::MoonlightState> scratch;
  v1::MoonlightState& in = *scratch;
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(any, "the moonlight_market state"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(in, &data));
  if (in.turn() < -1 || in.turn() >= data.participants())
    return Invalid("the turn ", in.turn(), " is not a seat");
  data.turn = static_cast<int8_t>(in.turn());
  for (int seat = 0; seat < data.participants(); ++seat)
    GAVEL_RETURN_IF_ERROR(DecodeHiddenSeat(in.seats(seat), data, seat, &data.seats[seat]));
  data.rng = in.rng();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MoonlightState>(data));
}

absl::StatusOr<Move> DecodeMoonlightMove(const google::protobuf::Any& detail) {
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

namespace {
void BuildMoveDetail(Move move, v1::MoonlightMove* out) {
  if (IsBid(move)) {
    out->mutable_bid()->set_card(BidCard(move));
    out->mutable_bid()->set_cushion(BidCushion(move));
  } else if (IsHammer(move)) {
    auto* hammer = out->mutable_hammer();
    hammer->set_discard(move.id == kHammerDiscard);
    if (move.id != kHammerDiscard) {
      hammer->set_colour(ToColour(HammerColour(move)));
      hammer->set_position(HammerPosition(move));
    }
  } else {
    out->mutable_attach()->set_tile(AttachTile(move));
    out->mutable_attach()->set_colour(ToColour(AttachColour(move)));
  }
}
}  // namespace

void MoonlightState::MoveDetail(Move move, google::protobuf::Any* detail) const {
  static const PackedMoveDetails<v1::MoonlightMove> details(kMaxMoveId, BuildMoveDetail);
  details.Pack(move, detail);
}

absl::string_view MoonlightState::EncodedMove(Move move) const {
  static const EncodedMoves encoded(kMaxMoveId, IdText, BuildMoveDetail);
  return Displaces(move) ? absl::string_view() : encoded.Find(move);
}

}  // namespace gavel::moonlight_market
