// Moonlight Market's view filter (PackView, wrapped by the core's State::Observe) and
// resampling: a full state consistent with a view, hidden cards re-dealt.
#include <algorithm>
#include <bit>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/moonlight_market/moonlight_market_wire.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {
namespace {

// One seat as `viewer` sees it: a bot's next card and a human's hand and cards under the
// pile only to their owner, counts to everybody.
void SeatViewToProto(const Data& data, int seat, Seat viewer, v1::MoonlightSeatView* shown) {
  const SeatData& holder = data.seats[seat];
  const bool bot = data.IsBot(seat);
  shown->set_automaton(bot);
  shown->set_name(BotName(data, seat));
  if (bot) {
    shown->set_has_next_card(holder.hand != 0);
    if (seat == viewer && holder.hand)
      shown->set_next_card(std::countr_zero(static_cast<unsigned>(holder.hand)));
  } else {
    shown->set_hand_count(CardCount(holder.hand));
    shown->set_under_count(CardCount(holder.under));
    if (seat == viewer) {
      CardsToProto(holder.hand, shown->mutable_hand());
      CardsToProto(holder.under, shown->mutable_under());
    }
  }
  shown->set_pile_count(CardCount(holder.pile));
  PublicSeatToProto(holder, shown);
  for (const Chain& chain : holder.chains) shown->add_chain_values(ChainValue(Tiles(chain)));
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
  CushionsToProto(data_, view.mutable_cushions());
  for (int seat = 0; seat < data_.participants(); ++seat)
    SeatViewToProto(data_, seat, viewer, view.add_seats());
  PackAny(view, out);
  // A count never exceeds its tile's initial count (the validation), so it is under 128.
  static_assert(*std::max_element(kInitialCounts.begin(), kInitialCounts.end()) < 128);
  AppendSmallNumbers(v1::MoonlightView::kSupplyFieldNumber, data_.supply, out->mutable_value());
  AppendSmallNumbers(v1::MoonlightView::kBoxFieldNumber, data_.box, out->mutable_value());
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
