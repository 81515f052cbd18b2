#pragma once
// Internal to engine/sultan/: what the game object, the wire codec, the validation and the
// view filter share. Not part of the API (engine/sultan/sultan.h is).
#include <numeric>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"
#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/sultan/sultan.h"
#include "gavel/v1/sultan.pb.h"

namespace gavel::sultan {

// INVALID_ARGUMENT with the game's prefix: every decoding and validation error.
absl::Status Invalid(const auto&... parts) { return InvalidInput("sultan", parts...); }

void ToProto(const Counts& counts, v1::JewelCounts* out);
absl::Status FromProto(const v1::JewelCounts& in, const PartName& what, Counts* out);
void ToProto(const CardCounts& cards, google::protobuf::RepeatedField<uint32_t>* out);
absl::Status FromProto(const google::protobuf::RepeatedField<uint32_t>& in, const PartName& what,
                       CardCounts* out);
// v1::JewelCounts's fields, white to blue (field numbers 1 to 5, the colours' order), for the
// state's and the view's writers.
inline void WriteJewelCounts(const Counts& counts, MessageWriter& out) {
  static_assert(v1::JewelCounts::kWhiteFieldNumber == 1 && v1::JewelCounts::kBlueFieldNumber == kColours);
  for (int colour = 0; colour < kColours; ++colour) out.UInt32(colour + 1, counts[colour]);
}
constexpr size_t kJewelCountsBytes = kColours * MessageWriter::ScalarBytes();
absl::Status ColourFromProto(int jewel, const PartName& what, int8_t* colour);
absl::Status PhaseFromProto(v1::SultanPhase phase, Phase* out);

inline int CardTotal(const CardCounts& cards) { return std::accumulate(cards.begin(), cards.end(), 0); }

// The fields a state and a view share: players, phase, progress, jewels and bids.
template <typename Proto>
absl::Status DecodePublic(const Proto& in, Data* data) {
  if (in.players() < 2 || in.players() > 5) return Invalid("players must be 2 to 5, not ", in.players());
  data->players = static_cast<uint8_t>(in.players());
  GAVEL_RETURN_IF_ERROR(PhaseFromProto(in.phase(), &data->phase));
  if (in.pass() > kPasses || in.round() > 15) return Invalid("pass or round out of range");
  data->pass = static_cast<uint8_t>(in.pass());
  data->round = static_cast<uint8_t>(in.round());
  if (in.start_player() < 0 || in.start_player() >= data->players)
    return Invalid("start player ", in.start_player(), " is not a seat");
  data->start_player = static_cast<int8_t>(in.start_player());
  GAVEL_RETURN_IF_ERROR(FromProto(in.bag(), "the bag", &data->bag));
  GAVEL_RETURN_IF_ERROR(FromProto(in.drawn(), "the drawn jewels", &data->drawn));
  if (in.cushions_size() > 3) return Invalid("there are at most 3 cushions");
  for (int i = 0; i < in.cushions_size(); ++i) {
    GAVEL_RETURN_IF_ERROR(ColourFromProto(in.cushions(i), "a cushion's jewel", &data->cushions[i]));
  }
  if (in.bids_size() > 5) return Invalid("a round has at most 5 bids, not ", in.bids_size());
  data->bids_made = static_cast<uint8_t>(in.bids_size());
  for (int i = 0; i < in.bids_size(); ++i) {
    const v1::SultanBid& bid = in.bids(i);
    if (bid.seat() < 0 || bid.seat() >= data->players || bid.cushion() > 2 ||
        bid.value() > kMaxCard)
      return Invalid("bid ", i, " is out of range (seat ", bid.seat(), ", cushion ", bid.cushion(),
                     ", value ", bid.value(), ")");
    data->bids[i] = Bid{static_cast<int8_t>(bid.seat()), static_cast<uint8_t>(bid.cushion()),
                        static_cast<uint8_t>(bid.value())};
  }
  if (in.seats_size() != data->players)
    return Invalid("the state lists ", in.seats_size(), " seats for ", data->players, " players");
  return absl::OkStatus();
}

absl::Status FeaturizeSultan(const v1::View& view, std::span<const Move> moves, Features* out);

class SultanGameImpl final : public Game {
 public:
  SultanGameImpl() {
    info_.name = "sultan";
    info_.state_type_url = TypeUrl<v1::SultanState>();
    info_.display_name = "Sultan";
    info_.min_players = 2;
    info_.max_players = 5;
  }
  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view,
                                                  uint64_t seed) const override;
  absl::StatusOr<std::unique_ptr<Resampler>> MakeResampler(const v1::View& view) const override;
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                         Features* out) const override {
    return FeaturizeSultan(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed, const Options& options,
                                                EventSink* events) const override;
  absl::StatusOr<std::unique_ptr<State>> DecodeState(const google::protobuf::Any& any) const override;
  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override;

 private:
  GameInfo info_;
};

}  // namespace gavel::sultan
