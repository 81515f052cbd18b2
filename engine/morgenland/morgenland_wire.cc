// Morgenland's wire forms: the full state and its decoding, move texts, details and decoding.
#include "engine/morgenland/morgenland_wire.h"

#include "engine/core/encoded_moves.h"
#include "engine/core/message_writer.h"
#include "engine/core/move_texts.h"
#include "engine/core/proto_util.h"

namespace gavel::morgenland {
namespace {

absl::Status SetToken(int64_t space, uint32_t copies, int token, SeatData* s) {
  GAVEL_RETURN_IF_ERROR(CheckRange(space, kSetAside, kSpaces - 1, "a token's space"));
  GAVEL_RETURN_IF_ERROR(CheckRange(copies, 0, 4, "a token's copies"));
  s->token_space[token] = static_cast<int8_t>(space);
  s->copies[token] = static_cast<uint8_t>(copies);
  return absl::OkStatus();
}

// Format 1: one message per token, its seat, index and value spelled out.
absl::Status DecodeTokenMessages(const v1::MorgenlandSeatState& in, int seat, SeatData* s) {
  if (in.tokens_size() != kTokens) return Invalid("seat ", seat, " must list its 8 tokens");
  for (int token = 0; token < kTokens; ++token) {
    const auto& t = in.tokens(token);
    if (t.index() != static_cast<uint32_t>(token) || t.value() != static_cast<uint32_t>(TokenValue(token)) || t.seat() != seat)
      return Invalid("seat ", seat, "'s token ", token, " is mislabelled");
    GAVEL_RETURN_IF_ERROR(SetToken(t.space(), t.copies(), token, s));
    if (t.face_up()) s->face_up |= static_cast<uint8_t>(1 << token);
  }
  return absl::OkStatus();
}

// Format 4: the places and copies as bytes (a place is the space + 2).
absl::Status DecodeTokenBytes(const std::string& places, int seat, SeatData* s) {
  if (places.size() != 2 * kTokens)
    return Invalid("seat ", seat, "'s token places must be ", 2 * kTokens, " bytes, not ", places.size());
  for (int token = 0; token < kTokens; ++token)
    GAVEL_RETURN_IF_ERROR(SetToken(static_cast<uint8_t>(places[token]) + kSetAside,
                                   static_cast<uint8_t>(places[kTokens + token]), token, s));
  return absl::OkStatus();
}

absl::Status DecodeSeatTokens(const v1::MorgenlandSeatState& in, int seat, SeatData* s) {
  const bool numbers = in.token_spaces_size() > 0 || in.token_copies_size() > 0;
  const bool bytes = !in.token_places().empty();
  if (in.tokens_size() > 0) {
    if (numbers || bytes || in.face_up_tokens() != 0) return Invalid("seat ", seat, " lists its tokens in more than one form");
    return DecodeTokenMessages(in, seat, s);
  }
  if (numbers && bytes) return Invalid("seat ", seat, " lists its tokens in more than one form");
  if (in.face_up_tokens() >> kTokens != 0) return Invalid("seat ", seat, "'s face-up tokens name unknown tokens");
  s->face_up = static_cast<uint8_t>(in.face_up_tokens());
  if (bytes) return DecodeTokenBytes(in.token_places(), seat, s);
  if (in.token_spaces_size() != kTokens || in.token_copies_size() != kTokens)
    return Invalid("seat ", seat, " must list the spaces and copies of its 8 tokens");
  for (int token = 0; token < kTokens; ++token)
    GAVEL_RETURN_IF_ERROR(SetToken(in.token_spaces(token), in.token_copies(token), token, s));
  return absl::OkStatus();
}

}  // namespace

absl::Status TreasuryUnitsFromProto(const v1::MorgenlandState& in, Data* data) {
  const std::string& units = in.treasury_units();
  if (units.empty()) {
    GAVEL_RETURN_IF_ERROR(TreasuryMessagesFromProto(in, data));
    return FromProto(in.box(), kArtifactsPerType, "the box", &data->box);
  }
  if (in.shelves_size() != 0 || in.has_bank() || in.has_box())
    return Invalid("the shelves, bank and box are listed both as messages and as bytes (format 3)");
  constexpr size_t kSize = kKinds * kMaxShelves + kKinds + kArtifactTypes;
  if (units.size() != kSize) return Invalid("the treasury units must be ", kSize, " bytes, not ", units.size());
  size_t at = 0;
  for (auto& shelves : data->shelves) GAVEL_RETURN_IF_ERROR(FromBytes(units, &at, kUnitsPerKind, "a cave's shelves", &shelves));
  GAVEL_RETURN_IF_ERROR(FromBytes(units, &at, kUnitsPerKind, "the bank", &data->bank));
  return FromBytes(units, &at, kArtifactsPerType, "the box", &data->box);
}

absl::Status SeatUnitsFromProto(const v1::MorgenlandSeatState& in, SeatData* s) {
  const std::string& units = in.units();
  if (units.empty()) {
    GAVEL_RETURN_IF_ERROR(FromProto(in.treasure(), kUnitsPerKind, "a seat's treasure", &s->treasure));
    GAVEL_RETURN_IF_ERROR(FromProto(in.start(), 3, "a seat's starting picks", &s->start));
    return ArtifactUnitsFromProto(in, s);
  }
  if (in.has_treasure() || in.has_start() || in.has_owned() || in.has_invoked() || in.has_carpets())
    return Invalid("a seat's units are listed both as messages and as bytes (format 3)");
  constexpr size_t kSize = 2 * kKinds + 2 * kArtifactTypes + kSpaces;
  if (units.size() != kSize) return Invalid("a seat's units must be ", kSize, " bytes, not ", units.size());
  size_t at = 0;
  GAVEL_RETURN_IF_ERROR(FromBytes(units, &at, kUnitsPerKind, "a seat's treasure", &s->treasure));
  GAVEL_RETURN_IF_ERROR(FromBytes(units, &at, 3, "a seat's starting picks", &s->start));
  GAVEL_RETURN_IF_ERROR(FromBytes(units, &at, kArtifactsPerType, "owned artifacts", &s->owned));
  GAVEL_RETURN_IF_ERROR(FromBytes(units, &at, 2, "invoked artifacts", &s->invoked));
  return FromBytes(units, &at, 4, "carpets", &s->carpets);
}

absl::Status CheckRange(int64_t value, int64_t low, int64_t high, absl::string_view what) {
  if (value < low || value > high) return Invalid(what, " is ", value, ", outside ", low, "..", high);
  return absl::OkStatus();
}

void TokenToProto(const SeatData& s, int seat, int token, bool show, v1::MorgenlandToken* out) {
  out->set_seat(seat);
  out->set_index(show ? token : 0);
  out->set_value(show ? TokenValue(token) : 0);
  out->set_space(s.token_space[token]);
  out->set_face_up(s.face_up >> token & 1);
  out->set_copies(s.copies[token]);
}

void MorgenlandState::Serialize(v1::GameState* out) const { SerializeFormat(kFormat, out); }

// Format 5's fields but the rooms and seats, in field-number order: the bytes protobuf writes
// for them (the protobuf part of format 5 as SerializeFormat(4)'s message holds it).
void MorgenlandState::WriteFormat5Fields(std::string* out) const {
  using Proto = v1::MorgenlandState;
  using W = MessageWriter;
  constexpr size_t kTreasuryBytes = kKinds * kMaxShelves + kKinds + kArtifactTypes;
  std::array<uint8_t, kPublicBytes + W::ScalarBytes() + 2 * W::PackedBytes(kMaxPlayers) + W::BytesBytes(kTreasuryBytes)> buffer;
  W fields(buffer.data());
  WritePublicHead<Proto>(data_, fields, [](W&) {});
  WritePublicMiddle<Proto>(data_, fields, {Proto::kSpellDeckFieldNumber, data_.spell_deck}, data_.tent);
  fields.Fixed64(Proto::kRngFieldNumber, data_.rng);
  WritePublicTargets<Proto>(data_, fields);
  fields.Packed(Proto::kSetKnownFieldNumber, std::span<const uint8_t>(data_.set_known.data(), data_.players));
  fields.Packed(Proto::kOrderKnownFieldNumber, std::span<const uint8_t>(data_.order_known.data(), data_.players));
  std::array<uint8_t, kTreasuryBytes> units;
  auto end = units.begin();
  for (const auto& shelves : data_.shelves) end = std::copy(shelves.begin(), shelves.end(), end);
  end = std::copy(data_.bank.begin(), data_.bank.end(), end);
  end = std::copy(data_.box.begin(), data_.box.end(), end);
  fields.Bytes(Proto::kTreasuryUnitsFieldNumber, AsBytes(units, static_cast<size_t>(end - units.begin())));
  out->assign(fields.bytes());
}

void MorgenlandState::SerializeFormat(int version, v1::GameState* out) const {
  out->set_game("morgenland");
  if (version >= 5) {
    out->mutable_state()->set_type_url(TypeUrl<v1::MorgenlandState>());
    std::string* value = out->mutable_state()->mutable_value();
    WriteFormat5Fields(value);
    return AppendRoomsAndSeats(value);
  }
  PooledScratch<v1::MorgenlandState> scratch;
  v1::MorgenlandState& proto = *scratch;
  {
    using Proto = v1::MorgenlandState;
    std::array<uint8_t, kPublicBytes> buffer;
    MessageWriter fields(buffer.data());
    WritePublicHead<Proto>(data_, fields, [](MessageWriter&) {});
    WritePublicMiddle<Proto>(data_, fields, {Proto::kSpellDeckFieldNumber, data_.spell_deck}, data_.tent);
    WritePublicTargets<Proto>(data_, fields);
    proto.ParseFromArray(buffer.data(), static_cast<int>(fields.size()));
  }
  const bool unit_bytes = version >= 3;
  if (unit_bytes) {
    std::string& units = *proto.mutable_treasury_units();
    for (const auto& shelves : data_.shelves) units.append(AsBytes(shelves));
    units.append(AsBytes(data_.bank));
    units.append(AsBytes(data_.box));
  } else {
    TreasuryUnitsToProto(data_, &proto);
    ToProto(data_.box, proto.mutable_box());
  }
  for (int room = 0; room < data_.players; ++room) {
    proto.add_set_known(data_.set_known[room]);
    proto.add_order_known(data_.order_known[room]);
  }
  proto.set_rng(data_.rng);
  RoomsAndSeatsToProto(version, &proto);
  PackAny(proto, out->mutable_state());
}

// The rooms and seats of formats 1 to 4, through the message.
void MorgenlandState::RoomsAndSeatsToProto(int version, v1::MorgenlandState* proto) const {
  for (int room = 0; room < data_.players; ++room) {
    auto* room_proto = proto->add_rooms();
    for (int i = 0; i < data_.stack_size[room]; ++i) room_proto->add_stack(data_.stack[room][i]);
    room_proto->set_face_up(data_.face_up[room]);
  }
  const bool unit_bytes = version >= 3;
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& s = data_.seats[seat];
    auto* seat_proto = proto->add_seats();
    if (version == 1) {
      for (int token = 0; token < kTokens; ++token)
        TokenToProto(s, seat, token, true, seat_proto->add_tokens());
    } else if (version >= 4) {
      std::string& places = *seat_proto->mutable_token_places();
      for (int8_t space : s.token_space) places.push_back(static_cast<char>(space - kSetAside));
      places.append(AsBytes(s.copies));
      seat_proto->set_face_up_tokens(s.face_up);
    } else {
      seat_proto->mutable_token_spaces()->Reserve(kTokens);
      seat_proto->mutable_token_copies()->Reserve(kTokens);
      for (int token = 0; token < kTokens; ++token) {
        seat_proto->add_token_spaces(s.token_space[token]);
        seat_proto->add_token_copies(s.copies[token]);
      }
      seat_proto->set_face_up_tokens(s.face_up);
    }
    if (unit_bytes) {
      std::string& units = *seat_proto->mutable_units();
      units.append(AsBytes(s.treasure));
      units.append(AsBytes(s.start));
      units.append(AsBytes(s.owned));
      units.append(AsBytes(s.invoked));
      units.append(AsBytes(s.carpets));
    } else {
      ToProto(s.treasure, seat_proto->mutable_treasure());
      ToProto(s.start, seat_proto->mutable_start());
      ToProto(s.owned, seat_proto->mutable_owned());
      ToProto(s.invoked, seat_proto->mutable_invoked());
      ToProto(s.carpets, seat_proto->mutable_carpets());
    }
    seat_proto->set_parasite_uses(s.parasite_uses);
    seat_proto->set_scroll_spaces(s.scroll_spaces);
    seat_proto->set_smuggler_spaces(s.smuggler_spaces);
    seat_proto->set_spells(s.spells);
    for (int other = 0; other < data_.players; ++other) seat_proto->add_known_by(s.known_by[other]);
    seat_proto->set_entered(s.entered);
    seat_proto->set_djinn(s.djinn);
  }
}

namespace {

constexpr size_t kRoomBytes = MessageWriter::PackedBytes(kMaxStack) + MessageWriter::ScalarBytes();
constexpr size_t kUnitBytes = 2 * kKinds + 2 * kArtifactTypes + kSpaces;
constexpr size_t kSeatStateBytes = 7 * MessageWriter::ScalarBytes() + MessageWriter::PackedBytes(kMaxPlayers) +
                                   MessageWriter::BytesBytes(kUnitBytes) + MessageWriter::BytesBytes(2 * kTokens);

// A room as an entry of the state's `rooms`.
void WriteRoom(const Data& data, int room, MessageWriter& out) {
  using Room = v1::MorgenlandRoom;
  std::array<uint8_t, kRoomBytes> buffer;
  MessageWriter fields(buffer.data());
  fields.Packed(Room::kStackFieldNumber, std::span(data.stack[room].data(), data.stack_size[room]));
  fields.Int32(Room::kFaceUpFieldNumber, data.face_up[room]);
  out.Message(v1::MorgenlandState::kRoomsFieldNumber, fields);
}

// A seat of formats 4 and 5 as an entry of the state's `seats`: its tokens as the bytes of their
// places (0 set aside, 1 in hand, else 2 + the space) and copies, its unit lists as bytes.
void WriteSeat(const Data& data, int seat, MessageWriter& out) {
  using SeatState = v1::MorgenlandSeatState;
  const SeatData& s = data.seats[seat];
  std::array<uint8_t, kUnitBytes> units;
  auto units_end = std::copy(s.treasure.begin(), s.treasure.end(), units.begin());
  units_end = std::copy(s.start.begin(), s.start.end(), units_end);
  units_end = std::copy(s.owned.begin(), s.owned.end(), units_end);
  units_end = std::copy(s.invoked.begin(), s.invoked.end(), units_end);
  std::copy(s.carpets.begin(), s.carpets.end(), units_end);
  std::array<uint8_t, 2 * kTokens> places;
  for (int token = 0; token < kTokens; ++token) places[token] = static_cast<uint8_t>(s.token_space[token] - kSetAside);
  std::copy(s.copies.begin(), s.copies.end(), places.begin() + kTokens);
  std::array<uint8_t, kSeatStateBytes> buffer;
  MessageWriter fields(buffer.data());
  fields.UInt32(SeatState::kParasiteUsesFieldNumber, s.parasite_uses);
  fields.UInt32(SeatState::kScrollSpacesFieldNumber, s.scroll_spaces);
  fields.UInt32(SeatState::kSmugglerSpacesFieldNumber, s.smuggler_spaces);
  fields.UInt32(SeatState::kSpellsFieldNumber, s.spells);
  fields.Packed(SeatState::kKnownByFieldNumber, std::span(s.known_by.data(), data.players));
  fields.Bool(SeatState::kEnteredFieldNumber, s.entered);
  fields.Bool(SeatState::kDjinnFieldNumber, s.djinn);
  fields.UInt32(SeatState::kFaceUpTokensFieldNumber, s.face_up);
  fields.Bytes(SeatState::kUnitsFieldNumber, AsBytes(units));
  fields.Bytes(SeatState::kTokenPlacesFieldNumber, AsBytes(places));
  out.Message(v1::MorgenlandState::kSeatsFieldNumber, fields);
}

}  // namespace

// Format 5: format 4's fields, its rooms and seats after protobuf's part as MessageWriter writes
// them (protobuf's generic writing of these small messages was a sixth of a combined call):
// readers take fields in any order, and the bytes stay a function of the state.
void MorgenlandState::AppendRoomsAndSeats(std::string* out) const {
  std::array<uint8_t, kMaxPlayers * (MessageWriter::MessageBytes(kRoomBytes) + MessageWriter::MessageBytes(kSeatStateBytes))> buffer;
  MessageWriter fields(buffer.data());
  for (int room = 0; room < data_.players; ++room) WriteRoom(data_, room, fields);
  for (int seat = 0; seat < data_.players; ++seat) WriteSeat(data_, seat, fields);
  out->append(fields.bytes());
}

absl::StatusOr<std::unique_ptr<State>> MorgenlandGameImpl::DecodeState(const google::protobuf::Any& any) const {
  PooledScratch<v1::MorgenlandState> scratch;
  v1::MorgenlandState& in = *scratch;
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(any, "the morgenland state"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(in, &data));
  const int n = data.players;
  GAVEL_RETURN_IF_ERROR(DecodeRooms(in, &data));
  if (in.spell_deck() > kAllSpells) return Invalid("the spell deck names unknown spells");
  data.spell_deck = in.spell_deck();
  GAVEL_RETURN_IF_ERROR(DecodeTent(in.tent(), &data, false));
  for (int seat = 0; seat < n; ++seat) {
    const auto& seat_in = in.seats(seat);
    SeatData& s = data.seats[seat];
    GAVEL_RETURN_IF_ERROR(DecodeSeatTokens(seat_in, seat, &s));
    GAVEL_RETURN_IF_ERROR(DecodeSeatPublic(seat_in, &s));
    if (seat_in.spells() > kAllSpells) return Invalid("seat ", seat, " holds unknown spells");
    s.spells = seat_in.spells();
    if (seat_in.known_by_size() != n) return Invalid("seat ", seat, " must list known spells per seat");
    for (int other = 0; other < n; ++other) s.known_by[other] = seat_in.known_by(other);
  }
  data.rng = in.rng();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MorgenlandState>(data));
}

absl::StatusOr<Move> MorgenlandGameImpl::DecodeMove(const google::protobuf::Any& detail) const {
  v1::MorgenlandMove in;
  GAVEL_RETURN_IF_ERROR(UnpackAny(detail, &in, "the move detail"));
  switch (in.move_case()) {
    case v1::MorgenlandMove::kKind:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.kind(), 0, kKinds - 1, "the kind"));
      return KindMove(in.kind());
    case v1::MorgenlandMove::kPass: return PassMove();
    case v1::MorgenlandMove::kAccept: return AcceptMove();
    case v1::MorgenlandMove::kNameSeat:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.name_seat(), 0, kMaxPlayers - 1, "the named seat"));
      return SeatMove(in.name_seat());
    case v1::MorgenlandMove::kPlace:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.place().token(), 0, kTokens - 1, "the token"));
      GAVEL_RETURN_IF_ERROR(CheckRange(in.place().space(), 0, kSpaces - 1, "the space"));
      return PlaceMove(static_cast<int>(in.place().token()), in.place().space());
    case v1::MorgenlandMove::kInvoke:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.invoke(), 0, kArtifactTypes - 1, "the artifact"));
      return InvokeMove(in.invoke());
    case v1::MorgenlandMove::kDoubleToken:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.double_token(), 0, kTokens - 1, "the token"));
      return DoubleMove(static_cast<int>(in.double_token()));
    case v1::MorgenlandMove::kCounter: return CounterMove();
    case v1::MorgenlandMove::kKeepSpell:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.keep_spell(), 0, kSpells - 1, "the spell"));
      return KeepMove(in.keep_spell());
    case v1::MorgenlandMove::kPickPosition:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.pick_position(), 0, kMaxStack, "the position"));
      return PickArtifactMove(static_cast<int>(in.pick_position()));
    case v1::MorgenlandMove::kSpell:
      GAVEL_RETURN_IF_ERROR(CheckRange(in.spell().spell(), 0, kSpells - 1, "the spell"));
      GAVEL_RETURN_IF_ERROR(CheckRange(in.spell().target(), 0, kSpellStride - 1, "the spell's target"));
      return SpellMove(in.spell().spell(), static_cast<int>(in.spell().target()));
    default:
      return Invalid("the move names no action");
  }
}

// ---------------------------------------------------------------------------
// Move text and detail

namespace {
// The text of a move whose text its id fixes, or empty: a kind's verb follows the phase, and
// a spell's text names what it targets in the state.
std::string FixedText(Move move) {
  const uint32_t id = move.id;
  if (id == kPassId) return "pass";
  if (id == kAcceptId) return "accept";
  if (id >= kSeatBase && id < kSeatBase + kMaxPlayers) return absl::StrCat("camel to seat ", id - kSeatBase);
  if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens)
    return absl::StrCat("place ", TokenValue(static_cast<int>(id - kPlaceBase) / 15), " on ",
                        SpaceName(static_cast<int>(id - kPlaceBase) % 15));
  if (id >= kInvokeBase && id < kInvokeBase + kArtifactTypes)
    return absl::StrCat("invoke ", ArtifactName(static_cast<int>(id - kInvokeBase)));
  if (id >= kDoubleBase && id < kDoubleBase + kTokens)
    return absl::StrCat("Double on ", TokenValue(static_cast<int>(id - kDoubleBase)));
  if (id == kCounterId) return "Counterspell";
  if (id >= kKeepBase && id < kKeepBase + kSpells) return absl::StrCat("keep ", SpellName(static_cast<int>(id - kKeepBase)));
  if (id >= kPickArtifactBase && id <= kPickArtifactBase + kMaxStack) return absl::StrCat("pick artifact ", id - kPickArtifactBase);
  return "";
}

// A kind move picks, takes, returns or pays a unit of that kind, by phase.
constexpr std::array<const char*, 4> kKindVerbs = {"pick", "take", "return", "pay with"};
int KindVerb(Phase phase) {
  return phase == Phase::kPick ? 0 : phase == Phase::kTake ? 1 : phase == Phase::kMarket ? 2 : 3;
}

// The text of a move whose text its id and the kind verb `verb` fix, or empty.
std::string TextWithVerb(Move move, int verb) {
  if (move.id < kKinds) return absl::StrCat(kKindVerbs[verb], " ", KindName(static_cast<int>(move.id)));
  return FixedText(move);
}
}  // namespace

// Fixed texts are built once for the ids below the spells'.
std::string MorgenlandState::MoveText(Move move) const {
  static const FixedMoveTexts fixed(kSpellBase, FixedText);
  if (const std::string* text = fixed.Find(move)) return *text;
  const uint32_t id = move.id;
  if (id < kKinds) return TextWithVerb(move, KindVerb(data_.phase));
  if (id >= kSpellBase && id < kMaxMoveId) return SpellMoveText(data_, move);
  return absl::StrCat("unknown move ", id);
}

namespace {
void BuildMoveDetail(Move move, v1::MorgenlandMove* out) {
  const uint32_t id = move.id;
  if (id < kKinds) out->set_kind(static_cast<int>(id));
  else if (id == kPassId) out->set_pass(true);
  else if (id == kAcceptId) out->set_accept(true);
  else if (id >= kSeatBase && id < kSeatBase + kMaxPlayers) out->set_name_seat(static_cast<int>(id - kSeatBase));
  else if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens) {
    out->mutable_place()->set_token((id - kPlaceBase) / 15);
    out->mutable_place()->set_space(static_cast<int>(id - kPlaceBase) % 15);
  } else if (id >= kInvokeBase && id < kInvokeBase + kArtifactTypes) out->set_invoke(static_cast<int>(id - kInvokeBase));
  else if (id >= kDoubleBase && id < kDoubleBase + kTokens) out->set_double_token(id - kDoubleBase);
  else if (id == kCounterId) out->set_counter(true);
  else if (id >= kKeepBase && id < kKeepBase + kSpells) out->set_keep_spell(static_cast<int>(id - kKeepBase));
  else if (id >= kPickArtifactBase && id <= kPickArtifactBase + kMaxStack) out->set_pick_position(id - kPickArtifactBase);
  else if (id >= kSpellBase && id < kMaxMoveId) {
    out->mutable_spell()->set_spell(SpellOf(move));
    out->mutable_spell()->set_target(TargetOf(move));
  }
}
}  // namespace

// Ids below kSpellBase are cached; a spell's id carries its target, 2.1 million ids.
void MorgenlandState::MoveDetail(Move move, google::protobuf::Any* detail) const {
  static const PackedMoveDetails<v1::MorgenlandMove> details(kSpellBase, BuildMoveDetail);
  details.Pack(move, detail);
}

absl::string_view MorgenlandState::EncodedMove(Move move) const {
  static const VariantEncodedMoves encoded(kSpellBase, kKindVerbs.size(), TextWithVerb, BuildMoveDetail);
  return encoded.Find(move, KindVerb(data_.phase));
}

}  // namespace gavel::morgenland
