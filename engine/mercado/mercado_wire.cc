// Mercado's wire forms: the table, the full state and its decoding, and the moves' decoding.
#include "engine/mercado/mercado_wire.h"

#include <algorithm>
#include <bit>
#include <span>

#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"

namespace gavel::mercado {

namespace {

// Six counts by colour, from either format; no colour has more coins than the counterfeits.
template <typename Count>
absl::Status SetCoins(const std::array<Count, kCoinKinds>& counts, const PartName& what, CoinCounts* out) {
  for (int coin = 0; coin < kCoinKinds; ++coin) {
    if (counts[coin] > kCounterfeits)
      return Invalid(what, " holds ", static_cast<uint32_t>(counts[coin]), " ", CoinName(coin), " coins, too many");
    (*out)[coin] = static_cast<uint8_t>(counts[coin]);
  }
  return absl::OkStatus();
}

// Format 1: every coin count on the table as a message.
absl::Status CoinsFromMessages(const v1::MercadoTable& in, Data* data) {
  GAVEL_RETURN_IF_ERROR(CoinsFromProto(in.drawn(), "the drawn coins", &data->drawn));
  GAVEL_RETURN_IF_ERROR(CoinsFromProto(in.supply(), "the supply", &data->supply));
  for (int seat = 0; seat < data->players; ++seat) {
    const v1::MercadoSeat& shown = in.seats(seat);
    SeatData& holder = data->seats[seat];
    GAVEL_RETURN_IF_ERROR(CoinsFromProto(shown.bag(), PartName(seat, "bag"), &holder.bag));
    GAVEL_RETURN_IF_ERROR(CoinsFromProto(shown.person_tile(), PartName(seat, "person tile"), &holder.person));
    if (shown.edges_size() != kPositions)
      return Invalid("seat ", seat, "'s edges must list ", kPositions, " positions");
    for (int position = 0; position < kPositions; ++position) {
      GAVEL_RETURN_IF_ERROR(CoinsFromProto(shown.edges(position), PartName(seat, "edge at position", position),
                                           &holder.edges[position]));
    }
  }
  return absl::OkStatus();
}

constexpr int kSeatCoinBytes = (2 + kPositions) * kCoinKinds;

constexpr size_t CoinBytes(int players) { return 2 * kCoinKinds + static_cast<size_t>(players) * kSeatCoinBytes; }

// Format 2's order of the coin counts: the drawn coins, the supply, then each seat's bag,
// person tile and edges at positions 0..7. `visit(name, counts)` returns a status; the first
// error stops the walk. `DataType` is Data or const Data.
template <typename DataType, typename Visit>
absl::Status ForEachCoinSlot(DataType& data, const Visit& visit) {
  GAVEL_RETURN_IF_ERROR(visit("the drawn coins", data.drawn));
  GAVEL_RETURN_IF_ERROR(visit("the supply", data.supply));
  for (int seat = 0; seat < data.players; ++seat) {
    auto& holder = data.seats[seat];
    GAVEL_RETURN_IF_ERROR(visit(PartName(seat, "bag"), holder.bag));
    GAVEL_RETURN_IF_ERROR(visit(PartName(seat, "person tile"), holder.person));
    for (int position = 0; position < kPositions; ++position)
      GAVEL_RETURN_IF_ERROR(visit(PartName(seat, "edge at position", position), holder.edges[position]));
  }
  return absl::OkStatus();
}

// Format 2: every coin count on the table from the state's `coins` bytes; the table's coin
// messages must be absent.
absl::Status CoinsFromBytes(const v1::MercadoTable& in, absl::string_view bytes, Data* data) {
  if (in.has_drawn() || in.has_supply())
    return Invalid("the table's coins are listed both as messages (format 1) and as bytes (format 2)");
  for (int seat = 0; seat < data->players; ++seat) {
    const v1::MercadoSeat& shown = in.seats(seat);
    if (shown.has_bag() || shown.has_person_tile() || shown.edges_size() != 0)
      return Invalid("seat ", seat, "'s coins are listed both as messages (format 1) and as bytes (format 2)");
  }
  if (bytes.size() != CoinBytes(data->players))
    return Invalid("the coins take ", bytes.size(), " bytes; ", data->players, " players need ",
                   CoinBytes(data->players));
  return ForEachCoinSlot(*data, [&bytes](const PartName& what, CoinCounts& out) {
    std::array<uint8_t, kCoinKinds> counts;
    std::copy_n(bytes.begin(), kCoinKinds, counts.begin());
    bytes.remove_prefix(kCoinKinds);
    return SetCoins(counts, what, &out);
  });
}

// Every coin slot's counts, in ForEachCoinSlot's order.
SmallNumbers<CoinBytes(kMaxPlayers)> CoinsAsBytes(const Data& data) {
  SmallNumbers<CoinBytes(kMaxPlayers)> out;
  ForEachCoinSlot(data, [&out](const PartName&, const CoinCounts& coins) {
    out.Add(coins);
    return absl::OkStatus();
  }).IgnoreError();
  return out;
}

// Format 2: each seat's privileges as 8 counts by type.
absl::Status PrivilegesFromBytes(absl::string_view bytes, Data* data) {
  if (bytes.size() != static_cast<size_t>(data->players) * kPrivilegeTypes)
    return Invalid("the held privileges take ", bytes.size(), " bytes; ", data->players, " players need ",
                   data->players * kPrivilegeTypes);
  for (int seat = 0; seat < data->players; ++seat) {
    for (int type = 0; type < kPrivilegeTypes; ++type) {
      const uint8_t count = static_cast<uint8_t>(bytes[seat * kPrivilegeTypes + type]);
      if (count > kPrivileges)
        return Invalid("seat ", seat, " holds ", static_cast<int>(count), " privileges of type ", type);
      data->seats[seat].privileges[type] = count;
    }
  }
  return absl::OkStatus();
}

// Each seat's privileges in either format; both at once is refused.
absl::Status HeldPrivilegesFromProto(const v1::MercadoState& in, Data* data) {
  if (!in.held_privileges().empty()) {
    if (in.privileges_size() != 0)
      return Invalid("the held privileges are listed both as messages (format 1) and as bytes (format 2)");
    return PrivilegesFromBytes(in.held_privileges(), data);
  }
  if (in.privileges_size() != data->players)
    return Invalid("the state lists privileges of ", in.privileges_size(), " seats");
  for (int seat = 0; seat < data->players; ++seat)
    GAVEL_RETURN_IF_ERROR(
        PrivilegesFromList(in.privileges(seat).types(), PartName(seat, "privileges"), &data->seats[seat].privileges));
  return absl::OkStatus();
}

}  // namespace

absl::Status CoinsFromProto(const v1::MercadoCoins& in, const PartName& what, CoinCounts* out) {
  return SetCoins(std::array<uint32_t, kCoinKinds>{in.gold(), in.silver(), in.copper(), in.turquoise(), in.white(),
                                                   in.black()},
                  what, out);
}

// Reads a list of tile ids of one deck into a bit set (bit = id - first_id).
absl::Status ListToBits(const google::protobuf::RepeatedField<uint32_t>& in, int first_id,
                        int count, const PartName& what, uint32_t* out) {
  for (uint32_t id : in) {
    if (id < static_cast<uint32_t>(first_id) || id >= static_cast<uint32_t>(first_id + count))
      return Invalid(what, " lists tile ", id, ", which does not belong there");
    const uint32_t bit = uint32_t{1} << (id - first_id);
    if (*out & bit) return Invalid(what, " lists tile ", id, " twice");
    *out |= bit;
  }
  return absl::OkStatus();
}

absl::Status PrivilegesFromList(const google::protobuf::RepeatedField<uint32_t>& in,
                                const PartName& what, PrivilegeCounts* out) {
  if (in.size() > kPrivileges) return Invalid(what, " lists too many privileges");
  for (uint32_t type : in) {
    if (type >= kPrivilegeTypes) return Invalid(what, " lists privilege type ", type);
    ++(*out)[type];
  }
  return absl::OkStatus();
}

void PrivilegesToList(const PrivilegeCounts& counts, google::protobuf::RepeatedField<uint32_t>* out) {
  for (int type = 0; type < kPrivilegeTypes; ++type)
    for (int i = 0; i < counts[type]; ++i) out->Add(type);
}

void TableToProto(const Data& data, v1::MercadoTable* out, bool with_coins) {
  out->set_players(data.players);
  out->set_board_side(data.side == 0 ? v1::MERCADO_BOARD_SIDE_A : v1::MERCADO_BOARD_SIDE_B);
  out->set_start_space(data.start_space);
  out->set_phase(static_cast<v1::MercadoPhase>(data.phase));
  out->set_active_seat(data.active);
  out->set_extra_turns(data.extra_turns);
  out->set_end_triggered(data.end_triggered);
  out->set_idle_turns(data.idle_turns);
  out->set_privilege_extra(static_cast<v1::MercadoEffect>(data.privilege_extra));
  out->set_placed_this_turn(data.placed_this_turn);
  if (with_coins) CoinsToProto(data.drawn, out->mutable_drawn());
  out->set_joker_in_hand(data.joker_in_hand);
  out->set_scoring_position(data.scoring_position);
  out->set_discarding_seat(data.discarder);
  out->mutable_display()->Reserve(static_cast<int>(data.display.size()));  // one allocation
  for (int8_t tile : data.display) out->add_display(static_cast<uint32_t>(tile));
  BitsToList(data.item_discards, 0, out->mutable_item_discards());
  BitsToList(data.perfume_discards, kItems, out->mutable_perfume_discards());
  out->set_item_deck_size(std::popcount(data.item_deck));
  out->set_perfume_deck_size(std::popcount(data.perfume_deck));
  if (with_coins) CoinsToProto(data.supply, out->mutable_supply());
  out->set_seal_supply(data.seal_supply);
  out->set_privilege_supply_size(PrivilegeCount(data.privilege_supply));
  PrivilegesToList(data.privileges_gone, out->mutable_privileges_gone());
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& holder = data.seats[seat];
    auto* shown = out->add_seats();
    if (with_coins) {
      CoinsToProto(holder.bag, shown->mutable_bag());
      CoinsToProto(holder.person, shown->mutable_person_tile());
      shown->mutable_edges()->Reserve(kPositions);
      for (const CoinCounts& edge : holder.edges) CoinsToProto(edge, shown->add_edges());
    }
    shown->set_seals(holder.seals);
    shown->set_progress(holder.progress);
    shown->set_stack_height(holder.height);
    shown->set_privilege_count(PrivilegeCount(holder.privileges));
  }
}

// The turn: players, board, phase, whose turn and what it is in the middle of.
absl::Status DecodeTurn(const v1::MercadoTable& in, Data* data) {
  if (in.players() < 2 || in.players() > kMaxPlayers)
    return Invalid("players must be 2 to 4, not ", in.players());
  data->players = static_cast<uint8_t>(in.players());
  if (in.board_side() != v1::MERCADO_BOARD_SIDE_A && in.board_side() != v1::MERCADO_BOARD_SIDE_B)
    return Invalid("board side must be A or B, not ", static_cast<int>(in.board_side()));
  data->side = in.board_side() == v1::MERCADO_BOARD_SIDE_A ? 0 : 1;
  if (in.start_space() >= kSpaces) return Invalid("start space ", in.start_space(), " is not 0..29");
  data->start_space = static_cast<uint8_t>(in.start_space());
  if (in.phase() < v1::MERCADO_PHASE_PRIVILEGE || in.phase() > v1::MERCADO_PHASE_FINISHED)
    return Invalid("phase ", static_cast<int>(in.phase()), " is not a phase");
  data->phase = static_cast<Phase>(in.phase());
  if (in.active_seat() < 0 || in.active_seat() >= data->players)
    return Invalid("active seat ", in.active_seat(), " is not a seat");
  data->active = static_cast<int8_t>(in.active_seat());
  if (in.extra_turns() > 255) return Invalid("extra turns ", in.extra_turns(), " out of range");
  data->extra_turns = static_cast<uint8_t>(in.extra_turns());
  data->end_triggered = in.end_triggered();
  if (in.idle_turns() > static_cast<uint32_t>(IdleTurnLimit(data->players)))
    return Invalid("idle turns ", in.idle_turns(), " exceed the limit ",
                   IdleTurnLimit(data->players));
  data->idle_turns = static_cast<uint16_t>(in.idle_turns());
  if (in.privilege_extra() < 0 || in.privilege_extra() >= kEffectKinds)
    return Invalid("privilege extra ", static_cast<int>(in.privilege_extra()), " is not an effect");
  data->privilege_extra = static_cast<Effect>(in.privilege_extra());
  data->placed_this_turn = in.placed_this_turn();
  data->joker_in_hand = in.joker_in_hand();
  if (in.scoring_position() < -1 || in.scoring_position() >= kPositions)
    return Invalid("scoring position ", in.scoring_position(), " out of range");
  data->scoring_position = static_cast<int8_t>(in.scoring_position());
  if (in.discarding_seat() < -1 || in.discarding_seat() >= data->players)
    return Invalid("discarding seat ", in.discarding_seat(), " is not a seat");
  data->discarder = static_cast<int8_t>(in.discarding_seat());
  return absl::OkStatus();
}

// The display and the discards; the decks follow from them.
absl::Status DecodeDisplay(const v1::MercadoTable& in, Data* data) {
  if (in.display_size() != kPositions)
    return Invalid("the display must list ", kPositions, " tiles, not ", in.display_size());
  for (int position = 0; position < kPositions; ++position) {
    if (in.display(position) >= kTiles)
      return Invalid("display position ", position, " holds tile ", in.display(position),
                     ", which does not exist");
    data->display[position] = static_cast<int8_t>(in.display(position));
  }
  uint32_t item_discards = 0, perfume_discards = 0;
  GAVEL_RETURN_IF_ERROR(ListToBits(in.item_discards(), 0, kItems, "the item discards", &item_discards));
  GAVEL_RETURN_IF_ERROR(ListToBits(in.perfume_discards(), kItems, kPerfumes, "the perfume discards", &perfume_discards));
  data->item_discards = item_discards;
  data->perfume_discards = static_cast<uint16_t>(perfume_discards);
  uint32_t item_shown = 0, perfume_shown = 0;
  for (int position = 0; position < kItemSlots; ++position)
    if (data->display[position] < kItems) item_shown |= uint32_t{1} << data->display[position];
  for (int position = kItemSlots; position < kOverseerPosition; ++position) {
    const int tile = data->display[position];
    if (tile >= kItems && tile < kOverseer) perfume_shown |= uint32_t{1} << (tile - kItems);
  }
  data->item_deck = kAllItems & ~item_shown & ~item_discards;
  data->perfume_deck = static_cast<uint16_t>(kAllPerfumes & ~perfume_shown & ~perfume_discards);
  if (in.item_deck_size() != static_cast<uint32_t>(std::popcount(data->item_deck)) ||
      in.perfume_deck_size() != static_cast<uint32_t>(std::popcount(data->perfume_deck)))
    return Invalid("the deck sizes do not match the display and the discards");
  return absl::OkStatus();
}

// The seal supply and the privileges played.
absl::Status DecodeSupplies(const v1::MercadoTable& in, Data* data) {
  if (in.seal_supply() > kSeals) return Invalid("the seal supply holds ", in.seal_supply());
  data->seal_supply = static_cast<uint8_t>(in.seal_supply());
  GAVEL_RETURN_IF_ERROR(PrivilegesFromList(in.privileges_gone(), "the played privileges", &data->privileges_gone));
  return absl::OkStatus();
}

// One seat's seals, progress and privilege count.
absl::Status DecodeSeat(const v1::MercadoSeat& shown, int seat, SeatData& holder,
                        int* privilege_count) {
  if (shown.seals() > kSeals) return Invalid("seat ", seat, "'s seals out of range");
  holder.seals = static_cast<uint8_t>(shown.seals());
  if (shown.progress() > kMaxProgress)
    return Invalid("seat ", seat, "'s progress ", shown.progress(), " out of range");
  holder.progress = static_cast<uint8_t>(shown.progress());
  if (shown.stack_height() >= kMaxPlayers) return Invalid("seat ", seat, "'s stack height out of range");
  holder.height = static_cast<uint8_t>(shown.stack_height());
  if (shown.privilege_count() > kPrivileges) return Invalid("seat ", seat, "'s privilege count out of range");
  *privilege_count = static_cast<int>(shown.privilege_count());
  return absl::OkStatus();
}

// Decodes the public table (ranges only; Validate checks consistency). The decks follow
// from the display and the discards; `privilege_counts` receives each seat's count.
absl::Status DecodeTable(const v1::MercadoTable& in, Data* data,
                         std::array<int, kMaxPlayers>* privilege_counts, absl::string_view coin_bytes) {
  GAVEL_RETURN_IF_ERROR(DecodeTurn(in, data));
  GAVEL_RETURN_IF_ERROR(DecodeDisplay(in, data));
  GAVEL_RETURN_IF_ERROR(DecodeSupplies(in, data));
  if (in.seats_size() != data->players)
    return Invalid("the table lists ", in.seats_size(), " seats for ", data->players, " players");
  int held = 0;
  for (int seat = 0; seat < data->players; ++seat) {
    GAVEL_RETURN_IF_ERROR(
        DecodeSeat(in.seats(seat), seat, data->seats[seat], &(*privilege_counts)[seat]));
    held += (*privilege_counts)[seat];
  }
  GAVEL_RETURN_IF_ERROR(coin_bytes.empty() ? CoinsFromMessages(in, data) : CoinsFromBytes(in, coin_bytes, data));
  if (held + PrivilegeCount(data->privileges_gone) + static_cast<int64_t>(in.privilege_supply_size()) !=
      kPrivileges)
    return Invalid("held, played and supply privileges do not add up to ", kPrivileges);
  return absl::OkStatus();
}

// The privilege supply: every privilege not held by a seat and not gone.
absl::Status FillPrivilegeSupply(Data* data) {
  for (int type = 0; type < kPrivilegeTypes; ++type) {
    int left = Privilege(type).count - data->privileges_gone[type];
    for (int seat = 0; seat < data->players; ++seat) left -= data->seats[seat].privileges[type];
    if (left < 0) return Invalid("there are too many privileges of type ", type);
    data->privilege_supply[type] = static_cast<uint8_t>(left);
  }
  return absl::OkStatus();
}

bool OptionalSymbolWaits(const Data& data) {
  const SeatData& mover = data.seats[data.active];
  if (mover.progress >= kSpaces) return false;
  for (int seat = 0; seat < data.players; ++seat)
    if (seat != data.active &&
        SpaceOf(data, data.seats[seat].progress) == SpaceOf(data, mover.progress))
      return false;
  return TheEdition().tracks[data.side][SpaceOf(data, mover.progress)] != kNoEffect;
}

void MercadoState::Serialize(v1::GameState* out) const { SerializeFormat(kFormat, out); }

namespace {

// A v1::MercadoCoins message field (gold to black are field numbers 1 to 6, the coins' order).
void WriteCoins(int field, const CoinCounts& coins, MessageWriter& out) {
  static_assert(v1::MercadoCoins::kGoldFieldNumber == 1 && v1::MercadoCoins::kBlackFieldNumber == kCoinKinds);
  out.ShortMessage<kCoinsBytes>(field, [&coins](MessageWriter& counts) {
    for (int coin = 0; coin < kCoinKinds; ++coin) counts.UInt32(coin + 1, coins[coin]);
  });
}

// A seat as an entry of the table's `seats`: its coins with `kWithCoins` (which make it too
// long to write in place), then its seals, progress, stack height and privilege count.
template <bool kWithCoins>
void WriteSeat(const SeatData& holder, MessageWriter& out) {
  using SeatProto = v1::MercadoSeat;
  const auto write_counts = [&holder](MessageWriter& fields) {
    fields.UInt32(SeatProto::kSealsFieldNumber, holder.seals);
    fields.UInt32(SeatProto::kProgressFieldNumber, holder.progress);
    fields.UInt32(SeatProto::kStackHeightFieldNumber, holder.height);
    fields.UInt32(SeatProto::kPrivilegeCountFieldNumber, PrivilegeCount(holder.privileges));
  };
  if constexpr (!kWithCoins) {
    out.ShortMessage<4 * MessageWriter::ScalarBytes()>(v1::MercadoTable::kSeatsFieldNumber, write_counts);
  } else {
    std::array<uint8_t, kSeatBytes> buffer;
    MessageWriter fields(buffer.data());
    WriteCoins(SeatProto::kBagFieldNumber, holder.bag, fields);
    WriteCoins(SeatProto::kPersonTileFieldNumber, holder.person, fields);
    for (const CoinCounts& edge : holder.edges) WriteCoins(SeatProto::kEdgesFieldNumber, edge, fields);
    write_counts(fields);
    out.Message(v1::MercadoTable::kSeatsFieldNumber, fields);
  }
}

// In field-number order: protobuf's own bytes (TableToProto(data, out, kWithCoins) describes
// the same fields): a view's table, and a full state's of format 2 without the coins (an
// instance of its own, inlined into the state's writer).
template <bool kWithCoins>
void WriteTable(const Data& data, MessageWriter& out) {
  using Table = v1::MercadoTable;
  out.UInt32(Table::kPlayersFieldNumber, data.players);
  out.Int32(Table::kBoardSideFieldNumber, data.side == 0 ? v1::MERCADO_BOARD_SIDE_A : v1::MERCADO_BOARD_SIDE_B);
  out.UInt32(Table::kStartSpaceFieldNumber, data.start_space);
  out.Int32(Table::kPhaseFieldNumber, static_cast<int32_t>(data.phase));
  out.Int32(Table::kActiveSeatFieldNumber, data.active);
  out.UInt32(Table::kExtraTurnsFieldNumber, data.extra_turns);
  out.Bool(Table::kEndTriggeredFieldNumber, data.end_triggered);
  out.Int32(Table::kPrivilegeExtraFieldNumber, static_cast<int32_t>(data.privilege_extra));
  out.Bool(Table::kPlacedThisTurnFieldNumber, data.placed_this_turn);
  if constexpr (kWithCoins) WriteCoins(Table::kDrawnFieldNumber, data.drawn, out);
  out.Bool(Table::kJokerInHandFieldNumber, data.joker_in_hand);
  out.Int32(Table::kScoringPositionFieldNumber, data.scoring_position);
  out.Int32(Table::kDiscardingSeatFieldNumber, data.discarder);
  std::array<uint32_t, kPositions> display;
  for (int position = 0; position < kPositions; ++position) display[position] = static_cast<uint32_t>(data.display[position]);
  out.Packed(Table::kDisplayFieldNumber, display);
  out.Packed(Table::kItemDiscardsFieldNumber, SmallNumbers<kItems>::SetBits(data.item_discards).numbers());
  out.Packed(Table::kPerfumeDiscardsFieldNumber, SmallNumbers<kPerfumes>::SetBits(data.perfume_discards, kItems).numbers());
  out.UInt32(Table::kItemDeckSizeFieldNumber, std::popcount(data.item_deck));
  out.UInt32(Table::kPerfumeDeckSizeFieldNumber, std::popcount(data.perfume_deck));
  if constexpr (kWithCoins) WriteCoins(Table::kSupplyFieldNumber, data.supply, out);
  out.UInt32(Table::kSealSupplyFieldNumber, data.seal_supply);
  out.UInt32(Table::kPrivilegeSupplySizeFieldNumber, PrivilegeCount(data.privilege_supply));
  SmallNumbers<kPrivileges> gone;
  for (int type = 0; type < kPrivilegeTypes; ++type)
    for (int i = 0; i < data.privileges_gone[type]; ++i) gone.Add(type);
  out.Packed(Table::kPrivilegesGoneFieldNumber, gone.numbers());
  for (int seat = 0; seat < data.players; ++seat) WriteSeat<kWithCoins>(data.seats[seat], out);
  out.UInt32(Table::kIdleTurnsFieldNumber, data.idle_turns);
}

}  // namespace

void WriteViewTable(const Data& data, MessageWriter& out) { WriteTable<true>(data, out); }

// Format 2 written field by field in field-number order, so the bytes are protobuf's own
// (replays' recorded hashes pin them) at a fraction of its generic writing's instructions.
void MercadoState::WriteFormat2(std::string* out) const {
  using Proto = v1::MercadoState;
  using W = MessageWriter;
  std::array<uint8_t, kTableBytes> table_buffer;
  W table(table_buffer.data());
  WriteTable</*kWithCoins=*/false>(data_, table);
  const auto coins = CoinsAsBytes(data_);
  std::array<uint8_t, kMaxPlayers * kPrivilegeTypes> held;
  for (int seat = 0; seat < data_.players; ++seat)
    std::copy(data_.seats[seat].privileges.begin(), data_.seats[seat].privileges.end(), held.begin() + seat * kPrivilegeTypes);
  std::array<uint8_t, W::MessageBytes(kTableBytes) + W::ScalarBytes() + W::BytesBytes(CoinBytes(kMaxPlayers)) +
                          W::BytesBytes(held.size())> buffer;
  W fields(buffer.data());
  fields.Message(Proto::kTableFieldNumber, table);
  fields.Fixed64(Proto::kRngFieldNumber, data_.rng);
  fields.Bytes(Proto::kCoinsFieldNumber, coins.bytes());
  fields.Bytes(Proto::kHeldPrivilegesFieldNumber, AsBytes(held, data_.players * kPrivilegeTypes));
  out->assign(fields.bytes());
}

void MercadoState::SerializeFormat(int version, v1::GameState* out) const {
  out->set_game("mercado");
  if (version >= 2) {
    out->mutable_state()->set_type_url(TypeUrl<v1::MercadoState>());
    return WriteFormat2(out->mutable_state()->mutable_value());
  }
  PooledScratch<v1::MercadoState> scratch;
  v1::MercadoState& proto = *scratch;
  TableToProto(data_, proto.mutable_table(), /*with_coins=*/true);
  for (int seat = 0; seat < data_.players; ++seat)
    PrivilegesToList(data_.seats[seat].privileges, proto.add_privileges()->mutable_types());
  proto.set_rng(data_.rng);
  PackAny(proto, out->mutable_state());
}

absl::StatusOr<std::unique_ptr<State>> MercadoGameImpl::DecodeState(
    const google::protobuf::Any& any) const {
  PooledScratch<v1::MercadoState> scratch;
  const v1::MercadoState& in = *scratch;
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(any, "the mercado state"));
  Data data;
  std::array<int, kMaxPlayers> counts{};
  GAVEL_RETURN_IF_ERROR(DecodeTable(in.table(), &data, &counts, in.coins()));
  GAVEL_RETURN_IF_ERROR(HeldPrivilegesFromProto(in, &data));
  for (int seat = 0; seat < data.players; ++seat) {
    const PrivilegeCounts& held = data.seats[seat].privileges;
    if (PrivilegeCount(held) != counts[seat])
      return Invalid("seat ", seat, " holds ", PrivilegeCount(held),
                     " privileges, but the table says ", counts[seat]);
  }
  GAVEL_RETURN_IF_ERROR(FillPrivilegeSupply(&data));
  data.rng = in.rng();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MercadoState>(data));
}

absl::StatusOr<Move> MercadoGameImpl::DecodeMove(const google::protobuf::Any& detail) const {
  v1::MercadoMove in;
  GAVEL_RETURN_IF_ERROR(UnpackAny(detail, &in, "the move detail"));
  auto position = [](uint32_t p) -> absl::StatusOr<uint32_t> {
    if (p >= kPositions) return Invalid("display position ", p, " is not 0..7");
    return p;
  };
  auto type = [](uint32_t t) -> absl::StatusOr<uint32_t> {
    if (t >= kPrivilegeTypes) return Invalid("privilege type ", t, " is not 0..7");
    return t;
  };
  switch (in.move_case()) {
    case v1::MercadoMove::kNoPrivilege: return Move{kNoPrivilege};
    case v1::MercadoMove::kUseSymbol: return Move{kUseSymbol};
    case v1::MercadoMove::kSkipSymbol: return Move{kSkipSymbol};
    case v1::MercadoMove::kActionA: return Move{kActionA};
    case v1::MercadoMove::kActionB: return Move{kActionB};
    case v1::MercadoMove::kUseSeal: return Move{kUseSeal};
    case v1::MercadoMove::kNoSeal: return Move{kNoSeal};
    case v1::MercadoMove::kStop: return Move{kStop};
    case v1::MercadoMove::kPlayPrivilege: {
      GAVEL_ASSIGN_OR_RETURN(const int t, type(in.play_privilege().type()));
      return Move{kPlayPrivilegeBase + t};
    }
    case v1::MercadoMove::kDiscardPrivilege: {
      GAVEL_ASSIGN_OR_RETURN(const int t, type(in.discard_privilege().type()));
      return Move{kDiscardBase + t};
    }
    case v1::MercadoMove::kScore: {
      GAVEL_ASSIGN_OR_RETURN(const int p, position(in.score().position()));
      return Move{kScoreBase + p};
    }
    case v1::MercadoMove::kPlaceJoker: {
      GAVEL_ASSIGN_OR_RETURN(const int p, position(in.place_joker().position()));
      return Move{kPlaceJokerBase + p};
    }
    case v1::MercadoMove::kPlace: {
      GAVEL_ASSIGN_OR_RETURN(const int p, position(in.place().position()));
      const int coin = static_cast<int>(in.place().coin()) - 1;
      if (coin < 0 || coin >= kPlaceable)
        return Invalid("only gold, silver, copper, turquoise and white coins can be placed");
      return PlaceMove(coin, static_cast<int>(p));
    }
    case v1::MercadoMove::MOVE_NOT_SET:
      break;
  }
  return Invalid("the move names no decision");
}

}  // namespace gavel::mercado
