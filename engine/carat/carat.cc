// Carat's rules: geometry, chip scoring, turn order, legal moves, Apply with its chance
// events (tile draws), and the final ranking.
#include "engine/carat/carat.h"

#include <bit>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/carat/carat_wire.h"
#include "engine/core/encoded_moves.h"
#include "engine/core/move_texts.h"
#include "engine/core/proto_util.h"
#include "engine/core/ranking.h"

namespace gavel::carat {
namespace {

constexpr std::array<char, kColours> kColourLetters = {'R', 'Y', 'B', 'G'};
constexpr std::array<const char*, kColours> kColourNames = {"red", "yellow", "blue", "green"};

// Canonical orientation of each tile type, NW, NE, SE, SW (rules §1).
constexpr std::array<std::array<uint8_t, kCorners>, kTypes> kCanonical = {{
    {kRed, kGreen, kBlue, kYellow},  // A
    {kRed, kGreen, kYellow, kBlue},  // B
    {kRed, kBlue, kGreen, kYellow},  // C
    {kRed, kBlue, kYellow, kGreen},  // D
    {kRed, kYellow, kGreen, kBlue},  // E
    {kRed, kYellow, kBlue, kGreen},  // F
}};

struct Geometry {
  std::array<std::array<uint8_t, kCorners>, kSpaces> chip_at{};
  // For each chip and tile corner: the space whose tile touches the chip with that corner, or -1.
  std::array<std::array<int8_t, kCorners>, kChips> touching{};
  std::array<uint64_t, kChips> chip_spaces{};
  std::array<std::array<std::array<uint8_t, kCorners>, kRotations>, kTypes> colour{};
};

constexpr Geometry MakeGeometry() {
  Geometry g;
  for (auto& corners : g.touching) corners = {-1, -1, -1, -1};
  for (int space = 0; space < kSpaces; ++space) {
    const int r = SpaceRow(space), c = SpaceColumn(space);
    const std::array<int, kCorners> chips = {r * kChipSide + c, r * kChipSide + c + 1,
                                             (r + 1) * kChipSide + c + 1, (r + 1) * kChipSide + c};
    for (int corner = 0; corner < kCorners; ++corner) {
      g.chip_at[space][corner] = static_cast<uint8_t>(chips[corner]);
      g.touching[chips[corner]][corner] = static_cast<int8_t>(space);
      g.chip_spaces[chips[corner]] |= uint64_t{1} << space;
    }
  }
  // One quarter turn clockwise moves each diamond one corner on: (NW,NE,SE,SW) <- (SW,NW,NE,SE).
  for (int type = 0; type < kTypes; ++type)
    for (int rotation = 0; rotation < kRotations; ++rotation)
      for (int corner = 0; corner < kCorners; ++corner)
        g.colour[type][rotation][corner] = kCanonical[type][(corner - rotation + 4) % 4];
  return g;
}

constexpr Geometry kGeometry = MakeGeometry();

constexpr uint64_t ColumnMask(int column) {
  uint64_t mask = 0;
  for (int row = 0; row < kSide; ++row) mask |= uint64_t{1} << (row * kSide + column);
  return mask;
}

constexpr uint64_t InnerMask() {
  uint64_t mask = 0;
  for (int row = 1; row < kSide - 1; ++row)
    for (int column = 1; column < kSide - 1; ++column)
      mask |= uint64_t{1} << (row * kSide + column);
  return mask;
}

constexpr uint64_t kInner = InnerMask();
constexpr uint64_t kNotWestColumn = kAllSpaces & ~ColumnMask(0);
constexpr uint64_t kNotEastColumn = kAllSpaces & ~ColumnMask(kSide - 1);

// "<lead>A5 turned 2 (RBGY) on T(3,4)": a placement in words, built in one allocation (every
// legal move of a turn has its text).
std::string PlacementText(absl::string_view lead, int tile, int rotation, int space) {
  const char type_letter = static_cast<char>('A' + TileType(tile));
  std::array<char, kCorners> letters;
  for (int corner = 0; corner < kCorners; ++corner)
    letters[corner] = kColourLetters[CornerColour(TileType(tile), rotation, corner)];
  return absl::StrCat(lead, absl::string_view(&type_letter, 1), TileValue(tile), " turned ", rotation,
                      " (", absl::string_view(letters.data(), letters.size()), ") on T(", SpaceRow(space),
                      ",", SpaceColumn(space), ")");
}

}  // namespace

int CornerColour(int type, int rotation, int corner) {
  return kGeometry.colour[type][rotation][corner];
}

bool IsInnerSpace(int space) { return (kInner >> space) & 1; }
int ChipAt(int space, int corner) { return kGeometry.chip_at[space][corner]; }
uint64_t ChipSpaces(int chip) { return kGeometry.chip_spaces[chip]; }

uint64_t PlacementSpaces(uint64_t occupied) {
  if (occupied == 0) return kInner;
  const uint64_t neighbours = ((occupied << 1) & kNotWestColumn) |
                              ((occupied >> 1) & kNotEastColumn) | (occupied << kSide) |
                              (occupied >> kSide);
  return neighbours & ~occupied & kAllSpaces;
}

ChipResult JudgeChip(std::span<const Diamond> diamonds, int chip_value) {
  ChipResult result;
  unsigned present = 0;
  for (const Diamond& diamond : diamonds) {
    result.totals[diamond.colour] += diamond.value;
    present |= 1u << diamond.colour;
  }
  result.multiplier = std::popcount(present);
  result.points = chip_value * result.multiplier;
  // The highest total held by exactly one colour, zeros included (rules §6.2).
  for (int colour = 0; colour < kColours; ++colour) {
    bool unique = true;
    for (int other = 0; other < kColours; ++other)
      if (other != colour && result.totals[other] == result.totals[colour]) unique = false;
    if (unique &&
        (result.winner == kNoColour || result.totals[colour] > result.totals[result.winner]))
      result.winner = colour;
  }
  return result;
}

Seat ColourOwner(const Data& data, int colour) {
  if (data.colours_per_player == 2) return colour / 2;  // red+yellow, blue+green
  return colour < data.players ? colour : kNoSeat;
}

int ChipDiamonds(const Data& data, int chip, std::array<Diamond, kCorners>& out) {
  int count = 0;
  for (int corner = 0; corner < kCorners; ++corner) {
    const int space = kGeometry.touching[chip][corner];
    if (space < 0 || data.tile[space] < 0) continue;
    const int tile = data.tile[space];
    out[count++] =
        Diamond{static_cast<uint8_t>(CornerColour(TileType(tile), data.rotation[space], corner)),
                static_cast<uint8_t>(TileValue(tile))};
  }
  return count;
}

void ScoringImpliedByBoard(const Data& data, uint64_t* scored,
                           std::array<int16_t, kMaxPlayers>* scores) {
  *scored = 0;
  *scores = {};
  std::array<Diamond, kCorners> diamonds;
  for (int chip = 0; chip < kChips; ++chip) {
    if ((ChipSpaces(chip) & ~data.occupied) != 0) continue;
    *scored |= uint64_t{1} << chip;
    const int count = ChipDiamonds(data, chip, diamonds);
    const ChipResult result =
        JudgeChip({diamonds.data(), static_cast<size_t>(count)}, data.chip_value[chip]);
    if (result.winner == kNoColour) continue;
    const Seat owner = ColourOwner(data, result.winner);
    if (owner != kNoSeat) (*scores)[owner] = static_cast<int16_t>((*scores)[owner] + result.points);
  }
}

int ExpectedHandCount(const Data& data, int placed, Seat seat) {
  // Placement i is made by seat i % players and followed by a draw while the supply lasts,
  // i.e. for the first 36 - players * hand_size placements.
  const int players = data.players;
  const int with_draw = kTiles - players * data.hand_size;
  auto made_by_seat = [&](int count) { return count / players + (seat < count % players ? 1 : 0); };
  const int drawn = made_by_seat(placed < with_draw ? placed : with_draw);
  return data.hand_size - made_by_seat(placed) + drawn;
}

Seat CaratState::to_move() const {
  if (data_.occupied == kAllSpaces) return kNoSeat;
  // Every seat places in strict rotation (rules §5); a seat with an empty hand is skipped as
  // a safeguard, though Validate's hand counts make that unreachable.
  const int placed = std::popcount(data_.occupied);
  for (int offset = 0; offset < data_.players; ++offset) {
    const Seat seat = (placed + offset) % data_.players;
    if (data_.hands[seat] != 0) return seat;
  }
  return kNoSeat;
}

void CaratState::LegalMoves(std::vector<Move>& out) const {
  out.clear();
  const Seat seat = to_move();
  if (seat == kNoSeat) return;
  const uint64_t spaces = PlacementSpaces(data_.occupied);
  for (uint64_t hand = data_.hands[seat]; hand != 0; hand &= hand - 1) {
    const int tile = std::countr_zero(hand);
    for (uint64_t open = spaces; open != 0; open &= open - 1) {
      const uint32_t base = PlaceMove(tile, std::countr_zero(open), 0).id;
      for (uint32_t rotation = 0; rotation < kRotations; ++rotation)
        out.push_back(Move{base + rotation});
    }
  }
}

bool CaratState::IsLegal(Move move) const {
  if (move.id >= kMoveIds) return false;
  const Seat seat = to_move();
  if (seat == kNoSeat) return false;
  return ((data_.hands[seat] >> MoveTile(move)) & 1) &&
         ((PlacementSpaces(data_.occupied) >> MoveSpace(move)) & 1);
}

void CaratState::ApplyLegal(Move move, EventSink* events) {
  const Seat seat = to_move();
  const int tile = MoveTile(move), space = MoveSpace(move), rotation = MoveRotation(move);
  data_.hands[seat] &= ~(uint64_t{1} << tile);
  data_.tile[space] = static_cast<int8_t>(tile);
  data_.rotation[space] = static_cast<uint8_t>(rotation);
  data_.occupied |= uint64_t{1} << space;
  if (events) {
    EventDraft<v1::CaratEvent> draft;
    v1::CaratEvent& event = *draft;
    auto* placed = event.mutable_tile_placed();
    placed->set_seat(seat);
    TileToProto(tile, placed->mutable_tile());
    placed->set_row(SpaceRow(space));
    placed->set_column(SpaceColumn(space));
    placed->set_rotation(rotation);
    for (int corner = 0; corner < kCorners; ++corner)
      placed->add_corners(ProtoColour(CornerColour(TileType(tile), rotation, corner)));
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", seat, " places ", PlacementText("", tile, rotation, space)));
  }
  for (int corner = 0; corner < kCorners; ++corner) {
    const int chip = ChipAt(space, corner);
    if (!((data_.scored >> chip) & 1) && (ChipSpaces(chip) & ~data_.occupied) == 0)
      ScoreChip(chip, events);
  }
  if (data_.supply != 0) {
    Rng rng(data_.rng);
    DrawTile(seat, rng, events);
    data_.rng = rng.state();
  }
  if (events && finished()) {
    EventDraft<v1::CaratEvent> draft;
    v1::CaratEvent& event = *draft;
    auto* over = event.mutable_game_over();
    const Outcome result = outcome();
    std::vector<std::string> parts;
    for (int s = 0; s < data_.players; ++s) {
      over->add_scores(data_.scores[s]);
      over->add_ranks(result.ranks[s]);
      parts.push_back(
          absl::StrCat("seat ", s, ": ", data_.scores[s], " (rank ", result.ranks[s], ")"));
    }
    events->Emit(kEveryone, event, absl::StrCat("game over; ", absl::StrJoin(parts, "; ")));
  }
}

void CaratState::ScoreChip(int chip, EventSink* events) {
  std::array<Diamond, kCorners> diamonds;
  const int count = ChipDiamonds(data_, chip, diamonds);
  const ChipResult result =
      JudgeChip({diamonds.data(), static_cast<size_t>(count)}, data_.chip_value[chip]);
  const Seat owner = result.winner == kNoColour ? kNoSeat : ColourOwner(data_, result.winner);
  if (owner != kNoSeat)
    data_.scores[owner] = static_cast<int16_t>(data_.scores[owner] + result.points);
  data_.scored |= uint64_t{1} << chip;
  if (!events) return;
  EventDraft<v1::CaratEvent> draft;
  v1::CaratEvent& event = *draft;
  auto* scored = event.mutable_chip_scored();
  scored->set_row(ChipRow(chip));
  scored->set_column(ChipColumn(chip));
  scored->set_value(data_.chip_value[chip]);
  for (int total : result.totals) scored->add_totals(total);
  scored->set_winner(ProtoColour(result.winner));
  scored->set_multiplier(result.multiplier);
  scored->set_points(result.points);
  scored->set_seat(owner);
  // Built in one allocation: a placement scores up to four chips, the last move every one left.
  std::string text;
  text.reserve(112);
  absl::StrAppend(&text, "chip K(", ChipRow(chip), ",", ChipColumn(chip), ") worth ",
                  static_cast<int>(data_.chip_value[chip]));
  if (result.winner == kNoColour) {
    absl::StrAppend(&text, ": every total is tied, nobody wins it");
  } else {
    absl::StrAppend(&text, ": ", kColourNames[result.winner], " wins with ", result.totals[result.winner],
                    " carats, ", result.multiplier, result.multiplier == 1 ? " colour x " : " colours x ",
                    static_cast<int>(data_.chip_value[chip]), " = ", result.points);
    if (owner == kNoSeat) {
      absl::StrAppend(&text, " points for nobody (a non-player colour)");
    } else {
      absl::StrAppend(&text, " points for seat ", owner);
    }
  }
  events->Emit(kEveryone, event, text);
}

void CaratState::DrawTile(Seat seat, Rng& rng, EventSink* events) {
  const int tile = rng.PickMember(data_.supply);
  data_.supply &= ~(uint64_t{1} << tile);
  data_.hands[seat] |= uint64_t{1} << tile;
  if (!events) return;
  EventDraft<v1::CaratEvent> draft;
  v1::CaratEvent& event = *draft;
  auto* drawn = event.mutable_tile_drawn();
  drawn->set_seat(seat);
  drawn->set_supply_count(static_cast<uint32_t>(std::popcount(data_.supply)));
  events->Emit(AllBut(seat), event, absl::StrCat("seat ", seat, " draws a tile"));
  TileToProto(tile, drawn->mutable_tile());
  events->Emit(OnlySeat(seat), event, absl::StrCat("seat ", seat, " draws ", TileName(tile)));
}

void CaratState::Setup(EventSink* events) {
  Rng rng(data_.rng);
  int chip = 0;
  for (int value = 1; value <= kMaxChipValue; ++value)
    for (int i = 0; i < kChipsOfValue[value]; ++i)
      data_.chip_value[chip++] = static_cast<uint8_t>(value);
  rng.Shuffle(data_.chip_value.data(), kChips);
  if (events) {
    EventDraft<v1::CaratEvent> draft;
    v1::CaratEvent& event = *draft;
    for (uint8_t value : data_.chip_value) event.mutable_chips_laid()->add_chips(value);
    events->Emit(kEveryone, event, "the 49 point chips are laid out face up");
  }
  data_.supply = kAllTiles;
  for (Seat seat = 0; seat < data_.players; ++seat)
    for (int i = 0; i < data_.hand_size; ++i) DrawTile(seat, rng, events);
  data_.rng = rng.state();
}

Outcome CaratState::outcome() const {
  const PerSeat<int> keys(data_.scores.begin(), data_.scores.begin() + data_.players);
  return RankedOutcome(PerSeat<double>(keys.begin(), keys.end()), keys, finished());
}

namespace {
std::string PlaceText(Move move) {
  return PlacementText("place ", MoveTile(move), MoveRotation(move), MoveSpace(move));
}
}  // namespace

// Every placement's text depends on its id alone: built once for the 5,184 ids (about 400 KB).
std::string CaratState::MoveText(Move move) const {
  static const FixedMoveTexts texts(kMoveIds, PlaceText);
  if (const std::string* text = texts.Find(move)) return *text;
  return absl::StrCat("unknown move ", move.id);
}

namespace {
void BuildMoveDetail(Move move, v1::CaratMove* out) {
  auto* place = out->mutable_place();
  TileToProto(MoveTile(move) % kTiles, place->mutable_tile());
  place->set_row(SpaceRow(MoveSpace(move)));
  place->set_column(SpaceColumn(MoveSpace(move)));
  place->set_rotation(MoveRotation(move));
}
}  // namespace

void CaratState::MoveDetail(Move move, google::protobuf::Any* detail) const {
  static const PackedMoveDetails<v1::CaratMove> details(kMoveIds, BuildMoveDetail);
  details.Pack(move, detail);
}

absl::string_view CaratState::EncodedMove(Move move) const {
  static const EncodedMoves encoded(kMoveIds, PlaceText, BuildMoveDetail);
  return encoded.Find(move);
}

}  // namespace gavel::carat
