// The view filter (what a seat, or a spectator, may know) and resampling from a view.
#include "engine/core/dealing_resampler.h"
#include "engine/core/proto_util.h"
#include "engine/sultan/sultan_wire.h"

namespace gavel::sultan {

namespace {

using W = MessageWriter;
constexpr size_t kBidBytes = 3 * W::ScalarBytes();
constexpr size_t kSeatCards = 2 * kMaxCard;  // a seat holds at most two sets of up to 15 cards
constexpr size_t kSeatViewBytes = 2 * W::PackedBytes(kSeatCards) + 3 * W::ScalarBytes() + W::MessageBytes(kJewelCountsBytes);

// The values of `cards`, ascending, one byte each.
std::span<const uint8_t> CardValues(const CardCounts& cards, std::array<uint8_t, kSeatCards>& out) {
  size_t count = 0;
  for (int value = 1; value <= kMaxCard; ++value)
    for (int i = 0; i < cards[value]; ++i) out[count++] = static_cast<uint8_t>(value);
  return {out.data(), count};
}

// A seat as `viewer` sees it, as an entry of the view's `seats`: its hand to itself only.
void WriteSeatView(const SeatData& holder, bool own, int players, MessageWriter& out) {
  using SeatView = v1::SultanSeatView;
  std::array<uint8_t, kSeatViewBytes> buffer;
  W fields(buffer.data());
  std::array<uint8_t, kSeatCards> values;
  if (own) fields.Packed(SeatView::kHandFieldNumber, CardValues(holder.hand, values));
  fields.UInt32(SeatView::kHandCountFieldNumber, static_cast<uint32_t>(CardTotal(holder.hand)));
  fields.UInt32(SeatView::kPileCountFieldNumber, static_cast<uint32_t>(CardTotal(holder.pile)));
  fields.Packed(SeatView::kPlayedFieldNumber, CardValues(holder.played, values));
  fields.ShortMessage<kJewelCountsBytes>(SeatView::kCollectionFieldNumber,
                                         [&](W& collection) { WriteJewelCounts(holder.collection, collection); });
  fields.Int32(SeatView::kScoreFieldNumber, CollectionScore(holder.collection, players));
  out.Message(v1::SultanView::kSeatsFieldNumber, fields);
}

}  // namespace

// Written field by field in field-number order with MessageWriter: protobuf's own bytes
// (SultanViews.ViewsAreProtobufsOwnBytes) without building the view's messages.
void SultanState::PackView(Seat viewer, google::protobuf::Any* out) const {
  using View = v1::SultanView;
  std::array<uint8_t, 7 * W::ScalarBytes() + 2 * W::MessageBytes(kJewelCountsBytes) +
                          W::PackedBytes(std::tuple_size_v<decltype(data_.cushions)>) +
                          std::tuple_size_v<decltype(data_.bids)> * W::MessageBytes(kBidBytes) +
                          std::tuple_size_v<decltype(data_.seats)> * W::MessageBytes(kSeatViewBytes)> buffer;
  W fields(buffer.data());
  fields.UInt32(View::kPlayersFieldNumber, data_.players);
  fields.Int32(View::kSeatFieldNumber, viewer);
  fields.Int32(View::kPhaseFieldNumber, static_cast<int32_t>(data_.phase));
  fields.UInt32(View::kPassFieldNumber, data_.pass);
  fields.UInt32(View::kRoundFieldNumber, data_.round);
  fields.Int32(View::kStartPlayerFieldNumber, data_.start_player);
  fields.Int32(View::kToMoveFieldNumber, to_move());
  fields.ShortMessage<kJewelCountsBytes>(View::kBagFieldNumber, [&](W& bag) { WriteJewelCounts(data_.bag, bag); });
  fields.ShortMessage<kJewelCountsBytes>(View::kDrawnFieldNumber, [&](W& drawn) { WriteJewelCounts(data_.drawn, drawn); });
  std::array<uint8_t, std::tuple_size_v<decltype(data_.cushions)>> jewels;
  size_t cushions = 0;
  for (int8_t colour : data_.cushions)
    if (colour >= 0) jewels[cushions++] = static_cast<uint8_t>(colour + 1);  // v1::Jewel
  fields.Packed(View::kCushionsFieldNumber, std::span<const uint8_t>(jewels.data(), cushions));
  for (int i = 0; i < data_.bids_made; ++i) {
    const Bid& bid = data_.bids[i];
    fields.ShortMessage<kBidBytes>(View::kBidsFieldNumber, [&](W& shown) {
      shown.Int32(v1::SultanBid::kSeatFieldNumber, bid.seat);
      shown.UInt32(v1::SultanBid::kCushionFieldNumber, bid.cushion);
      shown.UInt32(v1::SultanBid::kValueFieldNumber, bid.seat == viewer ? bid.value : 0);  // face down until the reveal
    });
  }
  for (int seat = 0; seat < data_.players; ++seat)
    WriteSeatView(data_.seats[seat], seat == viewer, data_.players, fields);
  out->set_type_url(TypeUrl<View>());
  out->mutable_value()->assign(fields.bytes());
}

namespace {

// What a view leaves unknown of one other seat: its unseen cards, ascending, to be dealt to
// its face-down bids, then its hand, the rest to its pile.
struct HiddenCards {
  int seat;
  std::vector<uint8_t> cards;
  std::vector<int> face_down_bids;
  uint32_t hand_count;
};

// Deals each other seat's unseen cards (`hidden`, in seat order) into `data`.
void DealHiddenCards(const std::vector<HiddenCards>& hidden, Data& data, Rng& rng) {
  for (const HiddenCards& unseen : hidden) {
    std::vector<uint8_t> cards = unseen.cards;
    rng.Shuffle(cards.data(), static_cast<int>(cards.size()));
    SeatData& holder = data.seats[unseen.seat];
    size_t next = 0;
    for (int bid : unseen.face_down_bids) data.bids[bid].value = cards[next++];
    for (uint32_t i = 0; i < unseen.hand_count; ++i) ++holder.hand[cards[next++]];
    while (next < cards.size()) ++holder.pile[cards[next++]];
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Resampler>> SultanGameImpl::MakeResampler(const v1::View& view_proto) const {
  v1::SultanView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the sultan view"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, &data));
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= data.players) return Invalid("the viewer ", viewer, " is not a seat");
  const Params params = ParamsFor(data.players);
  std::vector<HiddenCards> hidden;
  for (int seat = 0; seat < data.players; ++seat) {
    const v1::SultanSeatView& shown = view.seats(seat);
    SeatData& holder = data.seats[seat];
    GAVEL_RETURN_IF_ERROR(FromProto(shown.played(), PartName(seat, "played cards"), &holder.played));
    GAVEL_RETURN_IF_ERROR(FromProto(shown.collection(), PartName(seat, "collection"), &holder.collection));
    // The cards this seat holds somewhere unseen: the full set minus what is known.
    CardCounts unseen{};
    for (int value = 1; value <= params.max_card; ++value) unseen[value] = params.copies;
    auto take = [&](const CardCounts& known) -> absl::Status {
      for (int value = 0; value <= kMaxCard; ++value) {
        if (known[value] > unseen[value]) return Invalid("seat ", seat, "'s cards contradict its card set");
        unseen[value] -= known[value];
      }
      return absl::OkStatus();
    };
    GAVEL_RETURN_IF_ERROR(take(holder.played));
    std::vector<int> hidden_bids;
    for (int i = 0; i < data.bids_made; ++i) {
      if (data.bids[i].seat != seat) continue;
      if (data.bids[i].value != 0) {
        CardCounts one{};
        ++one[data.bids[i].value];
        GAVEL_RETURN_IF_ERROR(take(one));
      } else if (seat == viewer) {
        return Invalid("the viewer's own bid ", i, " has no value");
      } else {
        hidden_bids.push_back(i);
      }
    }
    if (seat == viewer) {
      GAVEL_RETURN_IF_ERROR(FromProto(shown.hand(), PartName(seat, "hand"), &holder.hand));
      GAVEL_RETURN_IF_ERROR(take(holder.hand));
      holder.pile = unseen;
      continue;
    }
    std::vector<uint8_t> cards;
    for (int value = 1; value <= kMaxCard; ++value)
      for (int i = 0; i < unseen[value]; ++i) cards.push_back(static_cast<uint8_t>(value));
    if (cards.size() != hidden_bids.size() + shown.hand_count() + shown.pile_count())
      return Invalid("seat ", seat, "'s hand and pile sizes do not match its unseen cards");
    hidden.push_back({seat, std::move(cards), std::move(hidden_bids), shown.hand_count()});
  }
  // `data` holds the view's public part, the viewer's hand and every seat's known cards.
  auto deal = [hidden = std::move(hidden)](Data& dealt, Rng& rng) { DealHiddenCards(hidden, dealt, rng); };
  return std::unique_ptr<Resampler>(std::make_unique<DealingResampler<Data, SultanState>>(
      data, std::move(deal), [](const Data& dealt) { return Validate(dealt); }));
}

absl::StatusOr<std::unique_ptr<State>> SultanGameImpl::Resample(const v1::View& view,
                                                                uint64_t seed) const {
  GAVEL_ASSIGN_OR_RETURN(auto resampler, MakeResampler(view));
  return resampler->Draw(seed);
}

}  // namespace gavel::sultan
