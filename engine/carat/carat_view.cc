// The view filter (what a seat, or a spectator, may know) and resampling from a view.
#include "engine/carat/carat_wire.h"

#include <bit>
#include <span>

#include "engine/core/dealing_resampler.h"
#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"

namespace gavel::carat {

namespace {

constexpr size_t kTileFieldsBytes = 2 * MessageWriter::ScalarBytes();
constexpr size_t kTileBytes = MessageWriter::MessageBytes(kTileFieldsBytes);

// A tile as an entry of a message field `field`.
void WriteTile(int field, int tile, MessageWriter& out) {
  out.ShortMessage<kTileFieldsBytes>(field, [tile](MessageWriter& fields) {
    fields.Int32(v1::CaratTile::kTypeFieldNumber, TileType(tile) + 1);
    fields.UInt32(v1::CaratTile::kValueFieldNumber, static_cast<uint32_t>(TileValue(tile)));
  });
}

constexpr size_t kSpaceFieldsBytes = kTileBytes + MessageWriter::ScalarBytes() + MessageWriter::PackedBytes(kCorners);

// A board space as an entry of the view's `board`: its tile, rotation and corner colours.
void WriteSpace(const Data& data, int space, MessageWriter& out) {
  using Space = v1::CaratSpace;
  out.ShortMessage<kSpaceFieldsBytes>(v1::CaratView::kBoardFieldNumber, [&](MessageWriter& fields) {
    const int tile = data.tile[space];
    if (tile < 0) return;
    WriteTile(Space::kTileFieldNumber, tile, fields);
    fields.UInt32(Space::kRotationFieldNumber, data.rotation[space]);
    std::array<int32_t, kCorners> corners;
    for (int corner = 0; corner < kCorners; ++corner)
      corners[corner] = ProtoColour(CornerColour(TileType(tile), data.rotation[space], corner));
    fields.Packed(Space::kCornersFieldNumber, corners);
  });
}

constexpr size_t kSeatViewBytes = kTiles * kTileBytes + 2 * MessageWriter::ScalarBytes() + MessageWriter::PackedBytes(kColours);

// A seat as `viewer` sees it, as an entry of the view's `seats`: its hand to itself only.
void WriteSeatView(const Data& data, int seat, Seat viewer, MessageWriter& out) {
  using SeatView = v1::CaratSeatView;
  std::array<uint8_t, kSeatViewBytes> buffer;
  MessageWriter fields(buffer.data());
  if (seat == viewer)
    for (uint64_t tiles = data.hands[seat]; tiles != 0; tiles &= tiles - 1)
      WriteTile(SeatView::kHandFieldNumber, std::countr_zero(tiles), fields);
  fields.UInt32(SeatView::kHandCountFieldNumber, static_cast<uint32_t>(std::popcount(data.hands[seat])));
  fields.Int32(SeatView::kScoreFieldNumber, data.scores[seat]);
  std::array<int32_t, kColours> colours;
  size_t owned = 0;
  for (int colour = 0; colour < kColours; ++colour)
    if (ColourOwner(data, colour) == seat) colours[owned++] = ProtoColour(colour);
  fields.Packed(SeatView::kColoursFieldNumber, std::span(colours.data(), owned));
  out.Message(v1::CaratView::kSeatsFieldNumber, fields);
}

}  // namespace

// Protobuf writes the view's first fields; the board, the chips, the seats and the supply's
// count follow as MessageWriter writes them, in field order: the bytes are protobuf's own.
void CaratState::PackView(Seat viewer, google::protobuf::Any* out) const {
  PooledScratch<v1::CaratView> scratch;
  v1::CaratView& view = *scratch;
  PublicToProto(data_, &view);
  view.set_seat(viewer);
  view.set_to_move(to_move());
  PackAny(view, out);
  std::array<uint8_t, kSpaces * MessageWriter::MessageBytes(kSpaceFieldsBytes) + 2 * MessageWriter::PackedBytes(kChips) +
                          kMaxPlayers * MessageWriter::MessageBytes(kSeatViewBytes) + MessageWriter::ScalarBytes()> buffer;
  MessageWriter fields(buffer.data());
  for (int space = 0; space < kSpaces; ++space) WriteSpace(data_, space, fields);
  std::array<uint8_t, kChips> scored;
  for (int chip = 0; chip < kChips; ++chip) scored[chip] = (data_.scored >> chip) & 1;
  fields.Packed(v1::CaratView::kChipsFieldNumber, data_.chip_value);
  fields.Packed(v1::CaratView::kChipScoredFieldNumber, scored);
  for (Seat seat = 0; seat < data_.players; ++seat) WriteSeatView(data_, seat, viewer, fields);
  fields.UInt32(v1::CaratView::kSupplyCountFieldNumber, static_cast<uint32_t>(std::popcount(data_.supply)));
  out->mutable_value()->append(fields.bytes());
}

absl::Status DecodeView(const v1::CaratView& view, Data* data) {
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, data));
  GAVEL_RETURN_IF_ERROR(BoardFromProto(view.board(), /*is_view=*/true, data));
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= data->players)
    return Invalid("the viewer ", viewer, " is not a seat");
  return TilesFromProto(view.seats(viewer).hand(), kMaxHand, "the viewer's hand",
                        &data->hands[viewer]);
}

absl::StatusOr<std::unique_ptr<Resampler>> CaratGameImpl::MakeResampler(const v1::View& view_proto) const {
  v1::CaratView view;
  Data data;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the carat view"));
  GAVEL_RETURN_IF_ERROR(DecodeView(view, &data));
  const Seat viewer = view.seat();
  uint64_t board = 0;
  for (int8_t tile : data.tile)
    if (tile >= 0) board |= uint64_t{1} << tile;
  // The tiles the viewer cannot place: everything not on the board or in its own hand.
  const uint64_t unseen = kAllTiles & ~board & ~data.hands[viewer];
  int hidden = static_cast<int>(view.supply_count());
  std::vector<std::pair<Seat, uint32_t>> hand_counts;
  for (Seat seat = 0; seat < data.players; ++seat) {
    if (seat == viewer) continue;
    const v1::CaratSeatView& shown = view.seats(seat);
    if (!shown.hand().empty()) return Invalid("the view shows seat ", seat, "'s hidden hand");
    if (shown.hand_count() > kMaxHand)
      return Invalid("seat ", seat, " cannot hold ", shown.hand_count(), " tiles");
    hidden += static_cast<int>(shown.hand_count());
    hand_counts.emplace_back(seat, shown.hand_count());
  }
  if (view.supply_count() > kTiles || hidden != std::popcount(unseen))
    return Invalid("the other hands and the supply hold ", hidden, " tiles, but ",
                   std::popcount(unseen), " tiles are unaccounted for");
  // Deals the other seats' hands uniformly from the unseen tiles; the rest is the supply.
  auto deal = [unseen, hand_counts = std::move(hand_counts)](Data& dealt, Rng& rng) {
    uint64_t left = unseen;
    for (const auto& [seat, count] : hand_counts) {
      for (uint32_t i = 0; i < count; ++i) {
        const uint64_t tile = uint64_t{1} << rng.PickMember(left);
        left &= ~tile;
        dealt.hands[seat] |= tile;
      }
    }
    dealt.supply = left;
  };
  // `data` holds the view's public part and the viewer's hand.
  return std::unique_ptr<Resampler>(std::make_unique<DealingResampler<Data, CaratState>>(
      data, std::move(deal), [](const Data& dealt) { return Validate(dealt); }));
}

absl::StatusOr<std::unique_ptr<State>> CaratGameImpl::Resample(const v1::View& view, uint64_t seed) const {
  GAVEL_ASSIGN_OR_RETURN(auto resampler, MakeResampler(view));
  return resampler->Draw(seed);
}

}  // namespace gavel::carat
