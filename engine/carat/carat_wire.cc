// Carat's wire forms: the full state, its decoding, and the moves' decoding.
#include "engine/carat/carat_wire.h"

#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"

namespace gavel::carat {
namespace {

// Adds `tile` to the set `out`; a tile listed twice is refused (both formats' hands and supply).
absl::Status AddTile(int tile, const PartName& what, uint64_t* out) {
  if ((*out >> tile) & 1) return Invalid(what, " lists tile ", TileName(tile), " twice");
  *out |= uint64_t{1} << tile;
  return absl::OkStatus();
}

std::string SpaceName(int space) { return absl::StrCat("space T(", SpaceRow(space), ",", SpaceColumn(space), ")"); }

// Lays `tile` (-1: none) on `space` at `rotation`, both forms' checks.
absl::Status SetSpace(int space, int tile, uint32_t rotation, Data* data) {
  if (tile < 0) {
    if (rotation != 0) return Invalid(SpaceName(space), " is empty but has a rotation");
    return absl::OkStatus();
  }
  if (rotation >= kRotations) return Invalid(SpaceName(space), " has rotation ", rotation, "; it must be 0 to 3");
  data->tile[space] = static_cast<int8_t>(tile);
  data->rotation[space] = static_cast<uint8_t>(rotation);
  data->occupied |= uint64_t{1} << space;
  return absl::OkStatus();
}

// Format 2's board: a byte per space for the tile (0 empty, else 1 + its id) and one for the
// rotation.
absl::Status BoardFromBytes(const std::string& tiles, const std::string& rotations, Data* data) {
  if (tiles.size() != kSpaces || rotations.size() != kSpaces)
    return Invalid("the board lists ", tiles.size(), " tiles and ", rotations.size(), " rotations instead of ",
                   kSpaces, " each");
  data->tile.fill(-1);
  for (int space = 0; space < kSpaces; ++space) {
    const int tile = static_cast<uint8_t>(tiles[space]) - 1;
    if (tile >= kTiles) return Invalid(SpaceName(space), " holds a tile that does not exist");
    GAVEL_RETURN_IF_ERROR(SetSpace(space, tile, static_cast<uint8_t>(rotations[space]), data));
  }
  return absl::OkStatus();
}

// Format 2's hand or supply: a byte per tile id.
absl::Status TilesFromBytes(const std::string& in, int limit, const PartName& what, uint64_t* out) {
  if (in.size() > static_cast<size_t>(limit)) return Invalid(what, " lists ", in.size(), " tiles, more than ", limit);
  for (const char byte : in) {
    const int tile = static_cast<uint8_t>(byte);
    if (tile >= kTiles) return Invalid(what, " holds tile id ", tile, ", which does not exist");
    GAVEL_RETURN_IF_ERROR(AddTile(tile, what, out));
  }
  return absl::OkStatus();
}

void TilesToBytes(uint64_t tiles, std::string* out) { out->assign(SmallNumbers<kTiles>::SetBits(tiles).bytes()); }

// A hand or the supply of a state in either format; both at once is refused.
absl::Status StateTilesFromProto(const google::protobuf::RepeatedPtrField<v1::CaratTile>& messages,
                                 const std::string& bytes, int limit, const PartName& what, uint64_t* out) {
  if (!bytes.empty() && !messages.empty())
    return Invalid(what, " is listed both as messages (format 1) and as bytes (format 2)");
  return bytes.empty() ? TilesFromProto(messages, limit, what, out) : TilesFromBytes(bytes, limit, what, out);
}

// A state's board in either format; both at once is refused.
absl::Status StateBoardFromProto(const v1::CaratState& in, Data* data) {
  if (in.board_tiles().empty() && in.board_rotations().empty())
    return BoardFromProto(in.board(), /*is_view=*/false, data);
  if (!in.board().empty())
    return Invalid("the board is listed both as space messages (format 1) and as bytes (format 2)");
  return BoardFromBytes(in.board_tiles(), in.board_rotations(), data);
}

}  // namespace

absl::Status BoardFromProto(const google::protobuf::RepeatedPtrField<v1::CaratSpace>& in, bool is_view,
                            Data* data) {
  if (in.size() != kSpaces) return Invalid("the board lists ", in.size(), " spaces instead of ", kSpaces);
  data->tile.fill(-1);
  for (int space = 0; space < kSpaces; ++space) {
    const v1::CaratSpace& shown = in[space];
    if (!is_view && shown.corners_size() != 0)
      return Invalid(SpaceName(space), " lists corner colours, which only views carry");
    int tile = -1;
    if (shown.has_tile()) {
      tile = TileFromProto(shown.tile());
      if (tile < 0) return Invalid(SpaceName(space), " holds a tile that does not exist");
    }
    GAVEL_RETURN_IF_ERROR(SetSpace(space, tile, shown.rotation(), data));
  }
  return absl::OkStatus();
}

// Reads a list of distinct tiles (a hand or the supply) into a bit set.
absl::Status TilesFromProto(const google::protobuf::RepeatedPtrField<v1::CaratTile>& in, int limit,
                            const PartName& what, uint64_t* out) {
  if (in.size() > limit) return Invalid(what, " lists ", in.size(), " tiles, more than ", limit);
  for (const v1::CaratTile& proto : in) {
    const int tile = TileFromProto(proto);
    if (tile < 0)
      return Invalid(what, " holds a tile of type ", static_cast<int>(proto.type()), " and value ",
                     proto.value(), ", which does not exist");
    GAVEL_RETURN_IF_ERROR(AddTile(tile, what, out));
  }
  return absl::OkStatus();
}

void TilesToProto(uint64_t tiles, google::protobuf::RepeatedPtrField<v1::CaratTile>* out) {
  out->Reserve(out->size() + std::popcount(tiles));
  for (; tiles != 0; tiles &= tiles - 1) TileToProto(std::countr_zero(tiles), out->Add());
}

absl::Status ScoreFromProto(int32_t score, Seat seat, Data* data) {
  if (score < 0 || score > kMaxScore)
    return Invalid("seat ", seat, "'s score ", score, " is out of range");
  data->scores[seat] = static_cast<int16_t>(score);
  return absl::OkStatus();
}

void BoardToProto(const Data& data, google::protobuf::RepeatedPtrField<v1::CaratSpace>* out) {
  out->Reserve(out->size() + kSpaces);
  for (int space = 0; space < kSpaces; ++space) {
    v1::CaratSpace* shown = out->Add();
    const int tile = data.tile[space];
    if (tile < 0) continue;
    TileToProto(tile, shown->mutable_tile());
    shown->set_rotation(data.rotation[space]);
  }
}

absl::Status ChipFromProto(uint32_t value, bool scored, int chip, Data* data) {
  if (value < 1 || value > kMaxChipValue)
    return Invalid("chip K(", ChipRow(chip), ",", ChipColumn(chip), ") has value ", value, "; chips are worth 1 to 5");
  data->chip_value[chip] = static_cast<uint8_t>(value);
  if (scored) data->scored |= uint64_t{1} << chip;
  return absl::OkStatus();
}

absl::Status ChipsFromProto(const v1::CaratState& in, Data* data) {
  if (in.chip_values().empty()) {
    if (in.scored_chips() != 0) return Invalid("scored chips (format 3) without their values");
    return ChipsFromLists(in, data);
  }
  if (in.chips_size() != 0 || in.chip_scored_size() != 0)
    return Invalid("the chips are listed both as numbers (formats 1 and 2) and as bytes (format 3)");
  if (in.chip_values().size() != kChips)
    return Invalid("there must be ", kChips, " chip values, not ", in.chip_values().size());
  if (in.scored_chips() >> kChips != 0) return Invalid("scored chips name chips that do not exist");
  for (int chip = 0; chip < kChips; ++chip)
    GAVEL_RETURN_IF_ERROR(ChipFromProto(static_cast<uint8_t>(in.chip_values()[chip]),
                                        (in.scored_chips() >> chip) & 1, chip, data));
  return absl::OkStatus();
}

void CaratState::Serialize(v1::GameState* out) const { SerializeFormat(kFormat, out); }

// Format 3 written field by field in field-number order, so the bytes are protobuf's own
// (replays' recorded hashes pin them) at a fraction of its generic writing's instructions.
void CaratState::WriteFormat3(std::string* out) const {
  using Proto = v1::CaratState;
  using SeatState = v1::CaratSeatState;
  using W = MessageWriter;
  constexpr size_t kSeatBytes = W::ScalarBytes() + W::BytesBytes(kMaxHand);
  std::array<uint8_t, 5 * W::ScalarBytes() + kMaxPlayers * W::MessageBytes(kSeatBytes) + 2 * W::BytesBytes(kSpaces) +
                          W::BytesBytes(kTiles) + W::BytesBytes(kChips)> buffer;
  W fields(buffer.data());
  fields.UInt32(Proto::kPlayersFieldNumber, static_cast<uint32_t>(data_.players));
  fields.UInt32(Proto::kColoursPerPlayerFieldNumber, static_cast<uint32_t>(data_.colours_per_player));
  fields.UInt32(Proto::kStartingHandSizeFieldNumber, static_cast<uint32_t>(data_.hand_size));
  for (int seat = 0; seat < data_.players; ++seat) {
    fields.ShortMessage<kSeatBytes>(Proto::kSeatsFieldNumber, [&](W& shown) {
      shown.Int32(SeatState::kScoreFieldNumber, data_.scores[seat]);
      shown.Bytes(SeatState::kHandTilesFieldNumber, SmallNumbers<kTiles>::SetBits(data_.hands[seat]).bytes());
    });
  }
  fields.Fixed64(Proto::kRngFieldNumber, data_.rng);
  std::array<uint8_t, kSpaces> tiles{}, rotations{};
  for (int space = 0; space < kSpaces; ++space) {
    if (data_.tile[space] < 0) continue;
    tiles[space] = static_cast<uint8_t>(data_.tile[space] + 1);
    rotations[space] = data_.rotation[space];
  }
  fields.Bytes(Proto::kBoardTilesFieldNumber, AsBytes(tiles));
  fields.Bytes(Proto::kBoardRotationsFieldNumber, AsBytes(rotations));
  fields.Bytes(Proto::kSupplyTilesFieldNumber, SmallNumbers<kTiles>::SetBits(data_.supply).bytes());
  fields.Bytes(Proto::kChipValuesFieldNumber, AsBytes(data_.chip_value));
  fields.Fixed64(Proto::kScoredChipsFieldNumber, data_.scored);
  out->assign(fields.bytes());
}

void CaratState::SerializeFormat(int version, v1::GameState* out) const {
  out->set_game("carat");
  if (version >= 3) {
    out->mutable_state()->set_type_url(TypeUrl<v1::CaratState>());
    return WriteFormat3(out->mutable_state()->mutable_value());
  }
  PooledScratch<v1::CaratState> scratch;
  v1::CaratState& proto = *scratch;
  PublicToProto(data_, &proto);
  ChipsToLists(data_, &proto);
  const bool bytes = version >= 2;
  if (bytes) {
    std::string& tiles = *proto.mutable_board_tiles();
    std::string& rotations = *proto.mutable_board_rotations();
    tiles.assign(kSpaces, '\0');
    rotations.assign(kSpaces, '\0');
    for (int space = 0; space < kSpaces; ++space) {
      if (data_.tile[space] < 0) continue;
      tiles[space] = static_cast<char>(data_.tile[space] + 1);
      rotations[space] = static_cast<char>(data_.rotation[space]);
    }
  } else {
    BoardToProto(data_, proto.mutable_board());
  }
  for (Seat seat = 0; seat < data_.players; ++seat) {
    auto* shown = proto.add_seats();
    if (bytes) TilesToBytes(data_.hands[seat], shown->mutable_hand_tiles());
    else TilesToProto(data_.hands[seat], shown->mutable_hand());
    shown->set_score(data_.scores[seat]);
  }
  if (bytes) TilesToBytes(data_.supply, proto.mutable_supply_tiles());
  else TilesToProto(data_.supply, proto.mutable_supply());
  proto.set_rng(data_.rng);
  PackAny(proto, out->mutable_state());
}

absl::StatusOr<std::unique_ptr<State>> CaratGameImpl::DecodeState(
    const google::protobuf::Any& any) const {
  PooledScratch<v1::CaratState> scratch;
  const v1::CaratState& in = *scratch;
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(any, "the carat state"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(in, &data));
  GAVEL_RETURN_IF_ERROR(StateBoardFromProto(in, &data));
  for (Seat seat = 0; seat < data.players; ++seat) {
    const v1::CaratSeatState& shown = in.seats(seat);
    GAVEL_RETURN_IF_ERROR(StateTilesFromProto(shown.hand(), shown.hand_tiles(), kMaxHand, PartName(seat, "hand"),
                                              &data.hands[seat]));
  }
  GAVEL_RETURN_IF_ERROR(StateTilesFromProto(in.supply(), in.supply_tiles(), kTiles, "the supply", &data.supply));
  data.rng = in.rng();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<CaratState>(data));
}

absl::StatusOr<Move> CaratGameImpl::DecodeMove(const google::protobuf::Any& detail) const {
  v1::CaratMove in;
  GAVEL_RETURN_IF_ERROR(UnpackAny(detail, &in, "the move detail"));
  if (!in.has_place()) return Invalid("the move names no placement");
  const v1::CaratMove::Place& place = in.place();
  const int tile = TileFromProto(place.tile());
  if (tile < 0) return Invalid("the placed tile does not exist");
  if (place.row() >= kSide || place.column() >= kSide || place.rotation() >= kRotations)
    return Invalid("row ", place.row(), ", column ", place.column(), ", rotation ",
                   place.rotation(), " is out of range (rows and columns 0-5, rotations 0-3)");
  return PlaceMove(tile, static_cast<int>(place.row() * kSide + place.column()),
                   static_cast<int>(place.rotation()));
}

}  // namespace gavel::carat
