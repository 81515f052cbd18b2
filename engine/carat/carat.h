#pragma once
// Carat (docs/rules/carat.md): lay diamond tiles on a 6x6 board; each point chip at the
// tile corners goes to the colour with the highest carat total held by exactly one colour.
#include <array>
#include <cstdint>
#include <span>

#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel::carat {

// Diamond colours in the rules' fixed order; the proto enum is colour + 1.
enum Colour : uint8_t { kRed, kYellow, kBlue, kGreen };
inline constexpr int kColours = 4;
inline constexpr int kNoColour = -1;

// Tile corners, clockwise from the north-west.
enum Corner : uint8_t { kNorthWest, kNorthEast, kSouthEast, kSouthWest };
inline constexpr int kCorners = 4;
inline constexpr int kRotations = 4;

inline constexpr int kSide = 6;                       // tile spaces per row
inline constexpr int kSpaces = kSide * kSide;         // 36
inline constexpr int kChipSide = kSide + 1;           // chip spaces per row
inline constexpr int kChips = kChipSide * kChipSide;  // 49
inline constexpr int kTypes = 6;                      // colour orders A..F
inline constexpr int kMaxValue = 6;                   // carats 1..6
inline constexpr int kTiles = kTypes * kMaxValue;     // 36
inline constexpr int kMaxPlayers = 4;
inline constexpr int kMaxHand = 3;
inline constexpr int kMaxChipValue = 5;
inline constexpr std::array<int, kMaxChipValue + 1> kChipsOfValue = {0, 10, 10, 10, 10, 9};
inline constexpr uint64_t kAllSpaces = (uint64_t{1} << kSpaces) - 1;
inline constexpr uint64_t kAllTiles = (uint64_t{1} << kTiles) - 1;

// Tile id = 6 * type + (value - 1).
inline constexpr int TileType(int tile) { return tile / kMaxValue; }
inline constexpr int TileValue(int tile) { return tile % kMaxValue + 1; }
inline constexpr int TileId(int type, int value) { return type * kMaxValue + value - 1; }

// The colour of a tile type's diamond at `corner` after `rotation` clockwise quarter turns.
int CornerColour(int type, int rotation, int corner);

// Geometry (rules §2). Space = 6 * row + column; chip = 7 * row + column.
inline constexpr int SpaceRow(int space) { return space / kSide; }
inline constexpr int SpaceColumn(int space) { return space % kSide; }
inline constexpr int ChipRow(int chip) { return chip / kChipSide; }
inline constexpr int ChipColumn(int chip) { return chip % kChipSide; }
bool IsInnerSpace(int space);
// The chip a space's corner touches.
int ChipAt(int space, int corner);
// The spaces touching a chip, as a bit set.
uint64_t ChipSpaces(int chip);
// The empty spaces a tile may go to: inner spaces on an empty board, else the empty
// orthogonal neighbours of the occupied ones.
uint64_t PlacementSpaces(uint64_t occupied);

// Move encoding (see carat.proto): id = (tile * 36 + space) * 4 + rotation.
inline constexpr uint32_t kMoveIds = kTiles * kSpaces * kRotations;
inline constexpr Move PlaceMove(int tile, int space, int rotation) {
  return Move{static_cast<uint32_t>((tile * kSpaces + space) * kRotations + rotation)};
}
inline constexpr int MoveTile(Move move) {
  return static_cast<int>(move.id / (kSpaces * kRotations));
}
inline constexpr int MoveSpace(Move move) {
  return static_cast<int>(move.id / kRotations % kSpaces);
}
inline constexpr int MoveRotation(Move move) { return static_cast<int>(move.id % kRotations); }

struct Diamond {
  uint8_t colour = 0;
  uint8_t value = 0;
};

// How one chip scores (rules §6), before colours are mapped to seats.
struct ChipResult {
  std::array<int, kColours> totals{};
  int winner = kNoColour;  // the colour with the highest total held by no other colour
  int multiplier = 0;      // distinct colours among the diamonds
  int points = 0;          // chip value * multiplier
};
ChipResult JudgeChip(std::span<const Diamond> diamonds, int chip_value);

struct Data {
  uint8_t players = 0;
  uint8_t colours_per_player = 1;
  uint8_t hand_size = 1;               // starting hand size
  std::array<int8_t, kSpaces> tile{};  // -1: empty
  std::array<uint8_t, kSpaces> rotation{};
  std::array<uint8_t, kChips> chip_value{};
  uint64_t occupied = 0;                      // bit per space, mirrors `tile`
  uint64_t scored = 0;                        // bit per chip
  uint64_t supply = 0;                        // bit per tile: a set, no order
  std::array<uint64_t, kMaxPlayers> hands{};  // bit per tile
  std::array<int16_t, kMaxPlayers> scores{};
  uint64_t rng = 0;
};

// The seat owning `colour`, or kNoSeat for a non-player colour.
Seat ColourOwner(const Data& data, int colour);
// The diamonds around `chip` on the board (1, 2 or 4 when the chip is enclosed).
int ChipDiamonds(const Data& data, int chip, std::array<Diamond, kCorners>& out);
// Which chips are enclosed and the points each seat has won from them: what the board
// implies for Data::scored and Data::scores (scoring does not depend on placement order).
void ScoringImpliedByBoard(const Data& data, uint64_t* scored,
                           std::array<int16_t, kMaxPlayers>* scores);
// Tiles each seat must hold after `placed` placements (rules §4-§5).
int ExpectedHandCount(const Data& data, int placed, Seat seat);

class CaratState final : public State {
 public:
  explicit CaratState(const Data& data) : data_(data) {}

  const Game& game() const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<CaratState>(*this); }
  int seats() const override { return data_.players; }
  Seat to_move() const override;
  void LegalMoves(std::vector<Move>& out) const override;
  bool IsLegal(Move move) const override;
  void ApplyLegal(Move move, EventSink* events) override;
  Outcome outcome() const override;
  std::string MoveText(Move move) const override;
  void MoveDetail(Move move, google::protobuf::Any* detail) const override;
  absl::string_view EncodedMove(Move move) const override;
  void Serialize(v1::GameState* out) const override;
  int FormatVersion() const override { return kFormat; }
  // Version 2 (carat.proto) carries the board and tiles as bytes, version 1 as messages.
  void SerializeFormat(int version, v1::GameState* out) const override;
  void PackView(Seat seat, google::protobuf::Any* out) const override;

  const Data& data() const { return data_; }
  Data& mutable_data() { return data_; }

  // Lays out the chips and deals the starting hands (rules §4).
  void Setup(EventSink* events);

 private:
  static constexpr int kFormat = 3;
  // The current format's message bytes (carat_wire.cc).
  void WriteFormat3(std::string* out) const;
  // Draws one tile from the supply into `seat`'s hand.
  void DrawTile(Seat seat, Rng& rng, EventSink* events);
  void ScoreChip(int chip, EventSink* events);

  Data data_;
};

// Checks every invariant of a decoded state; the message names the first violation.
absl::Status Validate(const Data& data);

const Game& CaratGame();

}  // namespace gavel::carat
