// Carat's wire forms: the full state, its decoding, and the moves' decoding.
#include "engine/carat/carat_wire.h"

#include "engine/core/proto_util.h"

namespace gavel::carat {

// Reads a list of distinct tiles (a hand or the supply) into a bit set.
absl::Status TilesFromProto(const google::protobuf::RepeatedPtrField<v1::CaratTile>& in, int limit,
                            const PartName& what, uint64_t* out) {
  if (in.size() > limit) return Invalid(what, " lists ", in.size(), " tiles, more than ", limit);
  for (const v1::CaratTile& proto : in) {
    const int tile = TileFromProto(proto);
    if (tile < 0)
      return Invalid(what, " holds a tile of type ", static_cast<int>(proto.type()), " and value ",
                     proto.value(), ", which does not exist");
    if ((*out >> tile) & 1) return Invalid(what, " lists tile ", TileName(tile), " twice");
    *out |= uint64_t{1} << tile;
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

void BoardToProto(const Data& data, bool with_corners,
                  google::protobuf::RepeatedPtrField<v1::CaratSpace>* out) {
  out->Reserve(out->size() + kSpaces);
  for (int space = 0; space < kSpaces; ++space) {
    v1::CaratSpace* shown = out->Add();
    const int tile = data.tile[space];
    if (tile < 0) continue;
    TileToProto(tile, shown->mutable_tile());
    shown->set_rotation(data.rotation[space]);
    if (!with_corners) continue;
    for (int corner = 0; corner < kCorners; ++corner)
      shown->add_corners(ProtoColour(CornerColour(TileType(tile), data.rotation[space], corner)));
  }
}

void CaratState::Serialize(v1::GameState* out) const {
  PooledScratch<v1::CaratState> scratch;
  v1::CaratState& proto = *scratch;
  PublicToProto(data_, &proto);
  BoardToProto(data_, /*with_corners=*/false, proto.mutable_board());
  for (Seat seat = 0; seat < data_.players; ++seat) {
    auto* shown = proto.add_seats();
    TilesToProto(data_.hands[seat], shown->mutable_hand());
    shown->set_score(data_.scores[seat]);
  }
  TilesToProto(data_.supply, proto.mutable_supply());
  proto.set_rng(data_.rng);
  out->set_game("carat");
  PackAny(proto, out->mutable_state());
}

absl::StatusOr<std::unique_ptr<State>> CaratGameImpl::DecodeState(
    const google::protobuf::Any& any) const {
  PooledScratch<v1::CaratState> scratch;
  const v1::CaratState& in = *scratch;
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(any, "the carat state"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(in, /*is_view=*/false, &data));
  for (Seat seat = 0; seat < data.players; ++seat) {
    GAVEL_RETURN_IF_ERROR(TilesFromProto(in.seats(seat).hand(), kMaxHand, PartName(seat, "hand"), &data.hands[seat]));
  }
  GAVEL_RETURN_IF_ERROR(TilesFromProto(in.supply(), kTiles, "the supply", &data.supply));
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
