// Moonlight Market's view filter (PackView, wrapped by the core's State::Observe) and
// resampling: a full state consistent with a view, hidden cards re-dealt.
#include <algorithm>
#include <bit>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/moonlight_market/moonlight_market_wire.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {
namespace {

// The cards of a set in ascending order, in `buffer`.
std::span<const uint8_t> CardNumbers(CardSet cards, std::array<uint8_t, kCards>& buffer) {
  size_t count = 0;
  for (int card = 1; card <= kCards; ++card)
    if (cards & CardBit(card)) buffer[count++] = static_cast<uint8_t>(card);
  return {buffer.data(), count};
}

constexpr size_t kColumnTiles = std::tuple_size_v<Data::Column>;
constexpr size_t kCushionBytes = kColumns * MessageWriter::NumberListBytes(kColumnTiles) + 2 * MessageWriter::ScalarBytes();

// A cushion as an entry of the view's `cushions`: its columns' tiles, top first, and its bid.
void WriteCushion(const Data& data, int cushion, MessageWriter& out) {
  using Cushion = v1::MoonlightCushion;
  std::array<uint8_t, kCushionBytes> buffer;
  MessageWriter fields(buffer.data());
  for (const Data::Column& column : data.slots[cushion]) {
    std::array<uint8_t, kColumnTiles> tiles;
    const auto tiles_end = std::copy_if(column.begin(), column.end(), tiles.begin(), [](uint8_t tile) { return tile != kNoTile; });
    fields.NumberList(Cushion::kColumnsFieldNumber, std::span(tiles.begin(), tiles_end));
  }
  fields.Int32(Cushion::kBidSeatFieldNumber, data.bids[cushion].seat);
  fields.UInt32(Cushion::kBidCardFieldNumber, data.bids[cushion].card);
  out.Message(v1::MoonlightView::kCushionsFieldNumber, fields);
}

constexpr size_t kSeatViewBytes = 10 * MessageWriter::ScalarBytes() + MessageWriter::BytesBytes(kLongestBotName) +
                                  3 * MessageWriter::PackedBytes(kCards) + kColours * MessageWriter::NumberListBytes(kChainLimit) +
                                  MessageWriter::PackedBytes(kColumns) + MessageWriter::PackedBytes(kColours);

// One seat as `viewer` sees it, as an entry of the view's `seats`: a bot's next card and a
// human's hand and cards under the pile only to their owner, counts to everybody.
void WriteSeatView(const Data& data, int seat, Seat viewer, MessageWriter& out) {
  using SeatView = v1::MoonlightSeatView;
  const SeatData& holder = data.seats[seat];
  const bool bot = data.IsBot(seat);
  const bool own = seat == viewer;
  std::array<uint8_t, kCards> cards;
  std::array<uint8_t, kSeatViewBytes> buffer;
  MessageWriter fields(buffer.data());
  fields.Bool(SeatView::kAutomatonFieldNumber, bot);
  fields.Bytes(SeatView::kNameFieldNumber, BotName(data, seat));
  if (!bot) {
    if (own) fields.Packed(SeatView::kHandFieldNumber, CardNumbers(holder.hand, cards));
    fields.UInt32(SeatView::kHandCountFieldNumber, CardCount(holder.hand));
  }
  fields.UInt32(SeatView::kPileCountFieldNumber, CardCount(holder.pile));
  if (!bot) {
    if (own) fields.Packed(SeatView::kUnderFieldNumber, CardNumbers(holder.under, cards));
    fields.UInt32(SeatView::kUnderCountFieldNumber, CardCount(holder.under));
  } else {
    fields.Bool(SeatView::kHasNextCardFieldNumber, holder.hand != 0);
    if (own && holder.hand) fields.UInt32(SeatView::kNextCardFieldNumber, std::countr_zero(static_cast<unsigned>(holder.hand)));
  }
  fields.Packed(SeatView::kDiscardFieldNumber, CardNumbers(holder.discard, cards));
  fields.UInt32(SeatView::kDisplacedFieldNumber, holder.displaced);
  fields.UInt32(SeatView::kSealsFieldNumber, holder.seals);
  fields.Int32(SeatView::kPrestigeFieldNumber, holder.prestige);
  fields.Int32(SeatView::kTakenCushionFieldNumber, holder.taken);
  std::array<int, kColours> values;
  for (int colour = 0; colour < kColours; ++colour) {
    fields.NumberList(SeatView::kChainsFieldNumber, Tiles(holder.chains[colour]));
    values[colour] = ChainValue(Tiles(holder.chains[colour]));
  }
  fields.Packed(SeatView::kHeldFieldNumber, std::span(holder.held.data(), holder.held_count));
  fields.Packed(SeatView::kChainValuesFieldNumber, values);
  out.Message(v1::MoonlightView::kSeatsFieldNumber, fields);
}

// The supply's and the box's counts, the cushions and the seats, written after the rest of the
// view, in field order: the view's bytes are protobuf's own. (The 156 counts were a tenth of
// the combined call when protobuf sized and wrote them one by one.)
void AppendListsAndSeats(const Data& data, Seat viewer, std::string* out) {
  std::array<uint8_t, 2 * MessageWriter::PackedBytes(kTileKinds) +
                          kMaxParticipants * MessageWriter::MessageBytes(kCushionBytes + kSeatViewBytes)> buffer;
  MessageWriter fields(buffer.data());
  fields.Packed(v1::MoonlightView::kSupplyFieldNumber, data.supply);
  fields.Packed(v1::MoonlightView::kBoxFieldNumber, data.box);
  for (int cushion = 0; cushion < data.participants(); ++cushion) WriteCushion(data, cushion, fields);
  for (int seat = 0; seat < data.participants(); ++seat) WriteSeatView(data, seat, viewer, fields);
  out->append(fields.bytes());
}

// The cards of one seat that no public field shows (hand, pile, cards under it, a bot's
// next card), from which resampling deals.
class UnseenCards {
 public:
  UnseenCards(const Data& data, int seat) : seat_(seat) {
    const SeatData& holder = data.seats[seat];
    unseen_ = static_cast<CardSet>(kAllCards & ~holder.discard);
    if (holder.displaced) unseen_ = static_cast<CardSet>(unseen_ & ~CardBit(holder.displaced));
    for (int cushion = 0; cushion < data.participants(); ++cushion)
      if (data.bids[cushion].seat == seat && data.bids[cushion].card)
        unseen_ = static_cast<CardSet>(unseen_ & ~CardBit(data.bids[cushion].card));
  }

  // Draws `count` of them at random into `to`.
  absl::Status Deal(CardSet& to, uint32_t count, Rng& rng) {
    if (count > static_cast<uint32_t>(CardCount(unseen_)))
      return Invalid("seat ", seat_, "'s card counts do not match its unseen cards");
    for (uint32_t i = 0; i < count; ++i) to |= CardBit(DrawCard(unseen_, rng));
    return absl::OkStatus();
  }

  // Moves the cards the view names into `to`.
  absl::Status TakeKnown(CardSet known, CardSet& to) {
    if ((known & unseen_) != known) return Invalid("seat ", seat_, "'s cards contradict the public cards");
    unseen_ = static_cast<CardSet>(unseen_ & ~known);
    to = known;
    return absl::OkStatus();
  }

  CardSet rest() const { return unseen_; }
  int seat() const { return seat_; }

 private:
  int seat_;
  CardSet unseen_ = 0;
};

// A bot's face-down card: known to the viewer when it is the bot, else re-dealt.
absl::Status ResampleBotCard(const v1::MoonlightSeatView& shown, bool is_viewer,
                             UnseenCards& unseen, SeatData& holder, Rng& rng) {
  if (is_viewer && shown.next_card() != 0) {
    uint8_t next = 0;
    GAVEL_RETURN_IF_ERROR(CardFromProto(shown.next_card(), PartName(unseen.seat(), "next card"), &next));
    return unseen.TakeKnown(CardBit(next), holder.hand);
  }
  if (shown.has_next_card()) return unseen.Deal(holder.hand, 1, rng);
  return absl::OkStatus();
}

// A human's hand and cards under the pile: the viewer's own as shown, others re-dealt.
absl::Status ResampleHumanCards(const v1::MoonlightSeatView& shown, bool is_viewer,
                                UnseenCards& unseen, SeatData& holder, Rng& rng) {
  if (!is_viewer) {
    GAVEL_RETURN_IF_ERROR(unseen.Deal(holder.hand, shown.hand_count(), rng));
    return unseen.Deal(holder.under, shown.under_count(), rng);
  }
  CardSet hand = 0, under = 0;
  GAVEL_RETURN_IF_ERROR(CardsFromProto(shown.hand(), PartName(unseen.seat(), "hand"), &hand));
  GAVEL_RETURN_IF_ERROR(
      CardsFromProto(shown.under(), PartName(unseen.seat(), "cards under the pile"), &under));
  GAVEL_RETURN_IF_ERROR(unseen.TakeKnown(hand, holder.hand));
  return unseen.TakeKnown(under, holder.under);
}

// Fills one seat's hidden cards; what is left unseen is its pile.
absl::Status ResampleSeat(const v1::MoonlightView& view, int seat, Data& data, Rng& rng) {
  const v1::MoonlightSeatView& shown = view.seats(seat);
  SeatData& holder = data.seats[seat];
  UnseenCards unseen(data, seat);
  const bool is_viewer = seat == view.seat();
  GAVEL_RETURN_IF_ERROR(data.IsBot(seat)
                            ? ResampleBotCard(shown, is_viewer, unseen, holder, rng)
                            : ResampleHumanCards(shown, is_viewer, unseen, holder, rng));
  if (static_cast<uint32_t>(CardCount(unseen.rest())) != shown.pile_count())
    return Invalid("seat ", seat, "'s pile size does not match its unseen cards");
  holder.pile = unseen.rest();
  return absl::OkStatus();
}

}  // namespace

void MoonlightState::PackView(Seat viewer, google::protobuf::Any* out) const {
  PooledScratch<v1::MoonlightView> scratch;  // reused repeated fields: no allocation per seat or item
  v1::MoonlightView& view = *scratch;
  view.set_humans(data_.humans);
  view.set_bots(data_.bots);
  RulesToProto(data_, view.mutable_rules());
  view.set_phase(static_cast<v1::MoonlightPhase>(data_.phase));
  view.set_pass(data_.pass);
  view.set_round(data_.round);
  view.set_seat(viewer);
  view.set_to_move(to_move());
  view.set_coin_holder(data_.coin_holder);
  view.set_seal_supply(data_.seal_supply);
  PackAny(view, out);
  AppendListsAndSeats(data_, viewer, out->mutable_value());
}

absl::StatusOr<std::unique_ptr<State>> ResampleMoonlight(const v1::View& view_proto,
                                                         uint64_t seed) {
  v1::MoonlightView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the moonlight_market view"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, &data));
  const int n = data.participants();
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= n) return Invalid("the viewer ", viewer, " is not a seat");
  if (view.to_move() < -1 || view.to_move() >= n) return Invalid("the seat to move is out of range");
  data.turn = static_cast<int8_t>(view.to_move());
  Rng rng(Rng::FromSeed(seed));
  for (int seat = 0; seat < n; ++seat) GAVEL_RETURN_IF_ERROR(ResampleSeat(view, seat, data, rng));
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MoonlightState>(data));
}

}  // namespace gavel::moonlight_market
