// Sultan's wire forms: the full state, its decoding, and the moves' decoding.
#include <span>

#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"
#include "engine/sultan/sultan_wire.h"

namespace gavel::sultan {

void ToProto(const Counts& counts, v1::JewelCounts* out) {
  out->set_white(counts[kWhite]);
  out->set_red(counts[kRed]);
  out->set_yellow(counts[kYellow]);
  out->set_green(counts[kGreen]);
  out->set_blue(counts[kBlue]);
}

absl::Status FromProto(const v1::JewelCounts& in, const PartName& what, Counts* out) {
  const std::array<uint32_t, kColours> counts = {in.white(), in.red(), in.yellow(), in.green(),
                                                 in.blue()};
  for (int colour = 0; colour < kColours; ++colour) {
    if (counts[colour] > static_cast<uint32_t>(kJewelsPerColour[colour]))
      return Invalid(what, " holds ", counts[colour], " jewels of colour ", colour + 1,
                     ", more than exist (", kJewelsPerColour[colour], ")");
    (*out)[colour] = static_cast<uint8_t>(counts[colour]);
  }
  return absl::OkStatus();
}

void ToProto(const CardCounts& cards, google::protobuf::RepeatedField<uint32_t>* out) {
  out->Reserve(out->size() + CardTotal(cards));
  for (int value = 1; value <= kMaxCard; ++value)
    for (int i = 0; i < cards[value]; ++i) out->AddAlreadyReserved(value);
}

absl::Status FromProto(const google::protobuf::RepeatedField<uint32_t>& in, const PartName& what,
                       CardCounts* out) {
  if (in.size() > 2 * kMaxCard) return Invalid(what, " lists ", in.size(), " cards, too many");
  for (uint32_t value : in) {
    if (value < 1 || value > kMaxCard) return Invalid(what, " holds a card of value ", value);
    ++(*out)[value];
  }
  return absl::OkStatus();
}

absl::Status ColourFromProto(int jewel, const PartName& what, int8_t* colour) {
  if (jewel < v1::JEWEL_WHITE || jewel > v1::JEWEL_BLUE) return Invalid(what, " is not a jewel");
  *colour = static_cast<int8_t>(jewel - 1);
  return absl::OkStatus();
}

absl::Status PhaseFromProto(v1::SultanPhase phase, Phase* out) {
  if (phase < v1::SULTAN_PHASE_RETURN || phase > v1::SULTAN_PHASE_FINISHED)
    return Invalid("phase ", static_cast<int>(phase), " is not a phase");
  *out = static_cast<Phase>(phase);
  return absl::OkStatus();
}

namespace {
// Format 2: a byte per seat and card value, the copies in the pile, the hand and among the
// played cards in two bits each (a seat holds at most two copies of a value).
constexpr int kCardBits = 2;
constexpr uint8_t kCardMask = (1 << kCardBits) - 1;

// A seat's 15 bytes (values 1..kMaxCard), written at `out`.
void WriteCardBytes(const SeatData& holder, uint8_t* out) {
  CardCounts bytes;
  for (int value = 0; value <= kMaxCard; ++value)  // one pass over the three arrays
    bytes[value] = static_cast<uint8_t>(holder.pile[value] | holder.hand[value] << kCardBits |
                                        holder.played[value] << 2 * kCardBits);
  std::memcpy(out, bytes.data() + 1, kMaxCard);
}

// Format 2: every seat's cards from the state's `cards` bytes; the seats' lists must be empty.
absl::Status CardsFromBytes(const v1::SultanState& in, Data* data) {
  for (int seat = 0; seat < data->players; ++seat) {
    const v1::SultanSeatState& shown = in.seats(seat);
    if (shown.pile_size() + shown.hand_size() + shown.played_size() != 0)
      return Invalid("seat ", seat, "'s cards are listed both as values (format 1) and as counts (format 2)");
  }
  const absl::string_view bytes = in.cards();
  if (bytes.size() != static_cast<size_t>(data->players) * kMaxCard)
    return Invalid("the cards take ", bytes.size(), " bytes; ", data->players, " players need ",
                   data->players * kMaxCard);
  for (int seat = 0; seat < data->players; ++seat) {
    for (int value = 1; value <= kMaxCard; ++value) {
      const uint8_t byte = static_cast<uint8_t>(bytes[seat * kMaxCard + value - 1]);
      if (byte >> 3 * kCardBits != 0)
        return Invalid("seat ", seat, "'s byte of the cards of value ", value, " has unused bits set");
      SeatData& holder = data->seats[seat];
      holder.pile[value] = byte & kCardMask;
      holder.hand[value] = byte >> kCardBits & kCardMask;
      holder.played[value] = byte >> 2 * kCardBits & kCardMask;
    }
  }
  return absl::OkStatus();  // Validate checks every count against the deck
}

// Format 1: every seat's cards from its lists of values.
absl::Status CardsFromLists(const v1::SultanState& in, Data* data) {
  for (int seat = 0; seat < data->players; ++seat) {
    const v1::SultanSeatState& holder = in.seats(seat);
    SeatData& out = data->seats[seat];
    for (auto [cards, field, what] :
         {std::tuple{&out.pile, &holder.pile(), "pile"}, {&out.hand, &holder.hand(), "hand"},
          {&out.played, &holder.played(), "played cards"}}) {
      GAVEL_RETURN_IF_ERROR(FromProto(*field, PartName(seat, what), cards));
    }
  }
  return absl::OkStatus();
}
}  // namespace

void SultanState::Serialize(v1::GameState* out) const { SerializeFormat(kFormat, out); }

// Format 2 written field by field in field-number order, so the bytes are protobuf's own
// (replays' recorded hashes pin them) at a fraction of its generic writing's instructions.
void SultanState::WriteFormat2(std::string* out) const {
  using Proto = v1::SultanState;
  using W = MessageWriter;
  constexpr size_t kBidBytes = 3 * W::ScalarBytes();
  constexpr size_t kSeatBytes = W::MessageBytes(kJewelCountsBytes);
  const std::span<const Bid> bids(data_.bids.data(), data_.bids_made);
  std::array<uint8_t, 6 * W::ScalarBytes() + 2 * W::MessageBytes(kJewelCountsBytes) +
                          W::PackedBytes(std::tuple_size_v<decltype(data_.cushions)>) +
                          std::tuple_size_v<decltype(data_.bids)> * W::MessageBytes(kBidBytes) +
                          std::tuple_size_v<decltype(data_.seats)> * W::MessageBytes(kSeatBytes) +
                          W::BytesBytes(std::tuple_size_v<decltype(data_.seats)> * kMaxCard)> buffer;
  W fields(buffer.data());
  fields.UInt32(Proto::kPlayersFieldNumber, data_.players);
  fields.Int32(Proto::kPhaseFieldNumber, static_cast<int32_t>(data_.phase));
  fields.UInt32(Proto::kPassFieldNumber, data_.pass);
  fields.UInt32(Proto::kRoundFieldNumber, data_.round);
  fields.Int32(Proto::kStartPlayerFieldNumber, data_.start_player);
  fields.ShortMessage<kJewelCountsBytes>(Proto::kBagFieldNumber, [&](W& bag) { WriteJewelCounts(data_.bag, bag); });
  fields.ShortMessage<kJewelCountsBytes>(Proto::kDrawnFieldNumber, [&](W& drawn) { WriteJewelCounts(data_.drawn, drawn); });
  std::array<uint8_t, std::tuple_size_v<decltype(data_.cushions)>> jewels;
  size_t cushions = 0;
  for (int8_t colour : data_.cushions)
    if (colour >= 0) jewels[cushions++] = static_cast<uint8_t>(colour + 1);  // v1::Jewel
  fields.Packed(Proto::kCushionsFieldNumber, std::span<const uint8_t>(jewels.data(), cushions));
  for (const Bid& bid : bids) {
    fields.ShortMessage<kBidBytes>(Proto::kBidsFieldNumber, [&](W& out) {
      out.Int32(v1::SultanBid::kSeatFieldNumber, bid.seat);
      out.UInt32(v1::SultanBid::kCushionFieldNumber, bid.cushion);
      out.UInt32(v1::SultanBid::kValueFieldNumber, bid.value);
    });
  }
  std::array<uint8_t, std::tuple_size_v<decltype(data_.seats)> * kMaxCard> cards;  // the seats' in turn
  for (int seat = 0; seat < data_.players; ++seat) {
    fields.ShortMessage<kSeatBytes>(Proto::kSeatsFieldNumber, [&](W& shown) {
      shown.ShortMessage<kJewelCountsBytes>(v1::SultanSeatState::kCollectionFieldNumber,
                                       [&](W& collection) { WriteJewelCounts(data_.seats[seat].collection, collection); });
    });
    WriteCardBytes(data_.seats[seat], cards.data() + seat * kMaxCard);
  }
  fields.Fixed64(Proto::kRngFieldNumber, data_.rng);
  fields.Bytes(Proto::kCardsFieldNumber, AsBytes(cards, data_.players * kMaxCard));
  out->assign(fields.bytes());
}

void SultanState::SerializeFormat(int version, v1::GameState* out) const {
  out->set_game("sultan");
  if (version >= 2) {
    out->mutable_state()->set_type_url(TypeUrl<v1::SultanState>());
    return WriteFormat2(out->mutable_state()->mutable_value());
  }
  PooledScratch<v1::SultanState> scratch;
  v1::SultanState& proto = *scratch;
  proto.set_players(data_.players);
  proto.set_phase(static_cast<v1::SultanPhase>(data_.phase));
  proto.set_pass(data_.pass);
  proto.set_round(data_.round);
  proto.set_start_player(data_.start_player);
  ToProto(data_.bag, proto.mutable_bag());
  ToProto(data_.drawn, proto.mutable_drawn());
  for (int8_t colour : data_.cushions)
    if (colour >= 0) proto.add_cushions(static_cast<v1::Jewel>(colour + 1));
  for (int i = 0; i < data_.bids_made; ++i) {
    auto* bid = proto.add_bids();
    bid->set_seat(data_.bids[i].seat);
    bid->set_cushion(data_.bids[i].cushion);
    bid->set_value(data_.bids[i].value);
  }
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& holder = data_.seats[seat];
    auto* seat_proto = proto.add_seats();
    ToProto(holder.pile, seat_proto->mutable_pile());
    ToProto(holder.hand, seat_proto->mutable_hand());
    ToProto(holder.played, seat_proto->mutable_played());
    ToProto(holder.collection, seat_proto->mutable_collection());
  }
  proto.set_rng(data_.rng);
  PackAny(proto, out->mutable_state());
}

absl::StatusOr<std::unique_ptr<State>> SultanGameImpl::DecodeState(
    const google::protobuf::Any& any) const {
  PooledScratch<v1::SultanState> scratch;
  const v1::SultanState& in = *scratch;
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(any, "the sultan state"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(in, &data));
  GAVEL_RETURN_IF_ERROR(in.cards().empty() ? CardsFromLists(in, &data) : CardsFromBytes(in, &data));
  for (int seat = 0; seat < data.players; ++seat) {
    GAVEL_RETURN_IF_ERROR(
        FromProto(in.seats(seat).collection(), PartName(seat, "collection"), &data.seats[seat].collection));
  }
  for (int i = 0; i < data.bids_made; ++i)
    if (data.bids[i].value == 0) return Invalid("bid ", i, " has no card value");
  data.rng = in.rng();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<SultanState>(data));
}

absl::StatusOr<Move> SultanGameImpl::DecodeMove(const google::protobuf::Any& detail) const {
  v1::SultanMove in;
  GAVEL_RETURN_IF_ERROR(UnpackAny(detail, &in, "the move detail"));
  if (in.has_return_jewel()) {
    int8_t colour = 0;
    GAVEL_RETURN_IF_ERROR(ColourFromProto(in.return_jewel().jewel(), "the returned jewel", &colour));
    return ReturnMove(colour);
  }
  if (in.has_bid()) {
    if (in.bid().value() < 1 || in.bid().value() > kMaxCard || in.bid().cushion() > 2)
      return Invalid("bid ", in.bid().value(), " on cushion ", in.bid().cushion(),
                     " is out of range");
    return BidMove(static_cast<int>(in.bid().value()), static_cast<int>(in.bid().cushion()));
  }
  return Invalid("the move names neither a returned jewel nor a bid");
}

}  // namespace gavel::sultan
