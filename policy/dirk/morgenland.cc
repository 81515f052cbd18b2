// Dirk for Morgenland (rules: docs/rules/morgenland.md), computed from the seat's
// MorgenlandView. Moves are read by their ids (see proto/gavel/v1/morgenland.proto).
//
// Artifacts are the score, so Dirk plays for cheap artifacts: a token in each room it can
// pay for, one strong token at the gate, the rest on the caves for income.
// - Starting picks: all three units of one kind (the kind already picked most, ties the
//   lowest kind), so that an early room token of 2 or 3 can be paid.
// - Placement (one token per turn, in this order of preference):
//   1. Rooms: a room with an artifact for sale where Dirk has no token yet (the room with
//      fewest opponent tokens first, ties the lowest room). Its budget is the units not
//      already promised to Dirk's other room tokens, shared evenly over the rooms still
//      open to it; Dirk places its highest hand token within that share that one kind
//      still covers. While Dirk has no gate token, its highest hand token is kept back.
//   2. Gate: once Dirk has a room token, its highest hand token goes to the gate (one gate
//      token; with a 9 the bribe is at most 1 unit).
//   3. Caves: the cave with the best shelf for Dirk, where it has no token yet: the top
//      shelf when no opponent is there, else the mean of the top two shelves. An
//      uncontested cave gets Dirk's lowest hand token, a contested one its highest.
//   4. Then the MARKET, then the CARAVAN, then strengthening the contested cave with the
//      biggest top shelf; else the first legal placement.
//   Dirk never takes magic actions while placing.
// - Tally windows: pass, except at the gate when Dirk has a room token and is not entering:
//   invoke the Key, else a Flying Carpet or a Double that makes it enter; and in a room
//   where Dirk ties or trails by at most 2 and can still pay with a carpet added: a Carpet.
// - Counter and buyer windows: pass.
// - Gate bribe: pay it when Dirk has a token in a room with an artifact for sale.
// - Room offer: buy whenever the engine allows it.
// - Units paid (bribe, taxes, Trade, the MARKET return) and room payment kinds: the kind
//   that keeps the most of Dirk's remaining room purchases payable; ties the kind Dirk
//   holds most of, then the lowest kind. Units taken: the kind Dirk holds most of.
// - MARKET: always return one unit for three, when legal.
// - CARAVAN: take the camel (name itself when it chooses).
// - TENT: keep Charity if drawn, else the first card offered.
// - City Tax: set the token aside; Sultan's Tax: pay while Dirk has room tokens.
// - Anything else (spell choices): the first legal move.
#include <algorithm>
#include <array>
#include <vector>

#include "policy/dirk/dirk.h"
#include "engine/core/proto_util.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::policy::dirk {
namespace {

using Units = std::array<int, 5>;

constexpr int kCaves = 5;
constexpr int kMarket = 7, kCaravan = 8, kGate = 9, kRoom1 = 10;
constexpr uint32_t kPass = 10, kAccept = 11, kNameBase = 20, kPlaceBase = 30;
constexpr uint32_t kInvokeCarpet = 153, kInvokeKey = 154, kDoubleBase = 160, kKeepBase = 180;
constexpr int kCharity = 2, kCarpetValue = 3;

struct Ctx {
  const v1::MorgenlandView& view;
  const v1::MorgenlandSeatView& me;
  const LegalMoves& legal;
};

bool IsLegal(const LegalMoves& legal, uint32_t id) {
  for (const v1::Move& move : legal)
    if (move.id() == id) return true;
  return false;
}

Units ToUnits(const v1::MorgenlandUnits& units) {
  Units out{};
  for (int k = 0; k < kCaves && k < units.units_size(); ++k) out[k] = units.units(k);
  return out;
}

int Sum(const Units& units) {
  int total = 0;
  for (int u : units) total += std::max(0, u);
  return total;
}

bool IsRoomSpace(const Ctx& c, int space) {
  return space >= kRoom1 && space - kRoom1 < c.view.rooms_size() &&
         space - kRoom1 < static_cast<int>(c.view.players());
}

bool ForSale(const Ctx& c, int space) {
  if (!IsRoomSpace(c, space)) return false;
  const auto& room = c.view.rooms(space - kRoom1);
  return c.view.pro() ? room.face_up() >= 0 : room.stack_size() > 0;
}

// Dirk's payment items in `space`: token values (a Double copy repeats it) and carpets.
std::vector<int> Items(const Ctx& c, int space) {
  std::vector<int> items;
  for (const auto& t : c.me.tokens())
    if (t.space() == space)
      for (uint32_t i = 0; i <= t.copies(); ++i) items.push_back(static_cast<int>(t.value()));
  if (space < c.me.carpets().units_size())
    for (int i = 0; i < c.me.carpets().units(space); ++i) items.push_back(kCarpetValue);
  std::sort(items.rbegin(), items.rend());
  return items;
}

// Pays `items` (one kind each) from `units` by best fit; false (units unchanged) if it cannot.
bool Commit(std::vector<int> items, Units& units) {
  std::sort(items.rbegin(), items.rend());
  Units left = units;
  uint32_t used = 0;
  for (int item : items) {
    int best = -1;
    for (int k = 0; k < kCaves; ++k)
      if (!(used >> k & 1) && left[k] >= item && (best < 0 || left[k] < left[best])) best = k;
    if (best < 0) return false;
    left[best] -= item;
    used |= 1u << best;
  }
  units = left;
  return true;
}

// How many of Dirk's rooms from `first` on it could pay for, in order, out of `units`.
int PayableRooms(const Ctx& c, Units units, int first) {
  int payable = 0;
  for (int space = first; IsRoomSpace(c, space); ++space) {
    if (!ForSale(c, space)) continue;
    const std::vector<int> items = Items(c, space);
    if (!items.empty() && Commit(items, units)) ++payable;
  }
  return payable;
}

bool HasRoomToken(const Ctx& c) {
  for (const auto& t : c.me.tokens())
    if (ForSale(c, t.space())) return true;
  return false;
}

int MyStrength(const Ctx& c, int space) {
  int strength = 0;
  for (int item : Items(c, space)) strength += item;
  return strength;
}

// Best strength of an opponent in `space` (hidden tokens count as 0) and how many tokens.
int OpponentStrength(const Ctx& c, int space, int* tokens = nullptr) {
  int best = 0, count = 0;
  for (int seat = 0; seat < c.view.seats_size(); ++seat) {
    if (seat == c.view.seat()) continue;
    const auto& s = c.view.seats(seat);
    int strength = 0;
    for (const auto& t : s.tokens())
      if (t.space() == space) strength += static_cast<int>(t.value() * (1 + t.copies())), ++count;
    if (space < s.carpets().units_size()) strength += kCarpetValue * s.carpets().units(space);
    if (s.smuggler_spaces() >> space & 1) strength += kCarpetValue;
    best = std::max(best, strength);
  }
  if (tokens) *tokens = count;
  return best;
}

// The payment-like choice of one unit kind among the legal Kind moves: keep Dirk's room
// purchases (from room `first` on) payable, then the kind held most, then the lowest kind.
uint32_t ChooseKindToPay(const Ctx& c, int amount, int first) {
  const Units held = ToUnits(c.me.treasure());
  int best = -1, best_rooms = -1;
  for (int k = 0; k < kCaves; ++k) {
    if (!IsLegal(c.legal, static_cast<uint32_t>(k))) continue;
    Units after = held;
    after[k] -= amount;
    const int rooms = PayableRooms(c, after, first);
    if (rooms > best_rooms || (rooms == best_rooms && held[k] > held[best]))
      best = k, best_rooms = rooms;
  }
  return best < 0 ? c.legal.Get(0).id() : static_cast<uint32_t>(best);
}

uint32_t ChooseKindToTake(const Ctx& c) {
  const Units held = ToUnits(c.me.treasure());
  int best = -1;
  for (int k = 0; k < kCaves; ++k)
    if (IsLegal(c.legal, static_cast<uint32_t>(k)) && (best < 0 || held[k] > held[best])) best = k;
  return best < 0 ? c.legal.Get(0).id() : static_cast<uint32_t>(best);
}

uint32_t ChoosePick(const Ctx& c) {
  const Units start = ToUnits(c.me.start());
  int best = -1;
  for (int k = 0; k < kCaves; ++k)
    if (IsLegal(c.legal, static_cast<uint32_t>(k)) && (best < 0 || start[k] > start[best])) best = k;
  return best < 0 ? c.legal.Get(0).id() : static_cast<uint32_t>(best);
}

// ---- Placement

uint32_t PlaceId(int token, int space) { return kPlaceBase + 15 * static_cast<uint32_t>(token) + space; }

struct Hand {
  std::vector<std::pair<int, int>> tokens;  // (value, index), highest value first
};

Hand HandOf(const Ctx& c) {
  Hand hand;
  for (const auto& t : c.me.tokens())
    if (t.space() == -1) hand.tokens.push_back({static_cast<int>(t.value()), static_cast<int>(t.index())});
  std::sort(hand.tokens.rbegin(), hand.tokens.rend());
  return hand;
}

bool HasToken(const Ctx& c, int space) {
  for (const auto& t : c.me.tokens())
    if (t.space() == space) return true;
  return false;
}

// Rule 1: a room token within its share of the budget.
int PlaceInRoom(const Ctx& c, const Hand& hand) {
  const bool keep_for_gate = !HasToken(c, kGate);
  Units budget = ToUnits(c.me.treasure());
  for (int space = kRoom1; IsRoomSpace(c, space); ++space)
    if (ForSale(c, space) && HasToken(c, space)) Commit(Items(c, space), budget);
  std::vector<std::pair<int, int>> open;  // (opponent tokens, space)
  for (int space = kRoom1; IsRoomSpace(c, space); ++space) {
    if (!ForSale(c, space) || HasToken(c, space)) continue;
    int tokens = 0;
    OpponentStrength(c, space, &tokens);
    open.push_back({tokens, space});
  }
  if (open.empty()) return -1;
  std::sort(open.begin(), open.end());
  const int share = Sum(budget) / static_cast<int>(open.size());
  const int widest = *std::max_element(budget.begin(), budget.end());
  for (const auto& [tokens, space] : open) {
    for (size_t i = keep_for_gate ? 1 : 0; i < hand.tokens.size(); ++i) {
      const auto [value, index] = hand.tokens[i];
      if (value > share || value > widest) continue;
      const uint32_t id = PlaceId(index, space);
      if (IsLegal(c.legal, id)) return static_cast<int>(id);
    }
  }
  return -1;
}

// Rule 2: the gate gets the highest hand token.
int PlaceAtGate(const Ctx& c, const Hand& hand) {
  if (HasToken(c, kGate) || !HasRoomToken(c) || hand.tokens.empty()) return -1;
  const uint32_t id = PlaceId(hand.tokens.front().second, kGate);
  return IsLegal(c.legal, id) ? static_cast<int>(id) : -1;
}

double CaveScore(const Ctx& c, int cave, bool* contested) {
  if (cave >= c.view.shelves_size()) return -1;
  const auto& shelves = c.view.shelves(cave);
  const int top = shelves.units_size() > 0 ? shelves.units(0) : 0;
  const int second = shelves.units_size() > 1 ? shelves.units(1) : 0;
  int tokens = 0;
  OpponentStrength(c, cave, &tokens);
  *contested = tokens > 0;
  return *contested ? (top + second) / 2.0 : top;
}

// Rule 3: the best cave Dirk is not in yet.
int PlaceInCave(const Ctx& c, const Hand& hand) {
  int best_cave = -1;
  bool best_contested = false;
  double best = 0;
  for (int cave = 0; cave < kCaves; ++cave) {
    if (HasToken(c, cave)) continue;
    bool contested = false;
    const double score = CaveScore(c, cave, &contested);
    if (score > best && IsLegal(c.legal, PlaceId(hand.tokens.front().second, cave)))
      best = score, best_cave = cave, best_contested = contested;
  }
  if (best_cave < 0) return -1;
  const int index = best_contested ? hand.tokens.front().second : hand.tokens.back().second;
  const uint32_t id = PlaceId(index, best_cave);
  return IsLegal(c.legal, id) ? static_cast<int>(id) : -1;
}

// Rule 4: the market, the caravan, then the contested cave with the biggest top shelf.
int PlaceElsewhere(const Ctx& c, const Hand& hand) {
  const int low = hand.tokens.back().second;
  for (int space : {kMarket, kCaravan})
    if (!HasToken(c, space) && IsLegal(c.legal, PlaceId(low, space))) return static_cast<int>(PlaceId(low, space));
  int best_cave = -1, best = 0;
  for (int cave = 0; cave < kCaves && cave < c.view.shelves_size(); ++cave) {
    int tokens = 0;
    OpponentStrength(c, cave, &tokens);
    const int top = c.view.shelves(cave).units_size() > 0 ? c.view.shelves(cave).units(0) : 0;
    if (tokens > 0 && top > best && IsLegal(c.legal, PlaceId(low, cave))) best = top, best_cave = cave;
  }
  return best_cave < 0 ? -1 : static_cast<int>(PlaceId(low, best_cave));
}

uint32_t FirstPlacement(const Ctx& c) {
  for (const v1::Move& move : c.legal)
    if (move.id() >= kPlaceBase && move.id() < 150) return move.id();
  return c.legal.Get(0).id();
}

uint32_t ChoosePlacement(const Ctx& c) {
  const Hand hand = HandOf(c);
  if (hand.tokens.empty()) return FirstPlacement(c);
  for (int (*rule)(const Ctx&, const Hand&) : {&PlaceInRoom, &PlaceAtGate, &PlaceInCave, &PlaceElsewhere}) {
    const int id = rule(c, hand);
    if (id >= 0) return static_cast<uint32_t>(id);
  }
  return FirstPlacement(c);
}

// ---- Windows and decisions

uint32_t PassOrFirst(const Ctx& c) { return IsLegal(c.legal, kPass) ? kPass : c.legal.Get(0).id(); }

uint32_t GateWindow(const Ctx& c) {
  const int strength = MyStrength(c, kGate);
  if (c.me.entered() || c.view.guard() <= 0 || strength >= c.view.guard() || !HasRoomToken(c))
    return kPass;
  if (IsLegal(c.legal, kInvokeKey)) return kInvokeKey;
  if (strength + kCarpetValue >= c.view.guard() && IsLegal(c.legal, kInvokeCarpet)) return kInvokeCarpet;
  for (const auto& t : c.me.tokens()) {
    const uint32_t id = kDoubleBase + t.index();
    if (t.space() == kGate && strength + static_cast<int>(t.value()) >= c.view.guard() && IsLegal(c.legal, id))
      return id;
  }
  return kPass;
}

uint32_t RoomWindow(const Ctx& c, int space) {
  if (!IsLegal(c.legal, kInvokeCarpet) || !ForSale(c, space) || !HasToken(c, space)) return kPass;
  const int mine = MyStrength(c, space), theirs = OpponentStrength(c, space);
  if (mine > theirs || mine + kCarpetValue <= theirs) return kPass;
  std::vector<int> items = Items(c, space);
  items.push_back(kCarpetValue);
  Units units = ToUnits(c.me.treasure());
  return Commit(items, units) ? kInvokeCarpet : kPass;
}

uint32_t ChooseWindow(const Ctx& c) {
  if (!IsLegal(c.legal, kPass)) return c.legal.Get(0).id();
  if (c.view.space() == kGate) return GateWindow(c);
  if (IsRoomSpace(c, c.view.space())) return RoomWindow(c, c.view.space());
  return kPass;
}

uint32_t ChooseBribe(const Ctx& c) {
  return HasRoomToken(c) && IsLegal(c.legal, kAccept) ? kAccept : PassOrFirst(c);
}

uint32_t ChooseTent(const Ctx& c) {
  if (IsLegal(c.legal, kKeepBase + kCharity)) return kKeepBase + kCharity;
  return c.legal.Get(0).id();
}

uint32_t ChooseCaravan(const Ctx& c) {
  const uint32_t self = kNameBase + static_cast<uint32_t>(c.view.seat());
  if (IsLegal(c.legal, self)) return self;
  return IsLegal(c.legal, kAccept) ? kAccept : c.legal.Get(0).id();
}

uint32_t ChooseTax(const Ctx& c) {
  const bool pay = c.view.purpose() == v1::MORGENLAND_PURPOSE_SULTANS_TAX && HasRoomToken(c);
  return pay && IsLegal(c.legal, kAccept) ? kAccept : PassOrFirst(c);
}

uint32_t ChooseMarket(const Ctx& c) {
  const uint32_t kind = ChooseKindToPay(c, 1, kRoom1);
  return kind < kCaves ? kind : PassOrFirst(c);
}

uint32_t ChooseRoomPay(const Ctx& c) {
  const int item = c.view.items_size() > 0 ? static_cast<int>(c.view.items(0)) : 1;
  return ChooseKindToPay(c, item, c.view.space() + 1);
}

}  // namespace

uint32_t ChooseMorgenland(const v1::View& view, const LegalMoves& legal) {
  PooledScratch<v1::MorgenlandView> scratch;  // reused: no allocation per decision in a play-out
  v1::MorgenlandView& mv = *scratch;
  if (legal.empty()) return 0;
  if (!scratch.Unpack(view.view(), "view").ok() || mv.seat() < 0 || mv.seat() >= mv.seats_size()) return legal.Get(0).id();
  const Ctx c{mv, mv.seats(mv.seat()), legal};
  switch (mv.phase()) {
    case v1::MORGENLAND_PHASE_PICK: return ChoosePick(c);
    case v1::MORGENLAND_PHASE_PLACE: return ChoosePlacement(c);
    case v1::MORGENLAND_PHASE_WINDOW: return ChooseWindow(c);
    case v1::MORGENLAND_PHASE_BRIBE: return ChooseBribe(c);
    case v1::MORGENLAND_PHASE_PAY: return ChooseKindToPay(c, 1, kRoom1);
    case v1::MORGENLAND_PHASE_TAKE: return ChooseKindToTake(c);
    case v1::MORGENLAND_PHASE_MARKET: return ChooseMarket(c);
    case v1::MORGENLAND_PHASE_CARAVAN: return ChooseCaravan(c);
    case v1::MORGENLAND_PHASE_TENT: return ChooseTent(c);
    case v1::MORGENLAND_PHASE_OFFER: return IsLegal(legal, kAccept) ? kAccept : PassOrFirst(c);
    case v1::MORGENLAND_PHASE_ROOM_PAY: return ChooseRoomPay(c);
    case v1::MORGENLAND_PHASE_TAX: return ChooseTax(c);
    case v1::MORGENLAND_PHASE_COUNTER:
    case v1::MORGENLAND_PHASE_BUYER: return PassOrFirst(c);
    default: return legal.Get(0).id();
  }
}

}  // namespace gavel::policy::dirk

GAVEL_REGISTER_DIRK(morgenland, ChooseMorgenland)
