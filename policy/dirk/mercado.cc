// Dirk for Mercado (rules: docs/rules/mercado.md), computed from the seat's MercadoView
// and the printed edition data (tile prices, points and effects; the track).
//
// Worth of a displayed tile to Dirk: its points (a `rank` tile: Dirk's current rank; a
// `reveal` tile: 4), plus its buyer effects (+P 3.5, TURN 3, +S 1.5, +J 1, -F 0.5, +F -1),
// plus its effects on opponents (oppdiscard 1 if an opponent holds a privilege, opp+2F 0.5),
// plus the symbol the points would land Dirk on (a +3 counts 3 more). The Market Overseer
// is worth 2, the Coin Changer 1.5 (a joker placed at once).
// Dirk's pool: its gold..white coins in the bag, drawn and on its person tile.
//
// - Privilege: play one (the highest value first) when its move lands on an empty space
//   with a useful symbol (+P, +S, +J, +3, TURN, opp+F; -F when Dirk holds a counterfeit),
//   or in the last round (the end is triggered); otherwise keep them, since unused
//   privileges score their value at the end anyway.
// - Symbol after a privilege move: use it unless it is +F or opp+J.
// - Action: Action A while the bag holds at least 3 coins that are not counterfeit;
//   otherwise Action B (when legal).
// - Seal: use it whenever the bag still holds a coin that is not counterfeit (two more
//   coins to place are worth more than the seal's 1 point at the end).
// - Placing: each Place(coin, tile) is rated. Completing the tile rates 100 + its worth.
//   Otherwise the rating is worth / coins still missing (a joker 0.5 less: it fits anywhere
//   later), and below zero if more than 3 coins would still be missing or the price cannot
//   be completed from Dirk's pool. Dirk places the best-rated coin (ties: the first legal
//   move) and stops once the best rating is below 1 (the coin would be wasted there and is
//   better back in the bag).
// - Coin Changer's joker: the position where a joker rates best, as above.
// - Scoring: the pending tile with the highest worth first (ties: the lowest position).
// - Discarding (oppdiscard): the privilege of the lowest value (ties: the lowest type).
// Anything not covered falls back to the first legal move.
#include <algorithm>
#include <array>
#include <vector>

#include "policy/dirk/dirk.h"
#include "engine/core/proto_util.h"
#include "engine/mercado/mercado.h"
#include "engine/mercado/mercado_data.h"
#include "gavel/v1/mercado.pb.h"

namespace gavel::policy::dirk {
namespace {

namespace m = ::gavel::mercado;
using Coins = m::CoinCounts;

constexpr double kCompleteBonus = 100;
constexpr double kPlaceThreshold = 1.0;
constexpr int kMaxMissing = 3;

Coins ToCoins(const v1::MercadoCoins& c) {
  Coins out{};
  out[m::kGold] = static_cast<uint8_t>(std::min<uint32_t>(c.gold(), 255));
  out[m::kSilver] = static_cast<uint8_t>(std::min<uint32_t>(c.silver(), 255));
  out[m::kCopper] = static_cast<uint8_t>(std::min<uint32_t>(c.copper(), 255));
  out[m::kTurquoise] = static_cast<uint8_t>(std::min<uint32_t>(c.turquoise(), 255));
  out[m::kWhite] = static_cast<uint8_t>(std::min<uint32_t>(c.white(), 255));
  out[m::kBlack] = static_cast<uint8_t>(std::min<uint32_t>(c.black(), 255));
  return out;
}

int Useful(const Coins& c) {
  int total = 0;
  for (int coin = 0; coin < m::kPlaceable; ++coin) total += c[coin];
  return total;
}

const v1::MercadoSeat& Me(const v1::MercadoView& view) {
  return view.table().seats(view.seat());
}

int MyRank(const v1::MercadoView& view) {
  const v1::MercadoSeat& me = Me(view);
  int rank = 1;
  for (int s = 0; s < view.table().seats_size(); ++s) {
    const v1::MercadoSeat& them = view.table().seats(s);
    if (s != view.seat() && (them.progress() > me.progress() ||
                             (them.progress() == me.progress() &&
                              them.stack_height() > me.stack_height())))
      ++rank;
  }
  return rank;
}

bool OpponentHoldsPrivilege(const v1::MercadoView& view) {
  for (int s = 0; s < view.table().seats_size(); ++s)
    if (s != view.seat() && view.table().seats(s).privilege_count() > 0) return true;
  return false;
}

// The symbol Dirk would land on after moving `steps` (NONE when stacked or past the start).
m::Effect LandingSymbol(const v1::MercadoView& view, int steps) {
  const v1::MercadoTable& table = view.table();
  const int to = static_cast<int>(Me(view).progress()) + steps;
  if (steps <= 0 || to >= m::kSpaces) return m::kNoEffect;
  const int space = (static_cast<int>(table.start_space()) + to) % m::kSpaces;
  for (int s = 0; s < table.seats_size(); ++s) {
    if (s == view.seat()) continue;
    if ((table.start_space() + table.seats(s).progress()) % m::kSpaces ==
        static_cast<uint32_t>(space))
      return m::kNoEffect;
  }
  const int side = table.board_side() == v1::MERCADO_BOARD_SIDE_B ? 1 : 0;
  return m::TheEdition().tracks[side][space];
}

double EffectWorth(const v1::MercadoView& view, m::Effect effect) {
  switch (effect) {
    case m::kGainPrivilege: return 3.5;
    case m::kExtraTurn: return 3;
    case m::kGainSeal: return 1.5;
    case m::kGainJoker: return 1;
    case m::kLoseCounterfeit: return 0.5;
    case m::kGainCounterfeit: return -1;
    case m::kAdvanceThree: return 3;
    case m::kOpponentsCounterfeit: return 0.5;
    case m::kOpponentsJoker: return -0.5;
    case m::kOpponentsTwoCounterfeit: return 0.5;
    case m::kOpponentsDiscard: return OpponentHoldsPrivilege(view) ? 1 : 0;
    default: return 0;
  }
}

double TileWorth(const v1::MercadoView& view, int position) {
  if (position < 0 || position >= view.table().display_size()) return 0;
  const int id = static_cast<int>(view.table().display(position));
  if (id == m::kOverseer) return 2;
  if (id == m::kChanger) return 1.5;
  if (id < 0 || id >= m::kTiles) return 0;
  const m::TileData& tile = m::Tile(id);
  const int points = tile.points == m::kRankPoints     ? MyRank(view)
                     : tile.points == m::kRevealPoints ? 4
                                                       : tile.points;
  double worth = points + EffectWorth(view, LandingSymbol(view, points));
  for (m::Effect effect : tile.buyer) worth += EffectWorth(view, effect);
  for (m::Effect effect : tile.opponents) worth += EffectWorth(view, effect);
  return worth;
}

const m::Price* PriceAt(const v1::MercadoView& view, int position) {
  if (position < 0 || position >= view.table().display_size()) return nullptr;
  const uint32_t id = view.table().display(position);
  return id < static_cast<uint32_t>(m::kTiles) ? &m::Tile(static_cast<int>(id)).price : nullptr;
}

Coins EdgeAt(const v1::MercadoView& view, int position) {
  const v1::MercadoSeat& me = Me(view);
  return position < me.edges_size() ? ToCoins(me.edges(position)) : Coins{};
}

// Whether adding at most `missing` coins taken from `pool` (from colour `from` on) to
// `edge` completes `price`.
bool CanComplete(const m::Price& price, Coins edge, Coins pool, int missing, int from = 0) {
  if (missing == 0) return m::Completes(price, edge);
  for (int coin = from; coin < m::kPlaceable; ++coin) {
    if (pool[coin] == 0 || !m::MayPlace(price, edge, coin)) continue;
    ++edge[coin], --pool[coin];
    if (CanComplete(price, edge, pool, missing - 1, coin)) return true;
    --edge[coin], ++pool[coin];
  }
  return false;
}

// Dirk's pool of placeable coins: bag, drawn and person tile.
Coins Pool(const v1::MercadoView& view) {
  const Coins bag = ToCoins(Me(view).bag()), person = ToCoins(Me(view).person_tile()),
              drawn = ToCoins(view.table().drawn());
  Coins pool{};
  for (int coin = 0; coin < m::kPlaceable; ++coin)
    pool[coin] = static_cast<uint8_t>(bag[coin] + person[coin] + drawn[coin]);
  return pool;
}

// The rating of placing `coin` (0..4) on `position` (see the doc comment).
double RatePlacement(const v1::MercadoView& view, int coin, int position) {
  const m::Price* price = PriceAt(view, position);
  if (price == nullptr || coin < 0 || coin >= m::kPlaceable) return -10;
  Coins edge = EdgeAt(view, position);
  ++edge[coin];
  if (!m::Fits(*price, edge)) return -10;
  const double worth = TileWorth(view, position);
  if (m::Completes(*price, edge)) return kCompleteBonus + worth;
  const int missing = price->slots - m::CoinTotal(edge);
  Coins pool = Pool(view);
  if (pool[coin] > 0) --pool[coin];
  if (missing > kMaxMissing || !CanComplete(*price, edge, pool, missing)) return -1;
  return worth / missing - (coin == m::kWhite ? 0.5 : 0);
}

uint32_t ChoosePrivilege(const v1::MercadoView& view, const LegalMoves& legal) {
  uint32_t best = legal.Get(0).id();
  int best_value = 0;
  const bool has_counterfeit =
      Me(view).bag().black() + Me(view).person_tile().black() > 0;
  v1::MercadoMove detail;  // one message for every move: parsed into, not allocated per move
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_play_privilege()) continue;
    const int type = static_cast<int>(detail.play_privilege().type());
    if (type < 0 || type >= m::kPrivilegeTypes) continue;
    const int value = m::Privilege(type).value;
    const m::Effect symbol = LandingSymbol(view, value);
    const bool useful = symbol == m::kGainPrivilege || symbol == m::kGainSeal ||
                        symbol == m::kGainJoker || symbol == m::kAdvanceThree ||
                        symbol == m::kExtraTurn || symbol == m::kOpponentsCounterfeit ||
                        (symbol == m::kLoseCounterfeit && has_counterfeit);
    if ((useful || view.table().end_triggered()) && value > best_value) best_value = value, best = move.id();
  }
  if (best_value > 0) return best;
  for (const v1::Move& move : legal) {
    if (TryUnpack(move.detail(), &detail) && detail.has_no_privilege()) return move.id();
  }
  return legal.Get(0).id();
}

// The legal move whose detail has the given oneof case, or `fallback`.
uint32_t Find(const LegalMoves& legal, v1::MercadoMove::MoveCase which, uint32_t fallback) {
  v1::MercadoMove detail;
  for (const v1::Move& move : legal) {
    if (TryUnpack(move.detail(), &detail) && detail.move_case() == which) return move.id();
  }
  return fallback;
}

uint32_t ChooseSymbol(const v1::MercadoView& view, const LegalMoves& legal) {
  const int side = view.table().board_side() == v1::MERCADO_BOARD_SIDE_B ? 1 : 0;
  const int space =
      static_cast<int>((view.table().start_space() + Me(view).progress()) % m::kSpaces);
  const m::Effect here = m::TheEdition().tracks[side][space];
  const bool skip = here == m::kGainCounterfeit || here == m::kOpponentsJoker;
  return Find(legal, skip ? v1::MercadoMove::kSkipSymbol : v1::MercadoMove::kUseSymbol,
              legal.Get(0).id());
}

uint32_t ChooseAction(const v1::MercadoView& view, const LegalMoves& legal) {
  const bool prefer_a = Useful(ToCoins(Me(view).bag())) >= 3;
  const uint32_t a = Find(legal, v1::MercadoMove::kActionA, legal.Get(0).id());
  const uint32_t b = Find(legal, v1::MercadoMove::kActionB, a);
  return prefer_a ? Find(legal, v1::MercadoMove::kActionA, b) : b;
}

uint32_t ChooseSeal(const v1::MercadoView& view, const LegalMoves& legal) {
  const bool use = Useful(ToCoins(Me(view).bag())) > 0;
  return Find(legal, use ? v1::MercadoMove::kUseSeal : v1::MercadoMove::kNoSeal,
              legal.Get(0).id());
}

uint32_t ChoosePlace(const v1::MercadoView& view, const LegalMoves& legal) {
  uint32_t best = legal.Get(0).id();
  double best_rating = -1e9;
  bool any_place = false;
  v1::MercadoMove detail;
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_place()) continue;
    const double rating = RatePlacement(view, static_cast<int>(detail.place().coin()) - 1,
                                        static_cast<int>(detail.place().position()));
    if (!any_place || rating > best_rating) best_rating = rating, best = move.id();
    any_place = true;
  }
  if (!any_place || best_rating < kPlaceThreshold)
    return Find(legal, v1::MercadoMove::kStop, best);
  return best;
}

uint32_t ChooseJoker(const v1::MercadoView& view, const LegalMoves& legal) {
  uint32_t best = legal.Get(0).id();
  double best_rating = -1e9;
  v1::MercadoMove detail;
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_place_joker()) continue;
    const double rating =
        RatePlacement(view, m::kWhite, static_cast<int>(detail.place_joker().position()));
    if (rating > best_rating) best_rating = rating, best = move.id();
  }
  return best;
}

uint32_t ChooseScore(const v1::MercadoView& view, const LegalMoves& legal) {
  uint32_t best = legal.Get(0).id();
  double best_worth = -1e9;
  v1::MercadoMove detail;
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_score()) continue;
    const double worth = TileWorth(view, static_cast<int>(detail.score().position()));
    if (worth > best_worth) best_worth = worth, best = move.id();
  }
  return best;
}

uint32_t ChooseDiscard(const LegalMoves& legal) {
  uint32_t best = legal.Get(0).id();
  int lowest = 1 << 20;
  v1::MercadoMove detail;
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_discard_privilege()) continue;
    const int type = static_cast<int>(detail.discard_privilege().type());
    if (type < 0 || type >= m::kPrivilegeTypes) continue;
    if (m::Privilege(type).value < lowest) lowest = m::Privilege(type).value, best = move.id();
  }
  return best;
}

}  // namespace

uint32_t ChooseMercado(const v1::View& view, const LegalMoves& legal) {
  PooledScratch<v1::MercadoView> scratch;  // reused: no allocation per decision in a play-out
  v1::MercadoView& mercado = *scratch;
  if (!scratch.Unpack(view.view(), "view").ok() || mercado.seat() < 0 ||
      mercado.seat() >= mercado.table().seats_size() ||
      mercado.table().display_size() != m::kPositions)
    return legal.Get(0).id();
  switch (mercado.table().phase()) {
    case v1::MERCADO_PHASE_PRIVILEGE: return ChoosePrivilege(mercado, legal);
    case v1::MERCADO_PHASE_SYMBOL: return ChooseSymbol(mercado, legal);
    case v1::MERCADO_PHASE_ACTION: return ChooseAction(mercado, legal);
    case v1::MERCADO_PHASE_SEAL: return ChooseSeal(mercado, legal);
    case v1::MERCADO_PHASE_PLACE: return ChoosePlace(mercado, legal);
    case v1::MERCADO_PHASE_JOKER: return ChooseJoker(mercado, legal);
    case v1::MERCADO_PHASE_SCORE: return ChooseScore(mercado, legal);
    case v1::MERCADO_PHASE_DISCARD: return ChooseDiscard(legal);
    default: return legal.Get(0).id();
  }
}

}  // namespace gavel::policy::dirk

GAVEL_REGISTER_DIRK(mercado, ChooseMercado)
