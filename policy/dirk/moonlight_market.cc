// Dirk for Moonlight Market (rules: docs/rules/moonlight_market.md), computed from the
// seat's MoonlightView. Dirk plays the rulebook automaton (rules §9, the procedure the
// engine runs for the automated Dirk and Beate), adapted to a seat that holds a hand:
//
// Bidding (§9.1):
// - With a displaced card, C is that card (the only card the rules allow).
// - Otherwise, where the automaton reveals a random card, Dirk chooses C from its hand:
//   for each card, walk the cushions from the moon cushion down as in §9.1 step 2 (an empty
//   cushion takes the card; a cushion with a strictly lower card takes it if Dirk has a
//   seal) and note where the card would land. C is the card that lands on the earliest
//   cushion; among those, the lowest card (no card is spent beyond what that cushion needs).
//   Reserve: Dirk never chooses its highest card not yet played (hand, pile and cards put
//   under the pile together) while the hand holds another card, so that card is its last
//   card for the final scoring.
// - C is then bid exactly where §9.1 step 2 puts it (displacing pays the owner 1 seal).
//
// Chain phase (§9.2), one move at a time:
// - A hammer is boxed unused: Hammer(discard).
// - Otherwise the next tile is the first of the held tiles in the automaton's order:
//   non-doublers ascending by (value, first colour, kind, second colour), with worthless = 0,
//   a two-gem tile's first colour its left colour and kind 0 single / 1 two-gem; doublers
//   last, leftmost colour first. Its chain: a single gem or doubler its own colour; a
//   two-gem tile the one of its two chains holding fewer tiles (ties: the left one); a
//   worthless tile the chain with fewest tiles (ties: the leftmost).
// Anything not covered (no matching legal move) falls back to the first legal move.
#include <algorithm>
#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "policy/dirk/dirk.h"
#include "engine/core/proto_util.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::policy::dirk {
namespace {

constexpr int kColours = 5;
constexpr int kCards = 13;
constexpr uint32_t kWorthless = 75, kSealTile = 76, kHammer = 77;
constexpr std::array<std::array<int, 2>, 10> kPairs = {{
    {0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}};

enum class Kind { kSingle, kTwoGem, kDoubler, kWorthless, kOther };

struct Tile {
  Kind kind = Kind::kOther;
  int value = 0;   // gem value; 0 for worthless, doublers and the rest
  int colour = 0;  // single, doubler: its colour; two-gem: the left colour
  int second = 0;  // two-gem: the right colour
};

Tile Describe(uint32_t code) {
  if (code < 50) return {Kind::kSingle, static_cast<int>(code % 10) + 1, static_cast<int>(code / 10), 0};
  if (code < 55) return {Kind::kDoubler, 0, static_cast<int>(code - 50), 0};
  if (code < 75) {
    const auto& pair = kPairs[(code - 55) % 10];
    return {Kind::kTwoGem, code < 65 ? 4 : 7, pair[0], pair[1]};
  }
  if (code == kWorthless) return {Kind::kWorthless, 0, 0, 0};
  return {};
}

// ---------------------------------------------------------------------------
// Bidding

// The cushion §9.1 step 2 puts `card` on, or -1 if none would take it.
int TargetCushion(const v1::MoonlightView& view, uint32_t card, uint32_t seals) {
  for (int i = 0; i < view.cushions_size(); ++i) {
    const v1::MoonlightCushion& cushion = view.cushions(i);
    if (cushion.bid_seat() < 0) return i;
    if (cushion.bid_card() < card && seals > 0) return i;
  }
  return -1;
}

// Dirk's highest card not yet played: not discarded, not at a cushion, not displaced.
uint32_t HighestUnplayed(const v1::MoonlightView& view) {
  const v1::MoonlightSeatView& me = view.seats(view.seat());
  std::array<bool, kCards + 1> played{};
  for (uint32_t card : me.discard())
    if (card <= kCards) played[card] = true;
  if (me.displaced() <= kCards) played[me.displaced()] = true;
  for (const v1::MoonlightCushion& cushion : view.cushions())
    if (cushion.bid_seat() == view.seat() && cushion.bid_card() <= kCards) played[cushion.bid_card()] = true;
  for (uint32_t card = kCards; card >= 1; --card)
    if (!played[card]) return card;
  return 0;
}

// The card C Dirk bids: the displaced card, else the cheapest card reaching the earliest
// cushion (keeping the reserve card while there is another).
uint32_t ChooseCard(const v1::MoonlightView& view) {
  const v1::MoonlightSeatView& me = view.seats(view.seat());
  if (me.displaced() != 0) return me.displaced();
  const uint32_t reserve = me.hand_size() > 1 ? HighestUnplayed(view) : 0;
  uint32_t best_card = 0;
  int best_cushion = 1 << 20;
  for (uint32_t card : me.hand()) {
    if (card == reserve) continue;
    int cushion = TargetCushion(view, card, me.seals());
    if (cushion < 0) cushion = 1 << 19;
    if (cushion < best_cushion || (cushion == best_cushion && card < best_card))
      best_cushion = cushion, best_card = card;
  }
  return best_card;
}

std::optional<uint32_t> FindBid(const LegalMoves& legal, uint32_t card, int cushion) {
  v1::MoonlightMove detail;  // one message for every move: parsed into, not allocated per move
  for (const v1::Move& move : legal) {
    if (TryUnpack(move.detail(), &detail) && detail.has_bid() && detail.bid().card() == card &&
        static_cast<int>(detail.bid().cushion()) == cushion)
      return move.id();
  }
  return std::nullopt;
}

uint32_t ChooseBid(const v1::MoonlightView& view, const LegalMoves& legal) {
  const uint32_t card = ChooseCard(view);
  const int cushion = TargetCushion(view, card, view.seats(view.seat()).seals());
  return FindBid(legal, card, cushion).value_or(legal.Get(0).id());
}

// ---------------------------------------------------------------------------
// Chain phase

// The automaton's attachment order: non-doublers by (value, first colour, kind, second
// colour), then doublers by colour.
std::tuple<int, int, int, int, int> OrderKey(uint32_t code) {
  const Tile tile = Describe(code);
  if (tile.kind == Kind::kDoubler) return {1, tile.colour, 0, 0, 0};
  return {0, tile.value, tile.colour, tile.kind == Kind::kTwoGem ? 1 : 0, tile.second};
}

// The chain the automaton attaches `code` to, given the current chain lengths.
int TargetChain(const v1::MoonlightSeatView& me, uint32_t code) {
  const Tile tile = Describe(code);
  auto size = [&](int colour) { return colour < me.chains_size() ? me.chains(colour).tiles_size() : 0; };
  if (tile.kind == Kind::kTwoGem) return size(tile.second) < size(tile.colour) ? tile.second : tile.colour;
  if (tile.kind == Kind::kWorthless) {
    int colour = 0;
    for (int c = 1; c < kColours; ++c)
      if (size(c) < size(colour)) colour = c;
    return colour;
  }
  return tile.colour;
}

uint32_t ChooseChainMove(const v1::MoonlightView& view, const LegalMoves& legal) {
  v1::MoonlightMove detail;
  for (const v1::Move& move : legal) {
    if (TryUnpack(move.detail(), &detail) && detail.has_hammer() && detail.hammer().discard()) return move.id();
  }
  const v1::MoonlightSeatView& me = view.seats(view.seat());
  std::optional<uint32_t> next;
  for (uint32_t code : me.held()) {
    if (code == kSealTile || code == kHammer || Describe(code).kind == Kind::kOther) continue;
    if (!next || OrderKey(code) < OrderKey(*next)) next = code;
  }
  if (!next) return legal.Get(0).id();
  const int colour = TargetChain(me, *next);
  std::optional<uint32_t> same_tile;
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_attach() || detail.attach().tile() != *next) continue;
    if (static_cast<int>(detail.attach().colour()) == colour + 1) return move.id();
    if (!same_tile) same_tile = move.id();
  }
  return same_tile.value_or(legal.Get(0).id());
}

}  // namespace

uint32_t ChooseMoonlightMarket(const v1::View& view, const LegalMoves& legal) {
  PooledScratch<v1::MoonlightView> scratch;  // reused: no allocation per decision in a play-out
  v1::MoonlightView& market = *scratch;
  if (!scratch.Unpack(view.view(), "view").ok() || market.seat() < 0 || market.seat() >= market.seats_size())
    return legal.Get(0).id();
  switch (market.phase()) {
    case v1::MOONLIGHT_PHASE_BID: return ChooseBid(market, legal);
    case v1::MOONLIGHT_PHASE_CHAIN: return ChooseChainMove(market, legal);
    default: return legal.Get(0).id();
  }
}

}  // namespace gavel::policy::dirk

GAVEL_REGISTER_DIRK(moonlight_market, ChooseMoonlightMarket)
