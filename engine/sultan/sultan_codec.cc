// Sultan's wire forms: full state, validation of untrusted states, the view filter,
// resampling from a view, and move decoding.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/core/registry.h"
#include "engine/sultan/sultan.h"
#include "gavel/v1/sultan.pb.h"

namespace gavel::sultan {

absl::Status FeaturizeSultan(const v1::View& view, std::span<const Move> moves, Features* out);

namespace {

absl::Status Invalid(const auto&... parts) { return InvalidInput("sultan", parts...); }

void ToProto(const Counts& counts, v1::JewelCounts* out) {
  out->set_white(counts[kWhite]);
  out->set_red(counts[kRed]);
  out->set_yellow(counts[kYellow]);
  out->set_green(counts[kGreen]);
  out->set_blue(counts[kBlue]);
}

absl::Status FromProto(const v1::JewelCounts& in, absl::string_view what, Counts* out) {
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
  for (int value = 1; value <= kMaxCard; ++value)
    for (int i = 0; i < cards[value]; ++i) out->Add(value);
}

absl::Status FromProto(const google::protobuf::RepeatedField<uint32_t>& in, absl::string_view what,
                       CardCounts* out) {
  if (in.size() > 2 * kMaxCard) return Invalid(what, " lists ", in.size(), " cards, too many");
  for (uint32_t value : in) {
    if (value < 1 || value > kMaxCard) return Invalid(what, " holds a card of value ", value);
    ++(*out)[value];
  }
  return absl::OkStatus();
}

absl::Status ColourFromProto(int jewel, absl::string_view what, int8_t* colour) {
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

int CardTotal(const CardCounts& cards) { return std::accumulate(cards.begin(), cards.end(), 0); }

class SultanGameImpl final : public Game {
 public:
  SultanGameImpl() {
    info_.name = "sultan";
    info_.display_name = "Sultan";
    info_.min_players = 2;
    info_.max_players = 5;
  }
  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view,
                                                  uint64_t seed) const override;
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                         Features* out) const override {
    return FeaturizeSultan(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed, const Options&,
                                                EventSink* events) const override {
    const Params params = ParamsFor(players);
    Data data;
    data.players = static_cast<uint8_t>(players);
    for (int colour = 0; colour < kColours; ++colour)
      data.bag[colour] = static_cast<uint8_t>(kJewelsPerColour[colour]);
    for (int seat = 0; seat < players; ++seat)
      for (int value = 1; value <= params.max_card; ++value)
        data.seats[seat].pile[value] = static_cast<uint8_t>(params.copies);
    data.rng = Rng::FromSeed(seed);
    auto state = std::make_unique<SultanState>(data);
    state->DrawHands(events);
    state->StartRound(events);
    return state;
  }

  absl::StatusOr<std::unique_ptr<State>> DecodeState(
      const google::protobuf::Any& any) const override {
    Scratch<v1::SultanState> scratch;
    const v1::SultanState& in = *scratch;
    GAVEL_RETURN_IF_ERROR(UnpackAny(any, scratch.get(), "the sultan state"));
    Data data;
    GAVEL_RETURN_IF_ERROR(DecodePublic(in, &data));
    for (int seat = 0; seat < data.players; ++seat) {
      const v1::SultanSeatState& holder = in.seats(seat);
      SeatData& out = data.seats[seat];
      const std::string who = absl::StrCat("seat ", seat, "'s ");
      for (auto [cards, field, what] :
           {std::tuple{&out.pile, &holder.pile(), "pile"}, {&out.hand, &holder.hand(), "hand"},
            {&out.played, &holder.played(), "played cards"}}) {
        GAVEL_RETURN_IF_ERROR(FromProto(*field, who + what, cards));
      }
      GAVEL_RETURN_IF_ERROR(FromProto(holder.collection(), who + "collection", &out.collection));
    }
    for (int i = 0; i < data.bids_made; ++i)
      if (data.bids[i].value == 0) return Invalid("bid ", i, " has no card value");
    data.rng = in.rng();
    GAVEL_RETURN_IF_ERROR(Validate(data));
    return std::unique_ptr<State>(std::make_unique<SultanState>(data));
  }

  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override {
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

 private:
  GameInfo info_;
};

}  // namespace

absl::Status Validate(const Data& data) {
  const Params params = ParamsFor(data.players);
  const int total_rounds = kPasses * params.rounds_per_pass;
  const bool finished = data.phase == Phase::kFinished;
  if (finished ? (data.pass != kPasses || data.round != 0)
               : (data.pass >= kPasses || data.round >= params.rounds_per_pass))
    return Invalid("pass ", data.pass, " round ", data.round, " does not fit phase ",
                   static_cast<int>(data.phase));
  const int rounds_done = data.pass * params.rounds_per_pass + data.round;
  if (data.start_player != rounds_done % data.players)
    return Invalid("seat ", data.start_player, " cannot be the start player after ", rounds_done,
                   " rounds");
  // Phase consistency: drawn jewels only before the return, cushions only while bidding.
  const int drawn = std::accumulate(data.drawn.begin(), data.drawn.end(), 0);
  int cushions_filled = 0;
  for (int8_t colour : data.cushions) cushions_filled += colour >= 0;
  const int expected_drawn = data.phase == Phase::kReturn ? params.cushions + 1 : 0;
  const int expected_cushions = data.phase == Phase::kBid ? params.cushions : 0;
  if (drawn != expected_drawn || cushions_filled != expected_cushions)
    return Invalid("phase ", static_cast<int>(data.phase), " needs ", expected_drawn,
                   " drawn jewels and ", expected_cushions, " filled cushions, not ", drawn,
                   " and ", cushions_filled);
  for (int i = 0; i < cushions_filled; ++i)
    if (data.cushions[i] < 0) return Invalid("cushions must be filled from cushion 0");
  if (data.phase != Phase::kBid ? data.bids_made != 0 : data.bids_made >= params.bids_per_round)
    return Invalid(data.bids_made, " bids do not fit phase ", static_cast<int>(data.phase));
  // Bids follow the turn order; with two players a seat's two bids use two cushions.
  for (int i = 0; i < data.bids_made; ++i) {
    const Bid& bid = data.bids[i];
    if (bid.seat != (data.start_player + i) % data.players)
      return Invalid("bid ", i, " cannot be by seat ", static_cast<int>(bid.seat));
    if (bid.cushion >= params.cushions) return Invalid("bid ", i, " is on a cushion not in play");
    if (data.players == 2 && i >= 2 && data.bids[i - 2].cushion == bid.cushion)
      return Invalid("seat ", static_cast<int>(bid.seat), " bid twice on cushion ",
                     static_cast<int>(bid.cushion));
  }
  // Jewel conservation.
  Counts jewels = data.bag;
  for (int colour = 0; colour < kColours; ++colour) jewels[colour] += data.drawn[colour];
  for (int i = 0; i < cushions_filled; ++i) ++jewels[data.cushions[i]];
  for (int seat = 0; seat < data.players; ++seat)
    for (int colour = 0; colour < kColours; ++colour)
      jewels[colour] += data.seats[seat].collection[colour];
  for (int colour = 0; colour < kColours; ++colour)
    if (jewels[colour] != kJewelsPerColour[colour])
      return Invalid("there are ", static_cast<int>(jewels[colour]), " jewels of colour ",
                     colour + 1, " instead of ", kJewelsPerColour[colour]);
  // Card conservation, and hand and pile sizes that match the progress of the game.
  const int per_round = params.bids_per_round / data.players;
  const int rounds_in_pass = finished ? params.rounds_per_pass : data.round;
  const int passes_drawn = finished ? kPasses : data.pass + 1;
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& holder = data.seats[seat];
    CardCounts cards{};
    int bids_this_round = 0;
    for (int i = 0; i < data.bids_made; ++i) {
      if (data.bids[i].seat != seat) continue;
      ++cards[data.bids[i].value];
      ++bids_this_round;
    }
    for (int value = 0; value <= kMaxCard; ++value) {
      const int count = cards[value] + holder.pile[value] + holder.hand[value] + holder.played[value];
      const int expected = (value >= 1 && value <= params.max_card) ? params.copies : 0;
      if (count != expected)
        return Invalid("seat ", seat, " has ", count, " cards of value ", value, " instead of ",
                       expected);
    }
    const int played = (finished ? total_rounds : rounds_done) * per_round;
    const int hand = params.hand_size - rounds_in_pass * per_round - bids_this_round;
    const int pile = (kPasses - passes_drawn) * params.hand_size;
    if (CardTotal(holder.played) != played || CardTotal(holder.hand) != hand ||
        CardTotal(holder.pile) != pile)
      return Invalid("seat ", seat, " must have played ", played, ", hold ", hand, " and keep ",
                     pile, " in its pile at this point");
  }
  return absl::OkStatus();
}

void SultanState::Serialize(v1::GameState* out) const {
  Scratch<v1::SultanState> scratch;
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
  out->set_game("sultan");
  out->mutable_state()->PackFrom(proto);
}

void SultanState::PackView(Seat viewer, google::protobuf::Any* out) const {
  v1::SultanView view;
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
  out->PackFrom(view);
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
    const std::string who = absl::StrCat("seat ", seat, "'s ");
    GAVEL_RETURN_IF_ERROR(FromProto(shown.played(), who + "played cards", &holder.played));
    GAVEL_RETURN_IF_ERROR(FromProto(shown.collection(), who + "collection", &holder.collection));
    // The cards this seat holds somewhere unseen: the full set minus what is known.
    CardCounts unseen{};
    for (int value = 1; value <= params.max_card; ++value) unseen[value] = params.copies;
    auto take = [&](const CardCounts& known) -> absl::Status {
      for (int value = 0; value <= kMaxCard; ++value) {
        if (known[value] > unseen[value]) return Invalid(who, "cards contradict its card set");
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
      GAVEL_RETURN_IF_ERROR(FromProto(shown.hand(), who + "hand", &holder.hand));
      GAVEL_RETURN_IF_ERROR(take(holder.hand));
      holder.pile = unseen;
      continue;
    }
    // Deal the unseen cards at random: face-down bids, then the hand, the rest to the pile.
    std::vector<uint8_t> cards;
    for (int value = 1; value <= kMaxCard; ++value)
      for (int i = 0; i < unseen[value]; ++i) cards.push_back(static_cast<uint8_t>(value));
    if (cards.size() != hidden_bids.size() + shown.hand_count() + shown.pile_count())
      return Invalid(who, "hand and pile sizes do not match its unseen cards");
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

const Game& SultanGame() {
  static const SultanGameImpl game;
  return game;
}

const Game& SultanState::game() const { return SultanGame(); }

}  // namespace gavel::sultan

GAVEL_REGISTER_GAME(sultan, sultan::SultanGame)
