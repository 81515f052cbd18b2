// Validation of an untrusted decoded state: set-up, board, tile conservation, progress
// and chips, each a check of its own.
#include "engine/carat/carat_wire.h"

namespace gavel::carat {
namespace {

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

}  // namespace

absl::Status Validate(const Data& data) {
  for (auto check : {CheckSetup, CheckBoard, CheckTileConservation, CheckProgress, CheckChips})
    GAVEL_RETURN_IF_ERROR(check(data));
  return absl::OkStatus();
}

}  // namespace gavel::carat
