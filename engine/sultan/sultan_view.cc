// The view filter (what a seat, or a spectator, may know) and resampling from a view.
#include "engine/core/proto_util.h"
#include "engine/sultan/sultan_wire.h"

namespace gavel::sultan {

void SultanState::PackView(Seat viewer, google::protobuf::Any* out) const {
  PooledScratch<v1::SultanView> scratch;  // reused repeated fields: no allocation per seat or item
  v1::SultanView& view = *scratch;
  view.set_players(data_.players);
  view.set_seat(viewer);
  view.set_phase(static_cast<v1::SultanPhase>(data_.phase));
  view.set_pass(data_.pass);
  view.set_round(data_.round);
  view.set_start_player(data_.start_player);
  view.set_to_move(to_move());
  ToProto(data_.bag, view.mutable_bag());
  ToProto(data_.drawn, view.mutable_drawn());
  for (int8_t colour : data_.cushions)
    if (colour >= 0) view.add_cushions(static_cast<v1::Jewel>(colour + 1));
  for (int i = 0; i < data_.bids_made; ++i) {
    const Bid& bid = data_.bids[i];
    auto* shown = view.add_bids();
    shown->set_seat(bid.seat);
    shown->set_cushion(bid.cushion);
    shown->set_value(bid.seat == viewer ? bid.value : 0);  // face down until the reveal
  }
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& holder = data_.seats[seat];
    auto* seat_view = view.add_seats();
    if (seat == viewer) ToProto(holder.hand, seat_view->mutable_hand());
    seat_view->set_hand_count(CardTotal(holder.hand));
    seat_view->set_pile_count(CardTotal(holder.pile));
    ToProto(holder.played, seat_view->mutable_played());
    ToProto(holder.collection, seat_view->mutable_collection());
    seat_view->set_score(CollectionScore(holder.collection, data_.players));
  }
  PackAny(view, out);
}

absl::StatusOr<std::unique_ptr<State>> SultanGameImpl::Resample(const v1::View& view_proto,
                                                                uint64_t seed) const {
  v1::SultanView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the sultan view"));
  Data data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, &data));
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= data.players) return Invalid("the viewer ", viewer, " is not a seat");
  const Params params = ParamsFor(data.players);
  Rng rng(Rng::FromSeed(seed));
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
    // Deal the unseen cards at random: face-down bids, then the hand, the rest to the pile.
    std::vector<uint8_t> cards;
    for (int value = 1; value <= kMaxCard; ++value)
      for (int i = 0; i < unseen[value]; ++i) cards.push_back(static_cast<uint8_t>(value));
    if (cards.size() != hidden_bids.size() + shown.hand_count() + shown.pile_count())
      return Invalid("seat ", seat, "'s hand and pile sizes do not match its unseen cards");
    rng.Shuffle(cards.data(), static_cast<int>(cards.size()));
    size_t next = 0;
    for (int bid : hidden_bids) data.bids[bid].value = cards[next++];
    for (uint32_t i = 0; i < shown.hand_count(); ++i) ++holder.hand[cards[next++]];
    while (next < cards.size()) ++holder.pile[cards[next++]];
  }
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<SultanState>(data));
}

}  // namespace gavel::sultan
