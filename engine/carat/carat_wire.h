#pragma once
// Conversions between Carat's native values and its proto messages, shared by the rules
// (events, move details), the codec and the features; and the codec's internals.
#include <bit>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/carat/carat.h"
#include "engine/core/game.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "gavel/v1/carat.pb.h"

namespace gavel::carat {

inline v1::CaratColour ProtoColour(int colour) {
  return colour == kNoColour ? v1::CARAT_COLOUR_UNSPECIFIED
                             : static_cast<v1::CaratColour>(colour + 1);
}

inline void TileToProto(int tile, v1::CaratTile* out) {
  out->set_type(static_cast<v1::CaratTileType>(TileType(tile) + 1));
  out->set_value(static_cast<uint32_t>(TileValue(tile)));
}

// The tile id of a proto tile, or -1 when its type or value is out of range.
inline int TileFromProto(const v1::CaratTile& tile) {
  const int type = static_cast<int>(tile.type());
  if (type < 1 || type > kTypes || tile.value() < 1 || tile.value() > kMaxValue) return -1;
  return TileId(type - 1, static_cast<int>(tile.value()));
}

// Decodes an unpacked view's public part and the viewer's hand into `data` (ranges checked, no
// invariants: other hands and the supply stay empty).
absl::Status DecodeView(const v1::CaratView& view, Data* data);

// "A5": the tile's type letter and carat value.
inline std::string TileName(int tile) {
  return absl::StrCat(std::string(1, static_cast<char>('A' + TileType(tile))), TileValue(tile));
}


// Internal to engine/carat/: what the game object, the wire codec, the validation and the
// view filter share.

// INVALID_ARGUMENT with the game's prefix: every decoding and validation error.
absl::Status Invalid(const auto&... parts) { return InvalidInput("carat", parts...); }

// An upper bound on a seat's points: every chip's value times the largest multiplier.
inline constexpr int kMaxScore = 145 * 4;

// Reads a list of distinct tiles (a hand or the supply) into a bit set.
absl::Status TilesFromProto(const google::protobuf::RepeatedPtrField<v1::CaratTile>& in, int limit,
                            const PartName& what, uint64_t* out);
void TilesToProto(uint64_t tiles, google::protobuf::RepeatedPtrField<v1::CaratTile>* out);
absl::Status ScoreFromProto(int32_t score, Seat seat, Data* data);
// A format-1 state's board as space messages (the view writes its own, with corner colours).
void BoardToProto(const Data& data, google::protobuf::RepeatedPtrField<v1::CaratSpace>* out);
// A board from space messages (a view, with corner colours; a format-1 state, without).
absl::Status BoardFromProto(const google::protobuf::RepeatedPtrField<v1::CaratSpace>& in, bool is_view,
                            Data* data);

absl::Status ChipFromProto(uint32_t value, bool scored, int chip, Data* data);

// The chips as lists (a view, a state before format 3).
template <typename Proto>
absl::Status ChipsFromLists(const Proto& in, Data* data) {
  if (in.chips_size() != kChips || in.chip_scored_size() != kChips)
    return Invalid("there must be ", kChips, " chip values and scored flags, not ", in.chips_size(),
                   " and ", in.chip_scored_size());
  for (int chip = 0; chip < kChips; ++chip)
    GAVEL_RETURN_IF_ERROR(ChipFromProto(in.chips(chip), in.chip_scored(chip), chip, data));
  return absl::OkStatus();
}
inline absl::Status ChipsFromProto(const v1::CaratView& in, Data* data) { return ChipsFromLists(in, data); }
// A state's chips: format 3's bytes and bits, or lists if made before.
absl::Status ChipsFromProto(const v1::CaratState& in, Data* data);

// The fields a state and a view share: set-up, chips and seat count (the board is read
// apart: a state may carry it in either format).
template <typename Proto>
absl::Status DecodePublic(const Proto& in, Data* data) {
  if (in.players() < 2 || in.players() > kMaxPlayers)
    return Invalid("players must be 2 to 4, not ", in.players());
  data->players = static_cast<uint8_t>(in.players());
  if (in.colours_per_player() != 1 && in.colours_per_player() != 2)
    return Invalid("colours_per_player must be 1 or 2, not ", in.colours_per_player());
  data->colours_per_player = static_cast<uint8_t>(in.colours_per_player());
  if (in.starting_hand_size() != 1 && in.starting_hand_size() != kMaxHand)
    return Invalid("the starting hand size must be 1 or 3, not ", in.starting_hand_size());
  data->hand_size = static_cast<uint8_t>(in.starting_hand_size());
  GAVEL_RETURN_IF_ERROR(ChipsFromProto(in, data));
  if (in.seats_size() != data->players)
    return Invalid("the state lists ", in.seats_size(), " seats for ", data->players, " players");
  for (Seat seat = 0; seat < data->players; ++seat)
    GAVEL_RETURN_IF_ERROR(ScoreFromProto(in.seats(seat).score(), seat, data));
  return absl::OkStatus();
}

// The set-up a state and a view share.
template <typename Proto>
void PublicToProto(const Data& data, Proto* out) {
  out->set_players(data.players);
  out->set_colours_per_player(data.colours_per_player);
  out->set_starting_hand_size(data.hand_size);
}

// The chips as lists (a state before format 3; the view appends them as bytes).
template <typename Proto>
void ChipsToLists(const Data& data, Proto* out) {
  out->mutable_chips()->Reserve(kChips);  // one allocation each, not one per doubling
  out->mutable_chip_scored()->Reserve(kChips);
  for (int chip = 0; chip < kChips; ++chip) {
    out->add_chips(data.chip_value[chip]);
    out->add_chip_scored((data.scored >> chip) & 1);
  }
}

absl::Status FeaturizeCarat(const v1::View& view, std::span<const Move> moves, Features* out);

class CaratGameImpl final : public Game {
 public:
  CaratGameImpl() {
    info_.name = "carat";
    info_.state_type_url = TypeUrl<v1::CaratState>();
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
  absl::StatusOr<std::unique_ptr<Resampler>> MakeResampler(const v1::View& view) const override;
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                         Features* out) const override {
    return FeaturizeCarat(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed, const Options& options,
                                                EventSink* events) const override;
  absl::StatusOr<std::unique_ptr<State>> DecodeState(const google::protobuf::Any& any) const override;
  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override;

 private:
  GameInfo info_;
};

}  // namespace gavel::carat
