// Carat's wire forms: full state, validation of untrusted states, the view filter,
// resampling from a view, and move decoding.
#include <bit>

#include "absl/strings/str_cat.h"
#include "engine/carat/carat.h"
#include "engine/core/status.h"
#include "engine/carat/carat_wire.h"
#include "engine/core/proto_util.h"
#include "engine/core/registry.h"

namespace gavel::carat {

absl::Status FeaturizeCarat(const v1::View& view, std::span<const Move> moves, Features* out);

namespace {

absl::Status Invalid(const auto&... parts) { return InvalidInput("carat", parts...); }

// An upper bound on a seat's points: every chip's value times the largest multiplier.
constexpr int kMaxScore = 145 * 4;

// Reads a list of distinct tiles (a hand or the supply) into a bit set.
absl::Status TilesFromProto(const google::protobuf::RepeatedPtrField<v1::CaratTile>& in, int limit,
                            absl::string_view what, uint64_t* out) {
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
  for (; tiles != 0; tiles &= tiles - 1) TileToProto(std::countr_zero(tiles), out->Add());
}

absl::Status ScoreFromProto(int32_t score, Seat seat, Data* data) {
  if (score < 0 || score > kMaxScore)
    return Invalid("seat ", seat, "'s score ", score, " is out of range");
  data->scores[seat] = static_cast<int16_t>(score);
  return absl::OkStatus();
}

// The fields a state and a view share: set-up, board, chips and seat count.
template <typename Proto>
absl::Status DecodePublic(const Proto& in, bool is_view, Data* data) {
  if (in.players() < 2 || in.players() > kMaxPlayers)
    return Invalid("players must be 2 to 4, not ", in.players());
  data->players = static_cast<uint8_t>(in.players());
  if (in.colours_per_player() != 1 && in.colours_per_player() != 2)
    return Invalid("colours_per_player must be 1 or 2, not ", in.colours_per_player());
  data->colours_per_player = static_cast<uint8_t>(in.colours_per_player());
  if (in.starting_hand_size() != 1 && in.starting_hand_size() != kMaxHand)
    return Invalid("the starting hand size must be 1 or 3, not ", in.starting_hand_size());
  data->hand_size = static_cast<uint8_t>(in.starting_hand_size());
  if (in.board_size() != kSpaces)
    return Invalid("the board lists ", in.board_size(), " spaces instead of ", kSpaces);
  data->tile.fill(-1);
  for (int space = 0; space < kSpaces; ++space) {
    const v1::CaratSpace& shown = in.board(space);
    auto where = [space] {
      return absl::StrCat("space T(", SpaceRow(space), ",", SpaceColumn(space), ")");
    };
    if (!is_view && shown.corners_size() != 0)
      return Invalid(where(), " lists corner colours, which only views carry");
    if (!shown.has_tile()) {
      if (shown.rotation() != 0) return Invalid(where(), " is empty but has a rotation");
      continue;
    }
    const int tile = TileFromProto(shown.tile());
    if (tile < 0) return Invalid(where(), " holds a tile that does not exist");
    if (shown.rotation() >= kRotations)
      return Invalid(where(), " has rotation ", shown.rotation(), "; it must be 0 to 3");
    data->tile[space] = static_cast<int8_t>(tile);
    data->rotation[space] = static_cast<uint8_t>(shown.rotation());
    data->occupied |= uint64_t{1} << space;
  }
  if (in.chips_size() != kChips || in.chip_scored_size() != kChips)
    return Invalid("there must be ", kChips, " chip values and scored flags, not ", in.chips_size(),
                   " and ", in.chip_scored_size());
  for (int chip = 0; chip < kChips; ++chip) {
    if (in.chips(chip) < 1 || in.chips(chip) > kMaxChipValue)
      return Invalid("chip K(", ChipRow(chip), ",", ChipColumn(chip), ") has value ",
                     in.chips(chip), "; chips are worth 1 to 5");
    data->chip_value[chip] = static_cast<uint8_t>(in.chips(chip));
    if (in.chip_scored(chip)) data->scored |= uint64_t{1} << chip;
  }
  if (in.seats_size() != data->players)
    return Invalid("the state lists ", in.seats_size(), " seats for ", data->players, " players");
  for (Seat seat = 0; seat < data->players; ++seat)
    GAVEL_RETURN_IF_ERROR(ScoreFromProto(in.seats(seat).score(), seat, data));
  return absl::OkStatus();
}

// The occupied spaces reachable from the lowest occupied one: the whole set iff connected.
uint64_t ConnectedPart(uint64_t occupied) {
  uint64_t reached = occupied & (~occupied + 1);
  for (;;) {
    const uint64_t grown = (reached | (PlacementSpaces(reached) & occupied));
    if (grown == reached) return reached;
    reached = grown;
  }
}

absl::Status CheckSetup(const Data& data) {
  if (data.players < 2 || data.players > kMaxPlayers)
    return Invalid("players must be 2 to 4, not ", static_cast<int>(data.players));
  if (data.colours_per_player == 2 ? data.players != 2 : data.colours_per_player != 1)
    return Invalid("colours_per_player=", static_cast<int>(data.colours_per_player),
                   " is not possible with ", static_cast<int>(data.players), " players");
  if (data.hand_size != 1 && data.hand_size != kMaxHand)
    return Invalid("the starting hand size must be 1 or 3, not ", static_cast<int>(data.hand_size));
  return absl::OkStatus();
}

absl::Status CheckBoard(const Data& data) {
  uint64_t occupied = 0;
  for (int space = 0; space < kSpaces; ++space) {
    if (data.tile[space] < -1 || data.tile[space] >= kTiles || data.rotation[space] >= kRotations ||
        (data.tile[space] < 0 && data.rotation[space] != 0))
      return Invalid("space T(", SpaceRow(space), ",", SpaceColumn(space), ") is malformed");
    if (data.tile[space] >= 0) occupied |= uint64_t{1} << space;
  }
  if (occupied != data.occupied) return Invalid("the occupied-space set does not match the board");
  // The first tile went to an inner space and every later one next to a laid tile.
  if (occupied != 0 && (occupied & PlacementSpaces(0)) == 0)
    return Invalid("no tile lies on an inner space, so the first tile cannot have been laid");
  if (ConnectedPart(occupied) != occupied)
    return Invalid("the laid tiles are not orthogonally connected");
  return absl::OkStatus();
}

// Every tile is exactly once on the board, in a hand or in the supply.
absl::Status CheckTileConservation(const Data& data) {
  uint64_t seen = 0;
  // `where` names the tile's place, built only for the message.
  auto take = [&](int tile, auto where) -> absl::Status {
    if ((seen >> tile) & 1)
      return Invalid("tile ", TileName(tile), " is counted twice (again ", where(), ")");
    seen |= uint64_t{1} << tile;
    return absl::OkStatus();
  };
  for (int space = 0; space < kSpaces; ++space) {
    if (data.tile[space] < 0) continue;
    auto where = [space] {
      return absl::StrCat("on T(", SpaceRow(space), ",", SpaceColumn(space), ")");
    };
    GAVEL_RETURN_IF_ERROR(take(data.tile[space], where));
  }
  for (Seat seat = 0; seat < kMaxPlayers; ++seat) {
    if (seat >= data.players && data.hands[seat] != 0)
      return Invalid("seat ", seat, " does not exist but holds tiles");
    if ((data.hands[seat] & ~kAllTiles) != 0)
      return Invalid("seat ", seat, "'s hand holds a tile that does not exist");
    for (uint64_t hand = data.hands[seat]; hand != 0; hand &= hand - 1)
      GAVEL_RETURN_IF_ERROR(
          take(std::countr_zero(hand), [seat] { return absl::StrCat("in seat ", seat, "'s hand"); }));
  }
  if ((data.supply & ~kAllTiles) != 0)
    return Invalid("the supply holds a tile that does not exist");
  for (uint64_t supply = data.supply; supply != 0; supply &= supply - 1)
    GAVEL_RETURN_IF_ERROR(take(std::countr_zero(supply), [] { return "in the supply"; }));
  if (seen != kAllTiles)
    return Invalid("tile ", TileName(std::countr_zero(kAllTiles & ~seen)),
                   " is missing: it is neither on the board, in a hand nor in the supply");
  return absl::OkStatus();
}

// Hand and supply sizes follow from the number of placements (rules §4-§5).
absl::Status CheckProgress(const Data& data) {
  const int placed = std::popcount(data.occupied);
  const int with_draw = kTiles - data.players * data.hand_size;
  const int supply = placed < with_draw ? with_draw - placed : 0;
  if (std::popcount(data.supply) != supply)
    return Invalid("after ", placed, " placements the supply must hold ", supply, " tiles, not ",
                   std::popcount(data.supply));
  for (Seat seat = 0; seat < data.players; ++seat) {
    const int expected = ExpectedHandCount(data, placed, seat);
    if (std::popcount(data.hands[seat]) != expected)
      return Invalid("after ", placed, " placements seat ", seat, " must hold ", expected,
                     " tiles, not ", std::popcount(data.hands[seat]));
  }
  return absl::OkStatus();
}

absl::Status CheckChips(const Data& data) {
  std::array<int, kMaxChipValue + 1> counts{};
  for (uint8_t value : data.chip_value) {
    if (value < 1 || value > kMaxChipValue)
      return Invalid("a chip has value ", static_cast<int>(value));
    ++counts[value];
  }
  for (int value = 1; value <= kMaxChipValue; ++value)
    if (counts[value] != kChipsOfValue[value])
      return Invalid("there are ", counts[value], " chips of value ", value, " instead of ",
                     kChipsOfValue[value]);
  uint64_t scored = 0;
  std::array<int16_t, kMaxPlayers> scores{};
  ScoringImpliedByBoard(data, &scored, &scores);
  if (scored != data.scored) {
    const int chip = std::countr_zero(scored ^ data.scored);
    return Invalid("chip K(", ChipRow(chip), ",", ChipColumn(chip), ") is marked ",
                   ((data.scored >> chip) & 1) ? "scored, but it is not enclosed"
                                               : "unscored, but it is enclosed");
  }
  for (Seat seat = 0; seat < kMaxPlayers; ++seat)
    if (scores[seat] != data.scores[seat])
      return Invalid("seat ", seat, "'s score is ", data.scores[seat],
                     ", but the scored chips give it ", scores[seat]);
  return absl::OkStatus();
}

class CaratGameImpl final : public Game {
 public:
  CaratGameImpl() {
    info_.name = "carat";
    info_.display_name = "Carat";
    info_.min_players = 2;
    info_.max_players = kMaxPlayers;
    info_.options = {
        OptionSpec{"colours_per_player",
                   "diamond colours each seat owns; 2 (seat 0 red+yellow, seat 1 blue+green) "
                   "only with 2 players",
                   {"1", "2"},
                   0,
                   0,
                   "1"},
        OptionSpec{
            "hand_size", "tiles each seat holds; 3 is the complex game", {"1", "3"}, 0, 0, "1"},
    };
    info_.players_note =
        "seat 0 red, 1 yellow, 2 blue, 3 green; colours no seat owns still compete for chips";
  }
  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view,
                                                  uint64_t seed) const override;
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                         Features* out) const override {
    return FeaturizeCarat(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed, const Options& options,
                                                EventSink* events) const override {
    Data data;
    data.players = static_cast<uint8_t>(players);
    data.colours_per_player = options.Is("colours_per_player", "2") ? 2 : 1;
    data.hand_size = options.Is("hand_size", "3") ? kMaxHand : 1;
    if (data.colours_per_player == 2 && players != 2)
      return Invalid("colours_per_player=2 needs exactly 2 players, not ", players);
    data.tile.fill(-1);
    data.rng = Rng::FromSeed(seed);
    auto state = std::make_unique<CaratState>(data);
    state->Setup(events);
    return state;
  }

  absl::StatusOr<std::unique_ptr<State>> DecodeState(
      const google::protobuf::Any& any) const override {
    Scratch<v1::CaratState> scratch;  // arena-backed: no allocation per repeated field
    v1::CaratState& in = *scratch;
    GAVEL_RETURN_IF_ERROR(UnpackAny(any, &in, "the carat state"));
    Data data;
    GAVEL_RETURN_IF_ERROR(DecodePublic(in, /*is_view=*/false, &data));
    for (Seat seat = 0; seat < data.players; ++seat) {
      GAVEL_RETURN_IF_ERROR(TilesFromProto(in.seats(seat).hand(), kMaxHand, absl::StrCat("seat ", seat, "'s hand"), &data.hands[seat]));
    }
    GAVEL_RETURN_IF_ERROR(TilesFromProto(in.supply(), kTiles, "the supply", &data.supply));
    data.rng = in.rng();
    GAVEL_RETURN_IF_ERROR(Validate(data));
    return std::unique_ptr<State>(std::make_unique<CaratState>(data));
  }

  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override {
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

 private:
  GameInfo info_;
};

void BoardToProto(const Data& data, bool with_corners,
                  google::protobuf::RepeatedPtrField<v1::CaratSpace>* out) {
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

template <typename Proto>
void PublicToProto(const Data& data, Proto* out) {
  out->set_players(data.players);
  out->set_colours_per_player(data.colours_per_player);
  out->set_starting_hand_size(data.hand_size);
  for (int chip = 0; chip < kChips; ++chip) {
    out->add_chips(data.chip_value[chip]);
    out->add_chip_scored((data.scored >> chip) & 1);
  }
}

}  // namespace

absl::Status Validate(const Data& data) {
  for (auto check : {CheckSetup, CheckBoard, CheckTileConservation, CheckProgress, CheckChips})
    GAVEL_RETURN_IF_ERROR(check(data));
  return absl::OkStatus();
}

void CaratState::Serialize(v1::GameState* out) const {
  Scratch<v1::CaratState> scratch;
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
  out->mutable_state()->PackFrom(proto);
}

void CaratState::PackView(Seat viewer, google::protobuf::Any* out) const {
  v1::CaratView view;
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
  out->PackFrom(view);
}

absl::Status DecodeView(const v1::View& view_proto, v1::CaratView* view, Data* data) {
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), view, "the carat view"));
  GAVEL_RETURN_IF_ERROR(DecodePublic(*view, /*is_view=*/true, data));
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

const Game& CaratGame() {
  static const CaratGameImpl game;
  return game;
}

const Game& CaratState::game() const { return CaratGame(); }

}  // namespace gavel::carat

GAVEL_REGISTER_GAME(carat, carat::CaratGame)
