#pragma once
// Internal to engine/moonlight_market/: the conversions between Data and the wire messages
// that the state codec, the view filter and the game object share. Not part of the API.
#include <array>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "engine/core/status.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {

using RepeatedU32 = google::protobuf::RepeatedField<uint32_t>;

// INVALID_ARGUMENT with the game's prefix: every decoding and validation error.
absl::Status Invalid(const auto&... parts) { return InvalidInput("moonlight_market", parts...); }

// Humans and bots form a legal seating (docs/rules/moonlight_market.md §2).
absl::Status CheckSeating(int humans, int bots);

void CardsToProto(CardSet cards, RepeatedU32* out);
absl::Status CardsFromProto(const RepeatedU32& in, const PartName& what, CardSet* out);
absl::Status CardFromProto(uint32_t card, const PartName& what, uint8_t* out);

void RulesToProto(const Data& data, v1::MoonlightRules* out);

// The public part of a seat in a state before format 3.
void PublicSeatToProto(const SeatData& holder, v1::MoonlightSeatState* out);

// The fields a state and a view share (instantiated for MoonlightState and MoonlightView).
template <typename Proto>
absl::Status DecodePublic(const Proto& in, Data* data);

// Game entry points implemented beside the job they belong to.
absl::StatusOr<std::unique_ptr<State>> DecodeMoonlightState(const google::protobuf::Any& any);
absl::StatusOr<Move> DecodeMoonlightMove(const google::protobuf::Any& detail);
absl::StatusOr<std::unique_ptr<State>> ResampleMoonlight(const v1::View& view, uint64_t seed);
absl::StatusOr<std::unique_ptr<Resampler>> MakeMoonlightResampler(const v1::View& view);
absl::Status FeaturizeMoonlight(const v1::View& view, std::span<const Move> moves, Features* out);

}  // namespace gavel::moonlight_market
