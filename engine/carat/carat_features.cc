// Learning features for Carat, computed from a seat's view only.
//
// Colours are seen relative to the viewer: relative colour (colour - viewer * colours_per_player)
// mod 4, so relative colour 0 (and 1 with two colours per seat) is always the viewer's own.
#include <algorithm>
#include <bit>

#include "engine/carat/carat.h"
#include "engine/carat/carat_wire.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"

namespace gavel::carat {
namespace {

// Observation layout (kObservationSize floats):
//   players one-hot (3), two colours per seat, hand size 3, tiles placed, supply size (4),
//   per relative colour: the viewer's / another seat's / nobody's (4 x 3),
//   per seat relative to the viewer: present, score, score lead over the viewer, hand size
//   (4 x 4),
//   per space: occupied, carat value, relative colour one-hot per corner (36 x 18),
//   per chip: value, scored, share of its spaces filled, relative carat totals (4), the
//   current leader is the viewer's / another seat's (49 x 9),
//   the viewer's hand as one flag per tile (36).
constexpr int kSpaceFeatures = 2 + kCorners * kColours;
constexpr int kChipFeatures = 3 + kColours + 2;
constexpr int kObservationSize = 3 + 4 + kColours * 3 + kMaxPlayers * 4 + kSpaces * kSpaceFeatures +
                                 kChips * kChipFeatures + kTiles;

// Move layout (kMoveSize floats):
//   carat value, row, column, border space, corner space,
//   chips completed, points the viewer gains, points other seats gain, points nobody gains,
//   points the viewer / others would gain from the touched open chips if they were scored now,
//   touched chips left one tile short (a chance for the next seats), of those led by the viewer,
//   the points the next seat can expect to take by closing the best of those chips, and by
//   closing all of them (see ExpectedSteal), then per tile corner: relative colour one-hot
//   (4), chip value, completes the chip, empty spaces left around the chip, points the
//   viewer / others would gain if it were scored now.
constexpr int kCornerFeatures = kColours + 5;
constexpr int kMoveGlobal = 15;
constexpr int kMoveSize = kMoveGlobal + kCorners * kCornerFeatures;

constexpr float kPointScale = 40.f;

// Who collects a chip's points if it were scored with the diamonds around it now.
struct Award {
  ChipResult result;
  Seat owner = kNoSeat;
};

Award AwardChip(const Data& data, int chip) {
  std::array<Diamond, kCorners> diamonds;
  const int count = ChipDiamonds(data, chip, diamonds);
  Award award;
  award.result = JudgeChip({diamonds.data(), static_cast<size_t>(count)}, data.chip_value[chip]);
  if (award.result.winner != kNoColour) award.owner = ColourOwner(data, award.result.winner);
  return award;
}

class Featurizer {
 public:
  Featurizer(const v1::CaratView& view, const Data& data)
      : view_(view), data_(data), viewer_(view.seat()) {
    uint64_t unseen = kAllTiles & ~data.hands[viewer_];
    for (int space = 0; space < kSpaces; ++space)
      if (data.tile[space] >= 0) unseen &= ~(uint64_t{1} << data.tile[space]);
    for (; unseen != 0; unseen &= unseen - 1) {
      ++unseen_of_value_[TileValue(std::countr_zero(unseen))];
      ++unseen_count_;
    }
  }

  void Observation(std::vector<float>& obs) const {
    obs.assign(kObservationSize, 0.f);
    float* f = obs.data();
    f[data_.players - 2] = 1;
    f[3] = data_.colours_per_player == 2 ? 1.f : 0.f;
    f[4] = data_.hand_size == kMaxHand ? 1.f : 0.f;
    f[5] = static_cast<float>(std::popcount(data_.occupied)) / kSpaces;
    f[6] = static_cast<float>(std::min<uint32_t>(view_.supply_count(), kTiles)) / kTiles;
    f += 7;
    for (int relative = 0; relative < kColours; ++relative, f += 3) {
      const Seat owner = ColourOwner(data_, Absolute(relative));
      f[owner == viewer_ ? 0 : owner == kNoSeat ? 2 : 1] = 1;
    }
    for (int offset = 0; offset < kMaxPlayers; ++offset, f += 4) {
      if (offset >= data_.players) continue;
      const Seat seat = (viewer_ + offset) % data_.players;
      f[0] = 1;
      f[1] = data_.scores[seat] / 100.f;
      f[2] = static_cast<float>(data_.scores[seat] - data_.scores[viewer_]) / 100.f;
      f[3] = static_cast<float>(std::min<uint32_t>(view_.seats(seat).hand_count(), kMaxHand)) /
             kMaxHand;
    }
    for (int space = 0; space < kSpaces; ++space, f += kSpaceFeatures) {
      const int tile = data_.tile[space];
      if (tile < 0) continue;
      f[0] = 1;
      f[1] = static_cast<float>(TileValue(tile)) / kMaxValue;
      for (int corner = 0; corner < kCorners; ++corner)
        f[2 + corner * kColours +
          Relative(CornerColour(TileType(tile), data_.rotation[space], corner))] = 1;
    }
    for (int chip = 0; chip < kChips; ++chip, f += kChipFeatures) {
      const uint64_t spaces = ChipSpaces(chip);
      f[0] = static_cast<float>(data_.chip_value[chip]) / kMaxChipValue;
      f[1] = ((data_.scored >> chip) & 1) ? 1.f : 0.f;
      f[2] = static_cast<float>(std::popcount(spaces & data_.occupied)) /
             static_cast<float>(std::popcount(spaces));
      const Award award = AwardChip(data_, chip);
      for (int colour = 0; colour < kColours; ++colour)
        f[3 + Relative(colour)] = static_cast<float>(award.result.totals[colour]) / 12.f;
      if (award.owner == viewer_) f[7] = 1;
      if (award.owner != kNoSeat && award.owner != viewer_) f[8] = 1;
    }
    for (uint64_t hand = data_.hands[viewer_]; hand != 0; hand &= hand - 1)
      f[std::countr_zero(hand)] = 1;
  }

  void MoveFeatures(Move move, float* f) const {
    if (move.id >= kMoveIds) return;
    const int tile = MoveTile(move), space = MoveSpace(move), rotation = MoveRotation(move);
    Data after = data_;
    after.tile[space] = static_cast<int8_t>(tile);
    after.rotation[space] = static_cast<uint8_t>(rotation);
    after.occupied |= uint64_t{1} << space;
    const int row = SpaceRow(space), column = SpaceColumn(space);
    const bool row_edge = row == 0 || row == kSide - 1,
               column_edge = column == 0 || column == kSide - 1;
    f[0] = static_cast<float>(TileValue(tile)) / kMaxValue;
    f[1] = static_cast<float>(row) / (kSide - 1);
    f[2] = static_cast<float>(column) / (kSide - 1);
    f[3] = row_edge || column_edge ? 1.f : 0.f;
    f[4] = row_edge && column_edge ? 1.f : 0.f;
    for (int corner = 0; corner < kCorners; ++corner) {
      float* c = f + kMoveGlobal + corner * kCornerFeatures;
      const int chip = ChipAt(space, corner);
      const int left = std::popcount(ChipSpaces(chip) & ~after.occupied);
      const Award award = AwardChip(after, chip);
      const float points = static_cast<float>(award.result.points);
      const bool mine = award.owner == viewer_, others = award.owner != kNoSeat && !mine;
      c[Relative(CornerColour(TileType(tile), rotation, corner))] = 1;
      c[kColours] = static_cast<float>(data_.chip_value[chip]) / kMaxChipValue;
      c[kColours + 1] = left == 0 ? 1.f : 0.f;
      c[kColours + 2] = static_cast<float>(left) / 3.f;
      c[kColours + 3] = mine ? points / 20.f : 0.f;
      c[kColours + 4] = others ? points / 20.f : 0.f;
      if (left == 0) {
        f[5] += 0.25f;
        (mine ? f[6] : others ? f[7] : f[8]) += points / kPointScale;
      } else {
        if (mine) f[9] += points / kPointScale;
        if (others) f[10] += points / kPointScale;
        if (left == 1) {
          f[11] += 0.25f;
          if (mine) f[12] += 0.25f;
          const float steal = ExpectedSteal(after, chip) / kPointScale;
          f[13] = std::max(f[13], steal);
          f[14] += steal;
        }
      }
    }
  }

 private:
  // What the next seat can expect to win by closing `chip` (one space left open in `after`)
  // with its own colour on the open corner: any tile can turn its colour there, and its
  // value is drawn from the tiles the viewer cannot see.
  float ExpectedSteal(const Data& after, int chip) const {
    if (unseen_count_ == 0) return 0;
    const Seat next = static_cast<Seat>((viewer_ + 1) % data_.players);
    std::array<Diamond, kCorners> diamonds;
    const int count = ChipDiamonds(after, chip, diamonds);
    float expected = 0;
    for (int value = 1; value <= kMaxValue; ++value) {
      if (unseen_of_value_[value] == 0) continue;
      int best = 0;
      for (int colour = 0; colour < kColours; ++colour) {
        if (ColourOwner(data_, colour) != next) continue;
        diamonds[count] = Diamond{static_cast<uint8_t>(colour), static_cast<uint8_t>(value)};
        const ChipResult result =
            JudgeChip({diamonds.data(), static_cast<size_t>(count + 1)}, data_.chip_value[chip]);
        if (result.winner == colour) best = std::max(best, result.points);
      }
      expected += static_cast<float>(best * unseen_of_value_[value]);
    }
    return expected / static_cast<float>(unseen_count_);
  }

  int Offset() const { return viewer_ * data_.colours_per_player; }
  int Relative(int colour) const { return (colour - Offset() + 2 * kColours) % kColours; }
  int Absolute(int relative) const { return (relative + Offset()) % kColours; }

  const v1::CaratView& view_;
  const Data& data_;
  const Seat viewer_;
  std::array<int, kMaxValue + 1> unseen_of_value_{};  // tiles the viewer cannot see, by value
  int unseen_count_ = 0;
};

}  // namespace

absl::Status FeaturizeCarat(const v1::View& view_proto, std::span<const Move> moves,
                            Features* out) {
  PooledScratch<v1::CaratView> scratch;  // reused: no allocation per decision (its board's spaces)
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(view_proto.view(), "the carat view"));
  const v1::CaratView& view = *scratch;
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodeView(view, &data));
  const Featurizer featurizer(view, data);
  featurizer.Observation(out->observation);
  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  for (size_t i = 0; i < moves.size(); ++i)
    featurizer.MoveFeatures(moves[i], out->moves.data() + i * kMoveSize);
  return absl::OkStatus();
}

}  // namespace gavel::carat
