// Dirk for Sultan (rules: docs/rules/sultan.md), computed from the seat's SultanView.
//
// Value of a jewel to Dirk: its points plus the bonus it adds to Dirk's count of that
// colour (the marginal value).
// - Return phase: return the jewel Dirk values least (lowest colour on ties).
// - Bidding: for every legal bid (card c on cushion j) estimate the chance of winning j:
//   every card already on j from another seat must lose to c, and every seat still to bid
//   this round after Dirk goes to j with chance 1/(cushions) and must not beat c. An
//   opponent's card is taken as uniform over its cards not yet revealed; ties follow the
//   rules (earliest card wins with 3-5 players; the start player with 2). Dirk plays the
//   bid with the best  P(win) * value(j) - kCardCost * c: every card of a hand is spent
//   within its pass, so a high card spent now is a reserve lost for a later, richer round,
//   and the cheapest card that wins about as often is preferred (no bid is wasted on an
//   overbid). Ties: lowest card, then lowest cushion.
#include <array>
#include <vector>

#include "policy/dirk/dirk.h"
#include "engine/core/proto_util.h"
#include "gavel/v1/sultan.pb.h"

namespace gavel::policy::dirk {
namespace {

constexpr double kCardCost = 0.25;  // value units per card point

int Count(const v1::JewelCounts& counts, v1::Jewel jewel) {
  switch (jewel) {
    case v1::JEWEL_WHITE: return counts.white();
    case v1::JEWEL_RED: return counts.red();
    case v1::JEWEL_YELLOW: return counts.yellow();
    case v1::JEWEL_GREEN: return counts.green();
    case v1::JEWEL_BLUE: return counts.blue();
    default: return 0;
  }
}

int Bonus(int count, int players) {
  static constexpr std::array<int, 8> kMany = {0, 0, 0, 2, 5, 10, 20, 20};
  static constexpr std::array<int, 8> kTwo = {0, 0, 0, 0, 2, 5, 10, 20};
  const auto& table = players == 2 ? kTwo : kMany;
  return table[std::min<int>(count, 7)];
}

double JewelValue(const v1::SultanView& view, v1::Jewel jewel) {
  const int count = Count(view.seats(view.seat()).collection(), jewel);
  return static_cast<int>(jewel) + Bonus(count + 1, view.players()) - Bonus(count, view.players());
}

// A seat's cards, as a count per value.
std::array<int, 16> Deck(const v1::SultanView& view) {
  std::array<int, 16> cards{};
  const int top = view.players() == 2 ? 12 : 15;
  const int copies = view.players() == 2 ? 2 : 1;
  for (int value = 1; value <= top; ++value) cards[value] = copies;
  return cards;
}

// The cards of `seat` not yet revealed (hand and pile), as a count per value.
std::array<int, 16> UnrevealedCards(const v1::SultanView& view, int seat) {
  std::array<int, 16> cards = Deck(view);
  for (uint32_t value : view.seats(seat).played())
    if (value < cards.size() && cards[value] > 0) --cards[value];
  return cards;
}

// Chance that a card among `cards` (a count per value) is below `card` (or not above it, when
// `or_equal`).
double ChanceBelow(const std::array<int, 16>& cards, uint32_t card, bool or_equal) {
  int below = 0, total = 0;
  for (uint32_t value = 1; value < cards.size(); ++value) {
    total += cards[value];
    if (value < card || (or_equal && value == card)) below += cards[value];
  }
  return total == 0 ? 1.0 : static_cast<double>(below) / total;
}

// The seats bidding this round, in order (one bid each; with 2 players, two each).
std::vector<int> BidOrder(const v1::SultanView& view) {
  const int players = static_cast<int>(view.players());
  std::vector<int> order;
  for (int turn = 0; turn < (players == 2 ? 4 : players); ++turn)
    order.push_back((view.start_player() + turn) % players);
  return order;
}

// Whether Dirk's card wins a tie against `other` on the same cushion.
bool WinsTie(const v1::SultanView& view, bool dirk_earlier) {
  if (view.players() == 2) return view.start_player() == view.seat();
  return dirk_earlier;
}

// What every bid of one decision reads: each seat's unrevealed cards and the bidding order,
// worked out once per decision rather than once per bid and seat.
struct BidContext {
  explicit BidContext(const v1::SultanView& view) : order(BidOrder(view)) {
    for (int seat = 0; seat < view.seats_size(); ++seat) unrevealed.push_back(UnrevealedCards(view, seat));
    unrevealed.push_back(Deck(view));
  }
  // A seat the view does not list (a malformed view) counts as having revealed nothing.
  const std::array<int, 16>& Unrevealed(int seat) const {
    return seat >= 0 && static_cast<size_t>(seat) < unrevealed.size() ? unrevealed[seat] : unrevealed.back();
  }
  std::vector<std::array<int, 16>> unrevealed;  // by seat, then one for a seat not listed
  std::vector<int> order;
};

double ChanceToWin(const v1::SultanView& view, const BidContext& context, uint32_t card, uint32_t cushion) {
  const int me = view.seat();
  double chance = 1;
  for (const v1::SultanBid& bid : view.bids())
    if (bid.cushion() == cushion && bid.seat() != me)
      chance *= ChanceBelow(context.Unrevealed(bid.seat()), card, WinsTie(view, false));
  const std::vector<int>& order = context.order;
  const double to_cushion = 1.0 / std::max(1, view.cushions_size());
  for (size_t turn = view.bids_size() + 1; turn < order.size(); ++turn) {
    if (order[turn] == me) continue;
    const double beaten = 1 - ChanceBelow(context.Unrevealed(order[turn]), card, WinsTie(view, true));
    chance *= 1 - to_cushion * beaten;
  }
  return chance;
}

uint32_t ChooseReturn(const v1::SultanView& view, const LegalMoves& legal) {
  uint32_t best = legal.Get(0).id();
  double lowest = 1e9;
  v1::SultanMove detail;  // one message for every move: parsed into, not allocated per move
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_return_jewel()) continue;
    const double value = JewelValue(view, detail.return_jewel().jewel());
    if (value < lowest) lowest = value, best = move.id();
  }
  return best;
}

uint32_t ChooseBid(const v1::SultanView& view, const LegalMoves& legal) {
  uint32_t best = legal.Get(0).id();
  double best_utility = -1e9;
  uint32_t best_card = 0, best_cushion = 0;
  const BidContext context(view);
  v1::SultanMove detail;
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_bid()) continue;
    const uint32_t card = detail.bid().value(), cushion = detail.bid().cushion();
    if (cushion >= static_cast<uint32_t>(view.cushions_size())) continue;
    const double utility = ChanceToWin(view, context, card, cushion) * JewelValue(view, view.cushions(cushion)) -
                           kCardCost * card;
    const bool better = utility > best_utility + 1e-9 ||
                        (utility > best_utility - 1e-9 &&
                         (card < best_card || (card == best_card && cushion < best_cushion)));
    if (better) {
      best_utility = utility;
      best = move.id();
      best_card = card;
      best_cushion = cushion;
    }
  }
  return best;
}

}  // namespace

uint32_t ChooseSultan(const v1::View& view, const LegalMoves& legal) {
  PooledScratch<v1::SultanView> scratch;  // reused: no allocation per decision in a play-out
  v1::SultanView& sultan = *scratch;
  if (!scratch.Unpack(view.view(), "view").ok() || sultan.seat() < 0 || sultan.seat() >= sultan.seats_size())
    return legal.Get(0).id();
  return sultan.phase() == v1::SULTAN_PHASE_RETURN ? ChooseReturn(sultan, legal)
                                                   : ChooseBid(sultan, legal);
}

}  // namespace gavel::policy::dirk

GAVEL_REGISTER_DIRK(sultan, ChooseSultan)
