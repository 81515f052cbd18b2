// Moonlight Market's view filter (PackView, wrapped by the core's State::Observe) and
// resampling: a full state consistent with a view, hidden cards re-dealt.
#include <algorithm>
#include <bit>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/core/dealing_resampler.h"
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

  // Moves the cards the view names into `to`.
  absl::Status TakeKnown(CardSet known, CardSet& to) {
    if ((known & unseen_) != known) return Invalid("seat ", seat_, "'s cards contradict the public cards");
    unseen_ = static_cast<CardSet>(unseen_ & ~known);
    to = known;
    return absl::OkStatus();
  }

  CardSet rest() const { return unseen_; }

 private:
  int seat_;
  CardSet unseen_ = 0;
};

// What a view leaves to deal of one seat's cards: from `unseen`, `to_hand` cards to its hand
// (a bot's: its next card), then `to_under` under its pile; the rest is its pile.
struct SeatDeal {
  int seat;
  CardSet unseen;
  uint32_t to_hand = 0, to_under = 0;
};

// Takes what the view shows of a seat's hidden cards into `data` (the viewer's own hand and
// cards under its pile, or its next card if the viewer is a bot) and says what is left to deal.
absl::StatusOr<SeatDeal> KnownCardsOf(const v1::MoonlightView& view, int seat, Data& data) {
  const v1::MoonlightSeatView& shown = view.seats(seat);
  SeatData& holder = data.seats[seat];
  UnseenCards unseen(data, seat);
  const bool is_viewer = seat == view.seat();
  SeatDeal deal{seat, 0};
  if (data.IsBot(seat)) {
    if (is_viewer && shown.next_card() != 0) {
      uint8_t next = 0;
      GAVEL_RETURN_IF_ERROR(CardFromProto(shown.next_card(), PartName(seat, "next card"), &next));
      GAVEL_RETURN_IF_ERROR(unseen.TakeKnown(CardBit(next), holder.hand));
    } else if (shown.has_next_card()) {
      deal.to_hand = 1;
    }
  } else if (!is_viewer) {
    deal.to_hand = shown.hand_count();
    deal.to_under = shown.under_count();
  } else {
    CardSet hand = 0, under = 0;
    GAVEL_RETURN_IF_ERROR(CardsFromProto(shown.hand(), PartName(seat, "hand"), &hand));
    GAVEL_RETURN_IF_ERROR(CardsFromProto(shown.under(), PartName(seat, "cards under the pile"), &under));
    GAVEL_RETURN_IF_ERROR(unseen.TakeKnown(hand, holder.hand));
    GAVEL_RETURN_IF_ERROR(unseen.TakeKnown(under, holder.under));
  }
  const uint64_t unseen_count = static_cast<uint64_t>(CardCount(unseen.rest()));
  const uint64_t dealt = uint64_t{deal.to_hand} + deal.to_under;
  if (dealt > unseen_count) return Invalid("seat ", seat, "'s card counts do not match its unseen cards");
  if (unseen_count - dealt != shown.pile_count())
    return Invalid("seat ", seat, "'s pile size does not match its unseen cards");
  deal.unseen = unseen.rest();
  holder.pile = unseen.rest();  // until a draw deals from it
  return deal;
}

// Deals the cards of the seats with cards to deal (`deals`, in seat order) into `data`.
void DealUnseenCards(const std::vector<SeatDeal>& deals, Data& data, Rng& rng) {
  for (const SeatDeal& deal : deals) {
    SeatData& holder = data.seats[deal.seat];
    CardSet unseen = deal.unseen;
    for (uint32_t i = 0; i < deal.to_hand; ++i) holder.hand |= CardBit(DrawCard(unseen, rng));
    for (uint32_t i = 0; i < deal.to_under; ++i) holder.under |= CardBit(DrawCard(unseen, rng));
    holder.pile = unseen;
  }
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

absl::StatusOr<std::unique_ptr<Resampler>> MakeMoonlightResampler(const v1::View& view_proto) {
  v1::MoonlightView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the moonlight_market view"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, &data));
  const int n = data.participants();
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= n) return Invalid("the viewer ", viewer, " is not a seat");
  if (view.to_move() < -1 || view.to_move() >= n) return Invalid("the seat to move is out of range");
  data.turn = static_cast<int8_t>(view.to_move());
  std::vector<SeatDeal> deals;
  for (int seat = 0; seat < n; ++seat) {
    GAVEL_ASSIGN_OR_RETURN(SeatDeal deal, KnownCardsOf(view, seat, data));
    if (deal.to_hand + deal.to_under > 0) deals.push_back(deal);
  }
  // `data` holds the view's public part and the cards the viewer knows.
  auto deal = [deals = std::move(deals)](Data& dealt, Rng& rng) { DealUnseenCards(deals, dealt, rng); };
  return std::unique_ptr<Resampler>(std::make_unique<DealingResampler<Data, MoonlightState>>(
      data, std::move(deal), [](const Data& dealt) { return Validate(dealt); }));
}

absl::StatusOr<std::unique_ptr<State>> ResampleMoonlight(const v1::View& view, uint64_t seed) {
  GAVEL_ASSIGN_OR_RETURN(auto resampler, MakeMoonlightResampler(view));
  return resampler->Draw(seed);
}

}  // namespace gavel::moonlight_market
