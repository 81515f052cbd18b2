// Sultan's rules: turn order, legal moves, Apply with its chance events, scoring.
#include "engine/sultan/sultan.h"

#include <bit>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/core/encoded_moves.h"
#include "engine/core/proto_util.h"
#include "engine/core/ranking.h"
#include "gavel/v1/sultan.pb.h"

namespace gavel::sultan {
namespace {

constexpr std::array<const char*, kColours> kColourNames = {"white", "red", "yellow", "green",
                                                             "blue"};

v1::Jewel ToJewel(int colour) { return static_cast<v1::Jewel>(colour + 1); }

int Total(const Counts& counts) { return std::accumulate(counts.begin(), counts.end(), 0); }

int CardTotal(const CardCounts& cards) { return std::accumulate(cards.begin(), cards.end(), 0); }

std::vector<uint32_t> CardList(const CardCounts& cards) {
  std::vector<uint32_t> list;
  for (int value = 1; value <= kMaxCard; ++value)
    for (int i = 0; i < cards[value]; ++i) list.push_back(value);
  return list;
}

// Who wins a cushion: the highest card; ties go to the earliest card (3-5 players) or to
// the start player (2 players). Returns the index into `bids`, or -1.
int CushionWinner(const Data& data, int cushion) {
  int best = -1;
  for (int i = 0; i < data.bids_made; ++i) {
    const Bid& bid = data.bids[i];
    if (bid.cushion != cushion) continue;
    if (best < 0 || bid.value > data.bids[best].value) {
      best = i;
    } else if (bid.value == data.bids[best].value && data.players == 2 &&
               bid.seat == data.start_player) {
      best = i;
    }
  }
  return best;
}

}  // namespace

Params ParamsFor(int players) {
  if (players == 2) return Params{3, 8, 4, 12, 2, 4};
  if (players == 3) return Params{2, 5, 5, 15, 1, 3};
  return Params{3, 5, 5, 15, 1, players};
}

Seat SultanState::to_move() const {
  switch (data_.phase) {
    case Phase::kReturn:
      return data_.start_player;
    case Phase::kBid: {
      int seat = data_.start_player + data_.bids_made;
      while (seat >= data_.players) seat -= data_.players;  // no division: searches ask often
      return seat;
    }
    case Phase::kFinished:
      break;
  }
  return kNoSeat;
}

void SultanState::LegalMoves(std::vector<Move>& out) const {
  out.clear();
  if (data_.phase == Phase::kReturn) {
    for (int colour = 0; colour < kColours; ++colour)
      if (data_.drawn[colour] > 0) out.push_back(ReturnMove(colour));
    return;
  }
  if (data_.phase != Phase::kBid) return;
  const Seat seat = to_move();
  const int cushions = ParamsFor(data_.players).cushions;
  // With two players a seat's second bid must go to another cushion (rules §4.3).
  int taken = -1;
  if (data_.players == 2 && data_.bids_made >= 2) taken = data_.bids[data_.bids_made - 2].cushion;
  // Searches list moves millions of times: the values in hand as bits (no branch per value,
  // which a random hand mispredicts), the moves into a local array copied out at once.
  const CardCounts& hand = data_.seats[seat].hand;
  uint32_t held = 0;
  for (int value = 1; value <= kMaxCard; ++value) held |= static_cast<uint32_t>(hand[value] != 0) << value;
  std::array<Move, kMaxCard * kMaxCushions> moves;
  size_t count = 0;
  for (; held != 0; held &= held - 1) {
    const int value = std::countr_zero(held);
    for (int cushion = 0; cushion < cushions; ++cushion)
      if (cushion != taken) moves[count++] = BidMove(value, cushion);
  }
  out.assign(moves.begin(), moves.begin() + static_cast<std::ptrdiff_t>(count));
}

bool SultanState::IsLegal(Move move) const {
  if (data_.phase == Phase::kReturn) return move.id < kColours && data_.drawn[move.id] > 0;
  if (data_.phase != Phase::kBid || !IsBid(move)) return false;
  const int value = BidValue(move), cushion = BidCushion(move);
  if (value < 1 || value > kMaxCard || cushion >= ParamsFor(data_.players).cushions) return false;
  if (data_.seats[to_move()].hand[value] == 0) return false;
  return !(data_.players == 2 && data_.bids_made >= 2 &&
           data_.bids[data_.bids_made - 2].cushion == cushion);
}

void SultanState::ApplyLegal(Move move, EventSink* events) {
  if (data_.phase == Phase::kReturn) {
    const int colour = static_cast<int>(move.id);
    --data_.drawn[colour];
    ++data_.bag[colour];
    // The remaining jewels go onto the cushions in canonical colour order (rules §4.2).
    int cushion = 0;
    for (int c = 0; c < kColours; ++c)
      for (; data_.drawn[c] > 0; --data_.drawn[c]) data_.cushions[cushion++] = static_cast<int8_t>(c);
    data_.phase = Phase::kBid;
    if (events) {
      EventDraft<v1::SultanEvent> draft;
      v1::SultanEvent& event = *draft;
      auto* returned = event.mutable_jewel_returned();
      returned->set_jewel(ToJewel(colour));
      std::vector<std::string> names;
      for (int i = 0; i < cushion; ++i) {
        returned->add_cushions(ToJewel(data_.cushions[i]));
        names.push_back(kColourNames[data_.cushions[i]]);
      }
      events->Emit(kEveryone, event,
                   absl::StrCat("seat ", to_move(), " returns a ", kColourNames[colour],
                                " jewel; cushions hold ", absl::StrJoin(names, ", ")));
    }
    return;
  }
  const Seat seat = to_move();
  const int value = BidValue(move), cushion = BidCushion(move);
  --data_.seats[seat].hand[value];
  data_.bids[data_.bids_made++] = Bid{static_cast<int8_t>(seat), static_cast<uint8_t>(cushion),
                                      static_cast<uint8_t>(value)};
  if (events) {
    EventDraft<v1::SultanEvent> draft;
    v1::SultanEvent& event = *draft;
    auto* placed = event.mutable_bid_placed();
    placed->set_seat(seat);
    placed->set_cushion(cushion);
    const std::string where = absl::StrCat("seat ", seat, " bids on cushion ", cushion, " (",
                                           kColourNames[data_.cushions[cushion]], ")");
    events->Emit(AllBut(seat), event, absl::StrCat(where, " face down"));
    placed->set_value(value);
    events->Emit(OnlySeat(seat), event, absl::StrCat(where, " with a ", value));
  }
  if (data_.bids_made == ParamsFor(data_.players).bids_per_round) ResolveRound(events);
}

void SultanState::ResolveRound(EventSink* events) {
  const int cushions = ParamsFor(data_.players).cushions;
  for (int cushion = 0; cushion < cushions; ++cushion) {
    const int colour = data_.cushions[cushion];
    const int winner_bid = CushionWinner(data_, cushion);
    const Seat winner = winner_bid < 0 ? kNoSeat : data_.bids[winner_bid].seat;
    if (winner == kNoSeat) {
      ++data_.bag[colour];
    } else {
      ++data_.seats[winner].collection[colour];
    }
    if (events) {
      EventDraft<v1::SultanEvent> draft;
      v1::SultanEvent& event = *draft;
      auto* resolved = event.mutable_cushion_resolved();
      resolved->set_cushion(cushion);
      resolved->set_jewel(ToJewel(colour));
      resolved->set_winner(winner);
      for (int i = 0; i < data_.bids_made; ++i) {
        const Bid& bid = data_.bids[i];
        if (bid.cushion != cushion) continue;
        auto* shown = resolved->add_bids();
        shown->set_seat(bid.seat);
        shown->set_cushion(bid.cushion);
        shown->set_value(bid.value);
      }
      events->Emit(kEveryone, event,
                   winner == kNoSeat
                       ? absl::StrCat("nobody bid on the ", kColourNames[colour],
                                      " jewel; it goes back to the bag")
                       : absl::StrCat("seat ", winner, " wins the ", kColourNames[colour],
                                      " jewel with a ", data_.bids[winner_bid].value));
    }
    data_.cushions[cushion] = -1;
  }
  for (int i = 0; i < data_.bids_made; ++i)
    ++data_.seats[data_.bids[i].seat].played[data_.bids[i].value];
  data_.bids_made = 0;
  data_.bids = {};
  FinishRound(events);
}

void SultanState::FinishRound(EventSink* events) {
  const Params params = ParamsFor(data_.players);
  data_.start_player = static_cast<int8_t>((data_.start_player + 1) % data_.players);
  if (++data_.round == params.rounds_per_pass) {
    data_.round = 0;
    if (++data_.pass == kPasses) {
      data_.phase = Phase::kFinished;
      if (events) {
        EventDraft<v1::SultanEvent> draft;
        v1::SultanEvent& event = *draft;
        auto* over = event.mutable_game_over();
        const Outcome result = outcome();
        std::vector<std::string> parts;
        for (int seat = 0; seat < data_.players; ++seat) {
          const Counts& collection = data_.seats[seat].collection;
          int bonus = 0;
          for (int colour = 0; colour < kColours; ++colour)
            bonus += ColourBonus(collection[colour], data_.players);
          over->add_scores(static_cast<int>(result.scores[seat]));
          over->add_bonuses(bonus);
          over->add_jewels(Total(collection));
          over->add_ranks(result.ranks[seat]);
          parts.push_back(absl::StrCat("seat ", seat, ": ", result.scores[seat], " (bonus ",
                                       bonus, ", ", Total(collection), " jewels, rank ",
                                       result.ranks[seat], ")"));
        }
        events->Emit(kEveryone, event, absl::StrCat("game over; ", absl::StrJoin(parts, "; ")));
      }
      return;
    }
    DrawHands(events);
  }
  StartRound(events);
}

void SultanState::DrawHands(EventSink* events) {
  const int hand_size = ParamsFor(data_.players).hand_size;
  Rng rng(data_.rng);
  for (int seat = 0; seat < data_.players; ++seat) {
    SeatData& holder = data_.seats[seat];
    CardCounts drawn{};
    for (int i = 0, left = CardTotal(holder.pile); i < hand_size; ++i, --left) {
      const int value = rng.PickWeighted(holder.pile.data(), kMaxCard + 1, left);
      --holder.pile[value];
      ++holder.hand[value];
      ++drawn[value];
    }
    if (events) {
      EventDraft<v1::SultanEvent> draft;
      v1::SultanEvent& event = *draft;
      auto* hand = event.mutable_hand_drawn();
      hand->set_seat(seat);
      hand->set_count(hand_size);
      events->Emit(AllBut(seat), event, absl::StrCat("seat ", seat, " draws ", hand_size, " cards"));
      for (uint32_t value : CardList(drawn)) hand->add_cards(value);
      events->Emit(OnlySeat(seat), event,
                   absl::StrCat("seat ", seat, " draws ", absl::StrJoin(CardList(drawn), ", ")));
    }
  }
  data_.rng = rng.state();
}

void SultanState::StartRound(EventSink* events) {
  const int draws = ParamsFor(data_.players).cushions + 1;
  Rng rng(data_.rng);
  std::array<int, kMaxCushions + 1> colours{};  // a jewel per cushion and one more
  for (int i = 0; i < draws; ++i) {
    const int colour = rng.PickWeighted(data_.bag.data(), kColours, Total(data_.bag));
    --data_.bag[colour];
    ++data_.drawn[colour];
    colours[i] = colour;
  }
  data_.rng = rng.state();
  data_.phase = Phase::kReturn;
  if (!events) return;  // searches play millions of rounds without a listener
  EventDraft<v1::SultanEvent> draft;
  v1::SultanEvent& event = *draft;
  std::vector<std::string> names;
  for (int i = 0; i < draws; ++i) {
    event.mutable_jewels_drawn()->add_jewels(ToJewel(colours[i]));
    names.push_back(kColourNames[colours[i]]);
  }
  events->Emit(kEveryone, event,
               absl::StrCat("seat ", data_.start_player, " draws ", absl::StrJoin(names, ", ")));
}

Outcome SultanState::outcome() const {
  PerSeat<double> scores(data_.players);
  PerSeat<std::pair<int, int>> keys(data_.players);  // (score, jewel count): rules §6
  for (int seat = 0; seat < data_.players; ++seat) {
    const Counts& collection = data_.seats[seat].collection;
    const int score = CollectionScore(collection, data_.players);
    scores[seat] = score;
    keys[seat] = {score, Total(collection)};
  }
  return RankedOutcome(scores, keys, data_.phase == Phase::kFinished);
}

namespace {
constexpr uint32_t kMoveIds = BidMove(kMaxCard + 1, 0).id;  // every move's id is below
constexpr int kNoJewel = -1;  // the colours are 0..kColours - 1

// The colour of the jewel on the cushion `move` bids on, as its text names it, or kNoJewel.
int JewelNamed(const Data& data, Move move) {
  if (!IsBid(move)) return kNoJewel;
  const int cushion = BidCushion(move);
  return cushion < 3 && data.cushions[cushion] >= 0 ? data.cushions[cushion] : kNoJewel;
}

// The text of a return or a bid (empty for any other id), with `jewel` on the bid's cushion.
std::string TextNaming(Move move, int jewel) {
  if (!IsBid(move))
    return move.id < kColours ? absl::StrCat("return a ", kColourNames[move.id], " jewel") : "";
  if (move.id >= kMoveIds) return "";
  const std::string named = jewel == kNoJewel ? "" : absl::StrCat(" (", kColourNames[jewel], ")");
  return absl::StrCat("bid ", BidValue(move), " on cushion ", BidCushion(move), named);
}
}  // namespace

std::string SultanState::MoveText(Move move) const {
  std::string text = TextNaming(move, JewelNamed(data_, move));
  return text.empty() ? absl::StrCat("unknown move ", move.id) : text;
}

namespace {
void BuildMoveDetail(Move move, v1::SultanMove* out) {
  if (IsBid(move)) {
    out->mutable_bid()->set_value(BidValue(move));
    out->mutable_bid()->set_cushion(BidCushion(move));
  } else {
    out->mutable_return_jewel()->set_jewel(ToJewel(static_cast<int>(move.id)));
  }
}
}  // namespace

void SultanState::MoveDetail(Move move, google::protobuf::Any* detail) const {
  static const PackedMoveDetails<v1::SultanMove> details(kMoveIds, BuildMoveDetail);
  details.Pack(move, detail);
}

// A bid's text names the jewel on its cushion: the variant is that jewel's colour + 1.
absl::string_view SultanState::EncodedMove(Move move) const {
  static const VariantEncodedMoves encoded(
      kMoveIds, kColours + 1, [](Move move, int variant) { return TextNaming(move, variant - 1); }, BuildMoveDetail);
  return encoded.Find(move, JewelNamed(data_, move) + 1);
}

}  // namespace gavel::sultan
