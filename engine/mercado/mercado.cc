// Mercado's rules: prices, the track, the turn sequence with its chance events, scoring.
#include "engine/mercado/mercado.h"

#include <algorithm>
#include <bit>
#include <bitset>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/core/encoded_moves.h"
#include "engine/core/proto_util.h"
#include "gavel/v1/mercado.pb.h"

namespace gavel::mercado {
namespace {

// Draws one tile uniformly from a deck (a set of bits), first turning the discards into a
// new deck when it is empty. Returns the tile's index within the deck.
template <typename Bits>
int DrawFromDeck(Bits& deck, Bits& discards, Rng& rng, bool* reshuffled) {
  if (deck == 0) {
    deck = discards;
    discards = 0;
    *reshuffled = true;
  }
  const int index = rng.PickMember(deck);
  deck = static_cast<Bits>(deck & ~(Bits{1} << index));
  return index;
}

v1::MercadoCoin ToCoinProto(int coin) { return static_cast<v1::MercadoCoin>(coin + 1); }

std::string CoinsText(const CoinCounts& coins) {
  std::vector<std::string> parts;
  for (int coin = 0; coin < kCoinKinds; ++coin)
    if (coins[coin] > 0) parts.push_back(absl::StrCat(coins[coin], " ", CoinName(coin)));
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

void PrivilegeToProto(int type, v1::MercadoPrivilege* out) {
  out->set_type(type);
  out->set_value(Privilege(type).value);
  out->set_extra(static_cast<v1::MercadoEffect>(Privilege(type).extra));
}

// One price group's assignment so far.
struct GroupFill {
  uint8_t used = 0;
  int8_t colour = -1;     // kSame: the colour chosen by the first non-white coin
  uint8_t colours = 0;    // kDifferent: bit mask of non-white colours
};

// Assigns coins[i..n) to free slots of `price`'s groups; a tiny exhaustive search.
bool Assign(const Price& price, const uint8_t* coins, int n, int i,
            std::array<GroupFill, kMaxGroups>& fill) {
  if (i == n) return true;
  const int coin = coins[i];
  const bool white = coin == kWhite;
  for (int g = 0; g < price.group_count; ++g) {
    const PriceGroup& group = price.groups[g];
    GroupFill& at = fill[g];
    if (at.used == group.slots) continue;
    switch (group.kind) {
      case Group::kFixed:
        if (!white && coin != group.colour) continue;
        break;
      case Group::kSame:
        if (!white && at.colour >= 0 && at.colour != coin) continue;
        break;
      case Group::kDifferent:
        if (!white && (at.colours >> coin & 1)) continue;
        break;
      case Group::kJoker:
        if (!white) continue;
        break;
    }
    const GroupFill saved = at;
    ++at.used;
    if (!white && group.kind == Group::kSame) at.colour = static_cast<int8_t>(coin);
    if (!white && group.kind == Group::kDifferent) at.colours |= static_cast<uint8_t>(1 << coin);
    const bool ok = Assign(price, coins, n, i + 1, fill);
    at = saved;
    if (ok) return true;
  }
  return false;
}

}  // namespace

int CoinTotal(const CoinCounts& coins) {
  int total = 0;
  for (uint8_t count : coins) total += count;
  return total;
}

void CoinsToProto(const CoinCounts& coins, v1::MercadoCoins* out) {
  out->set_gold(coins[kGold]);
  out->set_silver(coins[kSilver]);
  out->set_copper(coins[kCopper]);
  out->set_turquoise(coins[kTurquoise]);
  out->set_white(coins[kWhite]);
  out->set_black(coins[kBlack]);
}

bool Fits(const Price& price, const CoinCounts& coins) {
  if (coins[kBlack] > 0 || CoinTotal(coins) > price.slots) return false;
  std::array<uint8_t, kMaxSlots> list{};
  int n = 0;
  for (int coin = 0; coin < kPlaceable; ++coin)
    for (int i = 0; i < coins[coin]; ++i) list[n++] = static_cast<uint8_t>(coin);
  std::array<GroupFill, kMaxGroups> fill{};
  return Assign(price, list.data(), n, 0, fill);
}

namespace {

// Placeable coins within a price's kMaxSlots slots, each kind's count below kCountBase, as a
// number below kCoinSets.
constexpr int kCountBase = kMaxSlots + 1;
constexpr int kCoinSets = [] {
  int sets = 1;
  for (int coin = 0; coin < kPlaceable; ++coin) sets *= kCountBase;
  return sets;
}();

int CoinSetIndex(const CoinCounts& coins) {
  int index = 0;
  for (int coin = kPlaceable - 1; coin >= 0; --coin) index = index * kCountBase + coins[coin];
  return index;
}

// For each tile, which coin sets within its slots fit its price (by CoinSetIndex).
using FittingSets = std::array<std::bitset<kCoinSets>, kTiles>;
const FittingSets& FittingSetsOfTheTiles() {
  static const FittingSets* const table = [] {
    auto* sets = new FittingSets;
    for (int tile = 0; tile < kTiles; ++tile) {
      const Price& price = Tile(tile).price;
      for (int index = 0; index < kCoinSets; ++index) {
        CoinCounts coins{};
        for (int coin = 0, rest = index; coin < kPlaceable; ++coin, rest /= kCountBase)
          coins[coin] = static_cast<uint8_t>(rest % kCountBase);
        (*sets)[tile][index] = Fits(price, coins);
      }
    }
    return sets;
  }();
  return *table;
}

}  // namespace

bool TileFits(int tile, const CoinCounts& coins) {
  if (coins[kBlack] > 0 || CoinTotal(coins) > Tile(tile).price.slots) return false;
  static_assert(kMaxSlots < kCountBase, "a count within the slots is one digit of the index");
  return FittingSetsOfTheTiles()[tile][CoinSetIndex(coins)];
}

namespace {

// `coins` with one `coin` more, or nothing where `coin` is not a placeable kind.
std::optional<CoinCounts> WithCoin(const CoinCounts& coins, int coin) {
  if (coin < 0 || coin >= kPlaceable) return std::nullopt;
  CoinCounts with = coins;
  ++with[coin];
  return with;
}

bool FillsTheSlots(const Price& price, const CoinCounts& coins) { return CoinTotal(coins) == price.slots; }

}  // namespace

bool Completes(const Price& price, const CoinCounts& coins) {
  return FillsTheSlots(price, coins) && Fits(price, coins);
}

bool MayPlace(const Price& price, const CoinCounts& coins, int coin) {
  const std::optional<CoinCounts> with = WithCoin(coins, coin);
  return with && Fits(price, *with);
}

int RankOf(const Data& data, int seat) {
  const SeatData& me = data.seats[seat];
  int rank = 1;
  for (int other = 0; other < data.players; ++other) {
    const SeatData& them = data.seats[other];
    if (other != seat && (them.progress > me.progress ||
                          (them.progress == me.progress && them.height > me.height)))
      ++rank;
  }
  return rank;
}

int PrivilegeCount(const PrivilegeCounts& counts) {
  int total = 0;
  for (uint8_t count : counts) total += count;
  return total;
}

int PrivilegeValue(const PrivilegeCounts& counts) {
  int total = 0;
  for (int type = 0; type < kPrivilegeTypes; ++type) total += counts[type] * Privilege(type).value;
  return total;
}

Seat MercadoState::to_move() const {
  switch (data_.phase) {
    case Phase::kFinished:
      return kNoSeat;
    case Phase::kDiscard:
      return data_.discarder;
    default:
      return data_.active;
  }
}

bool MercadoState::CanPlace(int coin, int position) const {
  const std::optional<CoinCounts> with = WithCoin(data_.seats[data_.active].edges[position], coin);
  return with && TileFits(data_.display[position], *with);
}

bool MercadoState::CanPlaceAny() const {
  for (int coin = 0; coin < kPlaceable; ++coin) {
    if (data_.drawn[coin] == 0) continue;
    for (int position = 0; position < kPositions; ++position)
      if (CanPlace(coin, position)) return true;
  }
  return false;
}

bool MercadoState::IsPending(int position) const {
  const int tile = data_.display[position];
  const CoinCounts& coins = data_.seats[data_.active].edges[position];
  return FillsTheSlots(Tile(tile).price, coins) && TileFits(tile, coins);
}

void MercadoState::LegalMoves(std::vector<Move>& out) const {
  out.clear();
  const SeatData& seat = data_.seats[data_.active];
  switch (data_.phase) {
    case Phase::kPrivilege:
      out.push_back(Move{kNoPrivilege});
      for (int type = 0; type < kPrivilegeTypes; ++type)
        if (seat.privileges[type] > 0) out.push_back(PlayPrivilegeMove(type));
      return;
    case Phase::kSymbol:
      out.push_back(Move{kUseSymbol});
      out.push_back(Move{kSkipSymbol});
      return;
    case Phase::kAction:
      if (CoinTotal(seat.bag) >= 3) out.push_back(Move{kActionA});
      if (CoinTotal(seat.person) > 0) out.push_back(Move{kActionB});
      return;
    case Phase::kSeal:
      out.push_back(Move{kUseSeal});
      out.push_back(Move{kNoSeal});
      return;
    case Phase::kPlace:
      if (data_.placed_this_turn) out.push_back(Move{kStop});
      for (int coin = 0; coin < kPlaceable; ++coin) {
        if (data_.drawn[coin] == 0) continue;
        for (int position = 0; position < kPositions; ++position)
          if (CanPlace(coin, position)) out.push_back(PlaceMove(coin, position));
      }
      return;
    case Phase::kJoker:
      for (int position = 0; position < kPositions; ++position)
        if (position != kChangerPosition && CanPlace(kWhite, position))
          out.push_back(PlaceJokerMove(position));
      return;
    case Phase::kScore:
      for (int position = 0; position < kPositions; ++position)
        if (IsPending(position)) out.push_back(ScoreMove(position));
      return;
    case Phase::kDiscard:
      for (int type = 0; type < kPrivilegeTypes; ++type)
        if (data_.seats[data_.discarder].privileges[type] > 0) out.push_back(DiscardMove(type));
      return;
    case Phase::kFinished:
      return;
  }
}

bool MercadoState::IsLegal(Move move) const {
  const uint32_t id = move.id;
  const SeatData& seat = data_.seats[data_.active];
  switch (data_.phase) {
    case Phase::kPrivilege:
      return id == kNoPrivilege || (id >= kPlayPrivilegeBase && id < kDiscardBase &&
                                    seat.privileges[id - kPlayPrivilegeBase] > 0);
    case Phase::kSymbol:
      return id == kUseSymbol || id == kSkipSymbol;
    case Phase::kAction:
      return (id == kActionA && CoinTotal(seat.bag) >= 3) ||
             (id == kActionB && CoinTotal(seat.person) > 0);
    case Phase::kSeal:
      return id == kUseSeal || id == kNoSeal;
    case Phase::kPlace: {
      if (id == kStop) return data_.placed_this_turn;
      if (id < kPlaceBase || id >= kMoveLimit) return false;
      const int coin = static_cast<int>(id - kPlaceBase) / 8, position = (id - kPlaceBase) % 8;
      return data_.drawn[coin] > 0 && CanPlace(coin, position);
    }
    case Phase::kJoker:
      return id >= kPlaceJokerBase && id < kPlaceJokerBase + kPositions &&
             id - kPlaceJokerBase != kChangerPosition &&
             CanPlace(kWhite, static_cast<int>(id - kPlaceJokerBase));
    case Phase::kScore:
      return id >= kScoreBase && id < kScoreBase + kPositions &&
             IsPending(static_cast<int>(id - kScoreBase));
    case Phase::kDiscard:
      return id >= kDiscardBase && id < kDiscardBase + kPrivilegeTypes &&
             data_.seats[data_.discarder].privileges[id - kDiscardBase] > 0;
    case Phase::kFinished:
      return false;
  }
  return false;
}

void MercadoState::ApplyLegal(Move move, EventSink* events) {
  const uint32_t id = move.id;
  switch (data_.phase) {
    case Phase::kPrivilege: return ApplyPrivilegeChoice(id, events);
    case Phase::kSymbol: return ApplySymbolChoice(id, events);
    case Phase::kAction: return ApplyActionChoice(id, events);
    case Phase::kSeal: return ApplySealChoice(id, events);
    case Phase::kPlace: return ApplyPlacement(id, events);
    case Phase::kJoker: return ApplyJokerPlacement(id, events);
    case Phase::kScore: return ScoreTile(static_cast<int>(id - kScoreBase), events);
    case Phase::kDiscard: return ApplyDiscard(id, events);
    case Phase::kFinished: return;
  }
}

// A privilege played (its value in steps, then its extra), or none.
void MercadoState::ApplyPrivilegeChoice(uint32_t id, EventSink* events) {
  const int active = data_.active;
  SeatData& seat = data_.seats[active];
  if (id == kNoPrivilege) {
    if (events) {
      EventDraft<v1::MercadoEvent> draft;
      draft->mutable_privilege_declined()->set_seat(active);
      events->Emit(kEveryone, *draft, absl::StrCat("seat ", active, " plays no privilege"));
    }
    StartAction(events);
    return;
  }
  const int type = static_cast<int>(id - kPlayPrivilegeBase);
  --seat.privileges[type];
  ++data_.privileges_gone[type];
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    event.mutable_privilege_played()->set_seat(active);
    PrivilegeToProto(type, event.mutable_privilege_played()->mutable_privilege());
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", active, " plays a privilege of value ",
                              Privilege(type).value, " (extra ",
                              EffectName(Privilege(type).extra), ")"));
  }
  data_.privilege_extra = Privilege(type).extra;
  if (MoveMarker(active, Privilege(type).value, Landing::kOptional, events)) return;
  FinishPrivilege(events);
}

// The symbol the privilege's marker landed on: used or skipped.
void MercadoState::ApplySymbolChoice(uint32_t id, EventSink* events) {
  const int active = data_.active;
  const SeatData& seat = data_.seats[active];
  const Effect symbol = TheEdition().tracks[data_.side][SpaceOf(data_, seat.progress)];
  if (id == kUseSymbol) {
    if (ApplySymbol(active, symbol, Landing::kOptional, events)) return;
  } else if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* skipped = event.mutable_symbol_applied();
    skipped->set_seat(active);
    skipped->set_symbol(static_cast<v1::MercadoEffect>(symbol));
    skipped->set_used(false);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", active, " skips the symbol ", EffectName(symbol)));
  }
  FinishPrivilege(events);
}

// Action A draws three coins (then perhaps a seal); action B empties the person tile.
void MercadoState::ApplyActionChoice(uint32_t id, EventSink* events) {
  const int active = data_.active;
  SeatData& seat = data_.seats[active];
  if (id == kActionA) {
    DrawCoins(3, false, events);
    if (seat.seals > 0 && CoinTotal(seat.bag) > 0) {
      data_.phase = Phase::kSeal;
      return;
    }
    ContinuePlacement(events);
    return;
  }
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    event.mutable_person_tile_emptied()->set_seat(active);
    CoinsToProto(seat.person, event.mutable_person_tile_emptied()->mutable_coins());
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", active, " puts its person tile (",
                              CoinsText(seat.person), ") into its bag"));
  }
  for (int coin = 0; coin < kCoinKinds; ++coin) seat.bag[coin] += seat.person[coin];
  seat.person = {};
  StartScoring(events);
}

void MercadoState::ApplySealChoice(uint32_t id, EventSink* events) {
  SeatData& seat = data_.seats[data_.active];
  if (id == kUseSeal) {
    --seat.seals;
    ++data_.seal_supply;
    DrawCoins(std::min(2, CoinTotal(seat.bag)), true, events);
  } else if (events) {
    EventDraft<v1::MercadoEvent> draft;
    draft->mutable_seal_declined()->set_seat(data_.active);
    events->Emit(kEveryone, *draft, absl::StrCat("seat ", data_.active, " uses no seal"));
  }
  ContinuePlacement(events);
}

// One drawn coin onto a tile's price, or the end of placing.
void MercadoState::ApplyPlacement(uint32_t id, EventSink* events) {
  if (id == kStop) {
    EndPlacement(events);
    return;
  }
  const int active = data_.active;
  SeatData& seat = data_.seats[active];
  const int coin = static_cast<int>(id - kPlaceBase) / 8, position = (id - kPlaceBase) % 8;
  --data_.drawn[coin];
  ++seat.edges[position][coin];
  data_.placed_this_turn = true;
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* placed = event.mutable_coin_placed();
    placed->set_seat(active);
    placed->set_coin(ToCoinProto(coin));
    placed->set_position(position);
    placed->set_tile(data_.display[position]);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", active, " places ", CoinName(coin), " on ",
                              Tile(data_.display[position]).name));
  }
  ContinuePlacement(events);
}

// The money changer's joker onto a tile.
void MercadoState::ApplyJokerPlacement(uint32_t id, EventSink* events) {
  const int active = data_.active;
  const int position = static_cast<int>(id - kPlaceJokerBase);
  data_.joker_in_hand = false;
  ++data_.seats[active].edges[position][kWhite];
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* placed = event.mutable_coin_placed();
    placed->set_seat(active);
    placed->set_coin(v1::MERCADO_COIN_WHITE);
    placed->set_position(position);
    placed->set_tile(data_.display[position]);
    placed->set_joker_from_changer(true);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", active, " places the changer's joker on ",
                              Tile(data_.display[position]).name));
  }
  StartScoring(events);
}

// A privilege discarded by the seat over the limit.
void MercadoState::ApplyDiscard(uint32_t id, EventSink* events) {
  const int type = static_cast<int>(id - kDiscardBase);
  const int discarder = data_.discarder;
  --data_.seats[discarder].privileges[type];
  ++data_.privileges_gone[type];
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    event.mutable_privilege_discarded()->set_seat(discarder);
    PrivilegeToProto(type, event.mutable_privilege_discarded()->mutable_privilege());
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", discarder, " discards a privilege of value ",
                              Privilege(type).value));
  }
  NextDiscarder(events);
}

// ---------------------------------------------------------------------------
// Turn sequence (rules §5)

void MercadoState::Setup(EventSink* events) {
  for (int position = 0; position < kOverseerPosition; ++position) Refill(position, events);
  data_.display[kOverseerPosition] = kOverseer;
  data_.display[kChangerPosition] = kChanger;
  StartTurn(false, events);
}

void MercadoState::StartTurn(bool extra, EventSink* events) {
  data_.placed_this_turn = false;
  data_.privilege_extra = kNoEffect;
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    event.mutable_turn_started()->set_seat(data_.active);
    event.mutable_turn_started()->set_extra_turn(extra);
    events->Emit(kEveryone, event,
                 absl::StrCat(extra ? "extra turn for seat " : "turn of seat ", data_.active));
  }
  if (PrivilegeCount(data_.seats[data_.active].privileges) > 0) {
    data_.phase = Phase::kPrivilege;
    return;
  }
  StartAction(events);
}

void MercadoState::FinishPrivilege(EventSink* events) {
  const Effect extra = data_.privilege_extra;
  data_.privilege_extra = kNoEffect;
  if (extra != kNoEffect) ApplyEffect(data_.active, extra, events);
  StartAction(events);
}

void MercadoState::StartAction(EventSink* events) {
  const SeatData& seat = data_.seats[data_.active];
  if (CoinTotal(seat.bag) >= 3 || CoinTotal(seat.person) > 0) {
    data_.phase = Phase::kAction;
    return;
  }
  StartScoring(events);  // decision 15: neither action is possible
}

void MercadoState::StartScoring(EventSink* events) {
  for (int position = 0; position < kPositions; ++position) {
    if (IsPending(position)) {
      data_.phase = Phase::kScore;
      return;
    }
  }
  EndTurn(events);
}

void MercadoState::EndTurn(EventSink* events) {
  const int limit = IdleTurnLimit(data_.players);
  if (data_.idle_turns < limit) ++data_.idle_turns;
  if (!data_.end_triggered && data_.idle_turns == limit) {
    // Nothing has moved for a long time: the game is stuck (coins that fit nowhere, or only
    // the market tiles changing hands), so the round is finished as if a marker had
    // reached the start tile.
    data_.end_triggered = true;
    if (events) {
      EventDraft<v1::MercadoEvent> draft;
      v1::MercadoEvent& event = *draft;
      event.mutable_end_triggered()->set_seat(-1);
      events->Emit(kEveryone, event,
                   absl::StrCat("no marker moved and no goods tile was bought for ", limit,
                                " turns: the round is finished"));
    }
  }
  if (data_.extra_turns > 0) {
    --data_.extra_turns;
    StartTurn(true, events);
    return;
  }
  if (data_.end_triggered && data_.active == data_.players - 1) {
    FinishGame(events);
    return;
  }
  data_.active = static_cast<int8_t>((data_.active + 1) % data_.players);
  StartTurn(false, events);
}

int MercadoState::DrawKind(const uint8_t* counts, int kinds) {
  int total = 0;
  for (int kind = 0; kind < kinds; ++kind) total += counts[kind];
  Rng rng(data_.rng);
  const int kind = rng.PickWeighted(counts, kinds, total);
  data_.rng = rng.state();
  return kind;
}

void MercadoState::DrawCoins(int count, bool with_seal, EventSink* events) {
  SeatData& seat = data_.seats[data_.active];
  EventDraft<v1::MercadoEvent> draft;
  v1::MercadoEvent& event = *draft;
  auto* drawn = event.mutable_coins_drawn();
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    const int coin = DrawKind(seat.bag.data(), kCoinKinds);
    --seat.bag[coin];
    if (coin == kBlack) {
      ++seat.person[kBlack];
    } else {
      ++data_.drawn[coin];
    }
    if (events) {
      drawn->add_coins(ToCoinProto(coin));
      names.push_back(CoinName(coin));
    }
  }
  if (events) {
    drawn->set_seat(data_.active);
    drawn->set_with_seal(with_seal);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", data_.active, with_seal ? " uses a seal and" : "",
                              " draws ", absl::StrJoin(names, ", ")));
  }
}

void MercadoState::ContinuePlacement(EventSink* events) {
  if (CanPlaceAny()) {
    data_.phase = Phase::kPlace;
    return;
  }
  EndPlacement(events);
}

void MercadoState::EndPlacement(EventSink* events) {
  SeatData& seat = data_.seats[data_.active];
  if (events && CoinTotal(data_.drawn) > 0) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    event.mutable_coins_returned()->set_seat(data_.active);
    CoinsToProto(data_.drawn, event.mutable_coins_returned()->mutable_coins());
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", data_.active, " returns ", CoinsText(data_.drawn),
                              " to its bag"));
  }
  for (int coin = 0; coin < kCoinKinds; ++coin) seat.bag[coin] += data_.drawn[coin];
  data_.drawn = {};
  StartScoring(events);
}

// ---------------------------------------------------------------------------
// Scoring (rules §5.1, §5.2)

void MercadoState::BuyerCoinsToPersonTile(int position) {
  SeatData& buyer = data_.seats[data_.active];
  CoinCounts& edge = buyer.edges[position];
  data_.supply[kWhite] += edge[kWhite];
  edge[kWhite] = 0;
  for (int coin = 0; coin < kCoinKinds; ++coin) buyer.person[coin] += edge[coin];
  edge = {};
}

void MercadoState::ScoreTile(int position, EventSink* events) {
  if (position >= kOverseerPosition) {
    ScoreMarketTile(position, events);
    return;
  }
  const int active = data_.active;
  const TileData& tile = Tile(data_.display[position]);
  data_.idle_turns = 0;
  int points = tile.points, revealed = -1;
  if (points == kRevealPoints) {
    revealed = RevealItem(events);
    points = Tile(revealed).points;
  }
  if (points == kRankPoints) points = RankOf(data_, active);
  // Runners-up (rules §5.1 step 2): the most coins on this tile, at least 1.
  std::array<int, kMaxPlayers> takers{};
  int taker_count = 0;
  if (!tile.no_seal) {
    int most = 1;
    for (int seat = 0; seat < data_.players; ++seat)
      if (seat != active) most = std::max(most, CoinTotal(data_.seats[seat].edges[position]));
    for (int offset = 1; offset < data_.players; ++offset) {
      const int seat = (active + offset) % data_.players;
      if (CoinTotal(data_.seats[seat].edges[position]) == most) takers[taker_count++] = seat;
    }
  }
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* scored = event.mutable_tile_scored();
    scored->set_seat(active);
    scored->set_position(position);
    scored->set_tile(data_.display[position]);
    scored->set_points(points);
    scored->set_revealed_tile(revealed);
    for (int i = 0; i < taker_count; ++i) scored->add_seal_takers(takers[i]);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", active, " buys the ", tile.name, " for ", points,
                              " points"));
  }
  MoveMarker(active, points, Landing::kMandatory, events);
  for (int i = 0; i < taker_count; ++i) GiveSeal(takers[i], kNoEffect, events);
  for (Effect effect : tile.buyer)
    if (effect != kNoEffect) ApplyEffect(active, effect, events);
  bool discards = false;
  for (Effect effect : tile.opponents) {
    if (effect == kOpponentsDiscard) {
      discards = true;  // decided by the opponents after the other effects
    } else if (effect != kNoEffect) {
      ApplyEffect(active, effect, events);
    }
  }
  if (discards) {
    data_.scoring_position = static_cast<int8_t>(position);
    data_.discarder = static_cast<int8_t>(active);
    NextDiscarder(events);
    return;
  }
  FinishGoodsTile(position, events);
}

void MercadoState::NextDiscarder(EventSink* events) {
  const int active = data_.active;
  int offset = (data_.discarder - active + data_.players) % data_.players + 1;
  for (; offset < data_.players; ++offset) {
    const int seat = (active + offset) % data_.players;
    if (PrivilegeCount(data_.seats[seat].privileges) > 0) {
      data_.discarder = static_cast<int8_t>(seat);
      data_.phase = Phase::kDiscard;
      return;
    }
  }
  const int position = data_.scoring_position;
  data_.discarder = -1;
  data_.scoring_position = -1;
  FinishGoodsTile(position, events);
}

void MercadoState::FinishGoodsTile(int position, EventSink* events) {
  BuyerCoinsToPersonTile(position);
  for (int seat = 0; seat < data_.players; ++seat) {
    SeatData& holder = data_.seats[seat];
    for (int coin = 0; coin < kCoinKinds; ++coin) holder.bag[coin] += holder.edges[position][coin];
    holder.edges[position] = {};
  }
  Refill(position, events);
  StartScoring(events);
}

void MercadoState::ScoreMarketTile(int position, EventSink* events) {
  const int active = data_.active;
  BuyerCoinsToPersonTile(position);
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* scored = event.mutable_tile_scored();
    scored->set_seat(active);
    scored->set_position(position);
    scored->set_tile(data_.display[position]);
    scored->set_revealed_tile(-1);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", active, " completes the ",
                              Tile(data_.display[position]).name));
  }
  if (position == kOverseerPosition) {
    DrawPrivilege(active, events);
    StartScoring(events);
    return;
  }
  if (data_.supply[kWhite] == 0) {  // shortage: no joker to take
    GiveCoins(active, kWhite, 1, kGainJoker, events);
    StartScoring(events);
    return;
  }
  --data_.supply[kWhite];
  data_.joker_in_hand = true;
  for (int target = 0; target < kPositions; ++target) {
    if (target != kChangerPosition && CanPlace(kWhite, target)) {
      data_.phase = Phase::kJoker;
      return;
    }
  }
  // Decision 14: a joker that fits nowhere goes into the bag.
  data_.joker_in_hand = false;
  ++data_.seats[active].bag[kWhite];
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* gain = event.mutable_gain();
    gain->set_seat(active);
    gain->set_effect(v1::MERCADO_EFFECT_GAIN_JOKER);
    gain->set_joker(1);
    events->Emit(kEveryone, event,
                 absl::StrCat("the changer's joker fits nowhere: it goes into seat ", active,
                              "'s bag"));
  }
  StartScoring(events);
}

void MercadoState::Refill(int position, EventSink* events) {
  const bool item = position < kItemSlots;
  const int old = data_.display[position];
  bool reshuffled = false;
  int tile = 0;
  Rng rng(data_.rng);
  if (item) {
    if (old >= 0) data_.item_discards |= uint32_t{1} << old;
    tile = DrawFromDeck(data_.item_deck, data_.item_discards, rng, &reshuffled);
  } else {
    if (old >= 0) data_.perfume_discards |= static_cast<uint16_t>(1u << (old - kItems));
    tile = kItems + DrawFromDeck(data_.perfume_deck, data_.perfume_discards, rng, &reshuffled);
  }
  data_.rng = rng.state();
  data_.display[position] = static_cast<int8_t>(tile);
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* refilled = event.mutable_display_refilled();
    refilled->set_position(position);
    refilled->set_tile(tile);
    refilled->set_reshuffled(reshuffled);
    events->Emit(kEveryone, event,
                 absl::StrCat(reshuffled ? "the discards are reshuffled; " : "", "the ",
                              Tile(tile).name, " is displayed"));
  }
}

int MercadoState::RevealItem(EventSink* events) {
  bool reshuffled = false;
  Rng rng(data_.rng);
  const int item = DrawFromDeck(data_.item_deck, data_.item_discards, rng, &reshuffled);
  data_.rng = rng.state();
  data_.item_discards |= uint32_t{1} << item;
  if (events && reshuffled) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    event.mutable_display_refilled()->set_reshuffled(true);
    event.mutable_display_refilled()->set_tile(item);
    event.mutable_display_refilled()->set_position(kPositions);  // not displayed: revealed
    events->Emit(kEveryone, event, "the item discards are reshuffled for a reveal");
  }
  return item;
}

// ---------------------------------------------------------------------------
// Track (rules §3) and effects (rules §7)

bool MercadoState::MoveMarker(int seat, int steps, Landing mode, EventSink* events) {
  if (steps <= 0) return false;  // decision 11
  SeatData& mover = data_.seats[seat];
  const int from = mover.progress;
  const int to = std::min(from + steps, kMaxProgress);
  const int old_space = SpaceOf(data_, from), new_space = SpaceOf(data_, to);
  int below = 0;
  for (int other = 0; other < data_.players; ++other) {
    if (other == seat) continue;
    SeatData& them = data_.seats[other];
    const int space = SpaceOf(data_, them.progress);
    if (space == old_space && them.height > mover.height) --them.height;
    if (space == new_space) ++below;
  }
  mover.progress = static_cast<uint8_t>(to);
  mover.height = static_cast<uint8_t>(below);
  data_.idle_turns = 0;
  const bool stacked = below > 0;
  const Effect symbol =
      to < kSpaces && !stacked ? TheEdition().tracks[data_.side][new_space] : kNoEffect;
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* moved = event.mutable_marker_moved();
    moved->set_seat(seat);
    moved->set_steps(steps);
    moved->set_from_progress(from);
    moved->set_to_progress(to);
    moved->set_space(new_space);
    moved->set_stacked(stacked);
    moved->set_symbol(static_cast<v1::MercadoEffect>(symbol));
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", seat, " moves ", steps, " to space ", new_space,
                              stacked ? " (on top of a stack)" : "",
                              symbol != kNoEffect ? absl::StrCat(" (", EffectName(symbol), ")")
                                                  : ""));
  }
  if (to >= kSpaces && !data_.end_triggered) {
    data_.end_triggered = true;
    if (events) {
      EventDraft<v1::MercadoEvent> draft;
      v1::MercadoEvent& event = *draft;
      event.mutable_end_triggered()->set_seat(seat);
      events->Emit(kEveryone, event,
                   absl::StrCat("seat ", seat, " reaches the start tile: the round is finished"));
    }
  }
  if (mode == Landing::kNoSymbol || symbol == kNoEffect) return false;
  if (mode == Landing::kOptional) {
    data_.phase = Phase::kSymbol;
    return true;
  }
  return ApplySymbol(seat, symbol, mode, events);
}

bool MercadoState::ApplySymbol(int seat, Effect symbol, Landing mode, EventSink* events) {
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    event.mutable_symbol_applied()->set_seat(seat);
    event.mutable_symbol_applied()->set_symbol(static_cast<v1::MercadoEffect>(symbol));
    event.mutable_symbol_applied()->set_used(true);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", seat, " uses the symbol ", EffectName(symbol)));
  }
  // Decision 10: the +3 follow-up keeps the triggering move's status.
  if (symbol == kAdvanceThree) return MoveMarker(seat, 3, mode, events);
  ApplyEffect(seat, symbol, events);
  return false;
}

void MercadoState::GiveCoins(int seat, int coin, int count, Effect effect, EventSink* events) {
  const int given = std::min<int>(count, data_.supply[coin]);
  data_.supply[coin] = static_cast<uint8_t>(data_.supply[coin] - given);
  data_.seats[seat].bag[coin] = static_cast<uint8_t>(data_.seats[seat].bag[coin] + given);
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* gain = event.mutable_gain();
    gain->set_seat(seat);
    gain->set_effect(static_cast<v1::MercadoEffect>(effect));
    (coin == kWhite ? gain->set_joker(given) : gain->set_counterfeit(given));
    gain->set_short_supply(given < count);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", seat, " takes ", given, " ", CoinName(coin),
                              given < count ? " (the supply is short)" : "", " into its bag"));
  }
}

void MercadoState::GiveSeal(int seat, Effect effect, EventSink* events) {
  const bool given = data_.seal_supply > 0;
  if (given) {
    --data_.seal_supply;
    ++data_.seats[seat].seals;
  }
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    auto* gain = event.mutable_gain();
    gain->set_seat(seat);
    gain->set_effect(static_cast<v1::MercadoEffect>(effect == kNoEffect ? kGainSeal : effect));
    gain->set_seals(given ? 1 : 0);
    gain->set_short_supply(!given);
    events->Emit(kEveryone, event,
                 given ? absl::StrCat("seat ", seat, " takes a seal")
                       : absl::StrCat("no seal is left for seat ", seat));
  }
}

void MercadoState::DrawPrivilege(int seat, EventSink* events) {
  const int left = PrivilegeCount(data_.privilege_supply);
  int type = -1;
  if (left > 0) {
    type = DrawKind(data_.privilege_supply.data(), kPrivilegeTypes);
    --data_.privilege_supply[type];
    ++data_.seats[seat].privileges[type];
  }
  if (!events) return;
  EventDraft<v1::MercadoEvent> draft;
  v1::MercadoEvent& event = *draft;
  event.mutable_privilege_drawn()->set_seat(seat);
  if (type < 0) {
    events->Emit(kEveryone, event, "no privilege is left to draw");
    return;
  }
  events->Emit(AllBut(seat), event, absl::StrCat("seat ", seat, " draws a privilege"));
  PrivilegeToProto(type, event.mutable_privilege_drawn()->mutable_privilege());
  events->Emit(OnlySeat(seat), event,
               absl::StrCat("seat ", seat, " draws a privilege of value ", Privilege(type).value,
                            " (extra ", EffectName(Privilege(type).extra), ")"));
}

void MercadoState::ApplyEffect(int seat, Effect effect, EventSink* events) {
  SeatData& holder = data_.seats[seat];
  switch (effect) {
    case kGainJoker:
      GiveCoins(seat, kWhite, 1, effect, events);
      return;
    case kGainCounterfeit:
      GiveCoins(seat, kBlack, 1, effect, events);
      return;
    case kLoseCounterfeit: {
      uint8_t* from = holder.bag[kBlack] > 0      ? &holder.bag[kBlack]
                      : holder.person[kBlack] > 0 ? &holder.person[kBlack]
                                                  : nullptr;
      if (from != nullptr) {
        --*from;
        ++data_.supply[kBlack];
      }
      if (events) {
        EventDraft<v1::MercadoEvent> draft;
        v1::MercadoEvent& event = *draft;
        event.mutable_gain()->set_seat(seat);
        event.mutable_gain()->set_effect(v1::MERCADO_EFFECT_LOSE_COUNTERFEIT);
        event.mutable_gain()->set_counterfeit(from != nullptr ? -1 : 0);
        events->Emit(kEveryone, event,
                     from != nullptr ? absl::StrCat("seat ", seat, " returns a black coin")
                                     : absl::StrCat("seat ", seat, " has no black coin to return"));
      }
      return;
    }
    case kGainPrivilege:
      DrawPrivilege(seat, events);
      return;
    case kGainSeal:
      GiveSeal(seat, effect, events);
      return;
    case kExtraTurn:
      if (data_.extra_turns < 255) ++data_.extra_turns;
      if (events) {
        EventDraft<v1::MercadoEvent> draft;
        v1::MercadoEvent& event = *draft;
        event.mutable_gain()->set_seat(seat);
        event.mutable_gain()->set_effect(v1::MERCADO_EFFECT_EXTRA_TURN);
        events->Emit(kEveryone, event, absl::StrCat("seat ", seat, " earns an extra turn"));
      }
      return;
    case kOpponentsCounterfeit:
    case kOpponentsJoker:
    case kOpponentsTwoCounterfeit:
      for (int offset = 1; offset < data_.players; ++offset)
        GiveCoins((seat + offset) % data_.players, effect == kOpponentsJoker ? kWhite : kBlack,
                  effect == kOpponentsTwoCounterfeit ? 2 : 1, effect, events);
      return;
    case kNoEffect:
    case kAdvanceThree:
    case kOpponentsDiscard:
      return;
  }
}

// ---------------------------------------------------------------------------
// End of game (rules §8)

void MercadoState::FinishGame(EventSink* events) {
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& holder = data_.seats[seat];
    const int value = PrivilegeValue(holder.privileges);
    MoveMarker(seat, holder.seals + value, Landing::kNoSymbol, events);
    if (events) {
      EventDraft<v1::MercadoEvent> draft;
      v1::MercadoEvent& event = *draft;
      auto* bonus = event.mutable_final_bonus();
      bonus->set_seat(seat);
      bonus->set_seals(holder.seals);
      bonus->set_privilege_value(value);
      bonus->set_to_progress(holder.progress);
      events->Emit(kEveryone, event,
                   absl::StrCat("final bonus: seat ", seat, " moves ", holder.seals + value,
                                " to ", static_cast<int>(holder.progress)));
    }
  }
  data_.phase = Phase::kFinished;
  if (events) {
    EventDraft<v1::MercadoEvent> draft;
    v1::MercadoEvent& event = *draft;
    const Outcome result = outcome();
    std::vector<std::string> parts;
    for (int seat = 0; seat < data_.players; ++seat) {
      event.mutable_game_over()->add_progress(data_.seats[seat].progress);
      event.mutable_game_over()->add_ranks(result.ranks[seat]);
      parts.push_back(absl::StrCat("seat ", seat, " rank ", result.ranks[seat]));
    }
    events->Emit(kEveryone, event, absl::StrCat("game over: ", absl::StrJoin(parts, ", ")));
  }
}

Outcome MercadoState::outcome() const {
  Outcome result{.scores = PerSeat<double>(data_.players), .ranks = PerSeat<int>(data_.players, 0)};
  for (int seat = 0; seat < data_.players; ++seat) {
    result.scores[seat] = data_.seats[seat].progress;
    if (data_.phase == Phase::kFinished) result.ranks[seat] = RankOf(data_, seat);
  }
  return result;
}

namespace {
// The display position a move's text names (a tile scored, the joker or a coin placed), or -1.
int PositionNamed(uint32_t id) {
  if (id >= kScoreBase && id < kScoreBase + kPositions) return static_cast<int>(id - kScoreBase);
  if (id >= kPlaceJokerBase && id < kPlaceJokerBase + kPositions) return static_cast<int>(id - kPlaceJokerBase);
  if (id >= kPlaceBase && id < kMoveLimit) return static_cast<int>(id - kPlaceBase) % 8;
  return -1;
}

// The tile a move's text names: the one displayed at its position (0 for a move naming none).
int TileNamed(const Data& data, Move move) {
  const int position = PositionNamed(move.id);
  return position < 0 ? 0 : data.display[position];
}

// The text of `move` where the position it names shows `tile` (empty for an unknown id).
std::string TextNaming(Move move, int tile) {
  const uint32_t id = move.id;
  switch (id) {
    case kNoPrivilege: return "play no privilege";
    case kUseSymbol: return "use the symbol";
    case kSkipSymbol: return "skip the symbol";
    case kActionA: return "action A: draw and place coins";
    case kActionB: return "action B: put the person tile into the bag";
    case kUseSeal: return "use a seal to draw 2 more coins";
    case kNoSeal: return "use no seal";
    case kStop: return "stop placing";
    default: break;
  }
  if (id >= kPlayPrivilegeBase && id < kDiscardBase)
    return absl::StrCat("play a privilege of value ", Privilege(id - kPlayPrivilegeBase).value);
  if (id >= kDiscardBase && id < kDiscardBase + kPrivilegeTypes)
    return absl::StrCat("discard a privilege of value ", Privilege(id - kDiscardBase).value);
  const int position = PositionNamed(id);
  if (position < 0) return "";
  const std::string at = absl::StrCat(Tile(tile).name, " (position ", position, ")");
  if (id < kPlaceJokerBase) return absl::StrCat("score the ", at);
  if (id < kPlaceBase) return absl::StrCat("place the joker on the ", at);
  return absl::StrCat("place ", CoinName((id - kPlaceBase) / 8), " on the ", at);
}
}  // namespace

std::string MercadoState::MoveText(Move move) const {
  std::string text = TextNaming(move, TileNamed(data_, move));
  return text.empty() ? absl::StrCat("unknown move ", move.id) : text;
}

namespace {
void BuildMoveDetail(Move move, v1::MercadoMove* out) {
  const uint32_t id = move.id;
  if (id == kNoPrivilege) out->mutable_no_privilege();
  else if (id == kUseSymbol) out->mutable_use_symbol();
  else if (id == kSkipSymbol) out->mutable_skip_symbol();
  else if (id == kActionA) out->mutable_action_a();
  else if (id == kActionB) out->mutable_action_b();
  else if (id == kUseSeal) out->mutable_use_seal();
  else if (id == kNoSeal) out->mutable_no_seal();
  else if (id == kStop) out->mutable_stop();
  else if (id >= kPlayPrivilegeBase && id < kDiscardBase)
    out->mutable_play_privilege()->set_type(id - kPlayPrivilegeBase);
  else if (id >= kDiscardBase && id < kScoreBase)
    out->mutable_discard_privilege()->set_type(id - kDiscardBase);
  else if (id >= kScoreBase && id < kPlaceJokerBase)
    out->mutable_score()->set_position(id - kScoreBase);
  else if (id >= kPlaceJokerBase && id < kPlaceBase)
    out->mutable_place_joker()->set_position(id - kPlaceJokerBase);
  else if (id >= kPlaceBase && id < kMoveLimit) {
    out->mutable_place()->set_coin(ToCoinProto(static_cast<int>(id - kPlaceBase) / 8));
    out->mutable_place()->set_position((id - kPlaceBase) % 8);
  }
}
}  // namespace

void MercadoState::MoveDetail(Move move, google::protobuf::Any* detail) const {
  static const PackedMoveDetails<v1::MercadoMove> details(kMoveLimit, BuildMoveDetail);
  details.Pack(move, detail);
}

// A move's text names the tile at its position: the variant is that tile.
absl::string_view MercadoState::EncodedMove(Move move) const {
  static const VariantEncodedMoves encoded(kMoveLimit, kTiles, TextNaming, BuildMoveDetail);
  return encoded.Find(move, TileNamed(data_, move));
}

}  // namespace gavel::mercado
