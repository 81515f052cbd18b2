// The view filter (what a seat, or a spectator, may know) and resampling from a view.
#include "engine/carat/carat_wire.h"

#include "engine/core/proto_util.h"

namespace gavel::carat {

void CaratState::PackView(Seat viewer, google::protobuf::Any* out) const {
  PooledScratch<v1::CaratView> scratch;  // reused spaces and tiles: no allocation per space
  v1::CaratView& view = *scratch;
  PublicToProto(data_, &view);
  view.set_seat(viewer);
  view.set_to_move(to_move());
  BoardToProto(data_, /*with_corners=*/true, view.mutable_board());
  for (Seat seat = 0; seat < data_.players; ++seat) {
    auto* shown = view.add_seats();
    if (seat == viewer) TilesToProto(data_.hands[seat], shown->mutable_hand());
    shown->set_hand_count(static_cast<uint32_t>(std::popcount(data_.hands[seat])));
    shown->set_score(data_.scores[seat]);
    for (int colour = 0; colour < kColours; ++colour)
      if (ColourOwner(data_, colour) == seat) shown->add_colours(ProtoColour(colour));
  }
  view.set_supply_count(static_cast<uint32_t>(std::popcount(data_.supply)));
  PackAny(view, out);
  // The chips' values (1 to 5, as validated) and scored flags, appended as bytes.
  std::array<uint8_t, kChips> scored;
  for (int chip = 0; chip < kChips; ++chip) scored[chip] = (data_.scored >> chip) & 1;
  AppendSmallNumbers(v1::CaratView::kChipsFieldNumber, data_.chip_value, out->mutable_value());
  AppendSmallNumbers(v1::CaratView::kChipScoredFieldNumber, scored, out->mutable_value());
}

absl::Status DecodeView(const v1::View& view_proto, v1::CaratView* view, Data* data) {
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), view, "the carat view"));
  GAVEL_RETURN_IF_ERROR(DecodePublic(*view, data));
  GAVEL_RETURN_IF_ERROR(BoardFromProto(view->board(), /*is_view=*/true, data));
  const Seat viewer = view->seat();
  if (viewer < 0 || viewer >= data->players)
    return Invalid("the viewer ", viewer, " is not a seat");
  return TilesFromProto(view->seats(viewer).hand(), kMaxHand, "the viewer's hand",
                        &data->hands[viewer]);
}

absl::StatusOr<std::unique_ptr<State>> CaratGameImpl::Resample(const v1::View& view_proto,
                                                               uint64_t seed) const {
  v1::CaratView view;
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodeView(view_proto, &view, &data));
  const Seat viewer = view.seat();
  uint64_t board = 0;
  for (int8_t tile : data.tile)
    if (tile >= 0) board |= uint64_t{1} << tile;
  // The tiles the viewer cannot place: everything not on the board or in its own hand.
  uint64_t unseen = kAllTiles & ~board & ~data.hands[viewer];
  int hidden = static_cast<int>(view.supply_count());
  for (Seat seat = 0; seat < data.players; ++seat) {
    if (seat == viewer) continue;
    const v1::CaratSeatView& shown = view.seats(seat);
    if (!shown.hand().empty()) return Invalid("the view shows seat ", seat, "'s hidden hand");
    if (shown.hand_count() > kMaxHand)
      return Invalid("seat ", seat, " cannot hold ", shown.hand_count(), " tiles");
    hidden += static_cast<int>(shown.hand_count());
  }
  if (view.supply_count() > kTiles || hidden != std::popcount(unseen))
    return Invalid("the other hands and the supply hold ", hidden, " tiles, but ",
                   std::popcount(unseen), " tiles are unaccounted for");
  // Deal the other seats' hands uniformly from the unseen tiles; the rest is the supply.
  Rng rng(Rng::FromSeed(seed));
  for (Seat seat = 0; seat < data.players; ++seat) {
    if (seat == viewer) continue;
    for (uint32_t i = 0; i < view.seats(seat).hand_count(); ++i) {
      const uint64_t tile = uint64_t{1} << rng.PickMember(unseen);
      unseen &= ~tile;
      data.hands[seat] |= tile;
    }
  }
  data.supply = unseen;
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<CaratState>(data));
}

}  // namespace gavel::carat
