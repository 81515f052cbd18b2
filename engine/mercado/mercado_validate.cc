// Validation of an untrusted decoded state: the display, the components, the track, the
// edges and the phase, each a check of its own.
#include "engine/mercado/mercado_wire.h"

namespace gavel::mercado {
namespace {

absl::Status ValidateDisplay(const Data& data) {
  uint32_t items = 0, perfumes = 0;
  for (int position = 0; position < kPositions; ++position) {
    const int tile = data.display[position];
    const bool ok = position < kItemSlots        ? tile >= 0 && tile < kItems
                    : position < kOverseerPosition ? tile >= kItems && tile < kOverseer
                    : position == kOverseerPosition ? tile == kOverseer
                                                    : tile == kChanger;
    if (!ok) return Invalid("display position ", position, " cannot hold tile ", tile);
    if (position < kItemSlots) {
      if (items >> tile & 1) return Invalid("item ", tile, " is displayed twice");
      items |= uint32_t{1} << tile;
    } else if (position < kOverseerPosition) {
      if (perfumes >> (tile - kItems) & 1) return Invalid("perfume ", tile, " is displayed twice");
      perfumes |= uint32_t{1} << (tile - kItems);
    }
  }
  if ((items & data.item_deck) || (items & data.item_discards) ||
      (data.item_deck & data.item_discards) ||
      (items | data.item_deck | data.item_discards) != kAllItems)
    return Invalid("the items are not each exactly once in the display, deck or discards");
  if ((perfumes & data.perfume_deck) || (perfumes & data.perfume_discards) ||
      (data.perfume_deck & data.perfume_discards) ||
      (perfumes | data.perfume_deck | data.perfume_discards) != kAllPerfumes)
    return Invalid("the perfumes are not each exactly once in the display, deck or discards");
  return absl::OkStatus();
}

absl::Status ValidateComponents(const Data& data) {
  int whites = data.supply[kWhite] + (data.joker_in_hand ? 1 : 0);  // drawn: with the active seat
  int blacks = data.supply[kBlack];
  int seals = data.seal_supply;
  for (int coin = 0; coin < kColoured; ++coin)
    if (data.supply[coin] != 0) return Invalid("there is no supply of ", CoinName(coin), " coins");
  if (data.drawn[kBlack] != 0) return Invalid("black coins are never held as drawn coins");
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& holder = data.seats[seat];
    CoinCounts own = holder.bag;
    for (int coin = 0; coin < kCoinKinds; ++coin) own[coin] += holder.person[coin];
    for (const CoinCounts& edge : holder.edges) {
      if (edge[kBlack] != 0) return Invalid("seat ", seat, " has a black coin on an edge");
      for (int coin = 0; coin < kCoinKinds; ++coin) own[coin] += edge[coin];
    }
    if (seat == data.active)
      for (int coin = 0; coin < kCoinKinds; ++coin) own[coin] += data.drawn[coin];
    for (int coin = 0; coin < kColoured; ++coin)
      if (own[coin] != kCoinsPerColour)
        return Invalid("seat ", seat, " has ", static_cast<int>(own[coin]), " ", CoinName(coin),
                       " coins instead of ", kCoinsPerColour);
    whites += own[kWhite];
    blacks += own[kBlack];
    seals += holder.seals;
  }
  if (whites != kJokers) return Invalid("there are ", whites, " white coins instead of ", kJokers);
  if (blacks != kCounterfeits)
    return Invalid("there are ", blacks, " black coins instead of ", kCounterfeits);
  if (seals != kSeals) return Invalid("there are ", seals, " seals instead of ", kSeals);
  for (int type = 0; type < kPrivilegeTypes; ++type) {
    int count = data.privilege_supply[type] + data.privileges_gone[type];
    for (int seat = 0; seat < data.players; ++seat) count += data.seats[seat].privileges[type];
    if (count != Privilege(type).count)
      return Invalid("there are ", count, " privileges of type ", type, " instead of ",
                     static_cast<int>(Privilege(type).count));
  }
  return absl::OkStatus();
}

absl::Status ValidateTrack(const Data& data) {
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& holder = data.seats[seat];
    if (holder.progress > kMaxProgress || holder.height >= kMaxPlayers)
      return Invalid("seat ", seat, "'s progress or stack height is out of range");
    if (holder.progress >= kSpaces && !data.end_triggered)
      return Invalid("seat ", seat, " has passed the start tile, but the end is not triggered");
    // The markers on one physical space are stacked at heights 0..m-1.
    uint32_t heights = 0;
    int on_space = 0;
    for (int other = 0; other < data.players; ++other) {
      if (SpaceOf(data, data.seats[other].progress) != SpaceOf(data, holder.progress)) continue;
      ++on_space;
      heights |= 1u << data.seats[other].height;
    }
    if (heights != (1u << on_space) - 1)
      return Invalid("the stack on space ", SpaceOf(data, holder.progress),
                     " does not have heights 0..", on_space - 1);
  }
  return absl::OkStatus();
}

// Every seat's coins on the display fit the prices, and only the scoring seat has completed a tile.
absl::Status ValidateEdges(const Data& data) {
  const Phase phase = data.phase;
  const bool may_complete = phase == Phase::kPlace || phase == Phase::kJoker ||
                            phase == Phase::kScore || phase == Phase::kDiscard;
  for (int seat = 0; seat < data.players; ++seat) {
    for (int position = 0; position < kPositions; ++position) {
      const Price& price = Tile(data.display[position]).price;
      const CoinCounts& edge = data.seats[seat].edges[position];
      if (!Fits(price, edge))
        return Invalid("seat ", seat, "'s coins on ", Tile(data.display[position]).name,
                       " do not fit its price");
      if (Completes(price, edge) && !(seat == data.active && may_complete))
        return Invalid("seat ", seat, " has completed ", Tile(data.display[position]).name,
                       " outside its scoring");
    }
  }
  return absl::OkStatus();
}

// Drawn coins, the joker, the scoring position, the discarder and the privilege extra exist
// only in the phases that use them.
absl::Status ValidateTurnParts(const Data& data) {
  const Phase phase = data.phase;
  const int drawn = CoinTotal(data.drawn);
  if (drawn > 5) return Invalid("at most 5 coins are drawn in a turn, not ", drawn);
  if (drawn > 0 && phase != Phase::kSeal && phase != Phase::kPlace)
    return Invalid("drawn coins only exist while sealing or placing");
  if (data.joker_in_hand != (phase == Phase::kJoker))
    return Invalid("the changer's joker is held exactly in the joker phase");
  if ((data.scoring_position >= 0) != (phase == Phase::kDiscard) ||
      (data.discarder >= 0) != (phase == Phase::kDiscard))
    return Invalid("a scoring position and a discarding seat exist exactly in the discard phase");
  if (data.privilege_extra != kNoEffect && phase != Phase::kSymbol)
    return Invalid("a privilege extra is only pending in the symbol phase");
  if (data.placed_this_turn &&
      (phase == Phase::kPrivilege || phase == Phase::kSymbol || phase == Phase::kAction ||
       phase == Phase::kSeal))
    return Invalid("no coin can have been placed yet in this phase");
  return absl::OkStatus();
}

bool AnyPending(const MercadoState& state) {
  for (int position = 0; position < kPositions; ++position)
    if (state.IsPending(position)) return true;
  return false;
}

absl::Status ValidateJoker(const MercadoState& state) {
  for (int position = 0; position < kPositions; ++position)
    if (position != kChangerPosition && state.CanPlace(kWhite, position)) return absl::OkStatus();
  return Invalid("the changer's joker fits nowhere");
}

absl::Status ValidateDiscard(const Data& data, const MercadoState& state) {
  const int position = data.scoring_position;
  if (position >= kOverseerPosition || !state.IsPending(position))
    return Invalid("the discard phase needs the completed goods tile being scored");
  const TileData& tile = Tile(data.display[position]);
  if (tile.opponents[0] != kOpponentsDiscard && tile.opponents[1] != kOpponentsDiscard)
    return Invalid("the ", tile.name, " makes nobody discard");
  if (data.discarder == data.active || PrivilegeCount(data.seats[data.discarder].privileges) == 0)
    return Invalid("seat ", static_cast<int>(data.discarder), " cannot discard now");
  return absl::OkStatus();
}

// The seat to move has a decision to make in its phase.
absl::Status ValidateDecision(const Data& data, const MercadoState& state) {
  const SeatData& active = data.seats[data.active];
  switch (data.phase) {
    case Phase::kPrivilege:
      if (PrivilegeCount(active.privileges) == 0)
        return Invalid("the privilege phase needs a privilege to play");
      break;
    case Phase::kSymbol:
      if (!OptionalSymbolWaits(data)) return Invalid("no symbol waits for the active seat");
      break;
    case Phase::kAction:
      if (CoinTotal(active.bag) < 3 && CoinTotal(active.person) == 0)
        return Invalid("the action phase needs a legal action");
      break;
    case Phase::kSeal:
      if (active.seals == 0 || CoinTotal(active.bag) == 0)
        return Invalid("the seal phase needs a seal and a coin in the bag");
      break;
    case Phase::kPlace:
      if (!state.CanPlaceAny()) return Invalid("the placement phase needs a placeable coin");
      break;
    case Phase::kJoker: return ValidateJoker(state);
    case Phase::kScore:
      if (!AnyPending(state)) return Invalid("the scoring phase needs a completed tile");
      break;
    case Phase::kDiscard: return ValidateDiscard(data, state);
    case Phase::kFinished:
      if (!data.end_triggered || AnyPending(state)) return Invalid("a finished game must have triggered its end");
      break;
  }
  return absl::OkStatus();
}

absl::Status ValidatePhase(const Data& data) {
  const MercadoState state(data);
  GAVEL_RETURN_IF_ERROR(ValidateEdges(data));
  GAVEL_RETURN_IF_ERROR(ValidateTurnParts(data));
  return ValidateDecision(data, state);
}

}  // namespace

absl::Status Validate(const Data& data) {
  if (data.players < 2 || data.players > kMaxPlayers) return Invalid("players out of range");
  if (data.side > 1 || data.start_space >= kSpaces) return Invalid("options out of range");
  if (data.active < 0 || data.active >= data.players) return Invalid("active seat out of range");
  if (data.idle_turns > IdleTurnLimit(data.players) ||
      (data.idle_turns == IdleTurnLimit(data.players) && !data.end_triggered))
    return Invalid("idle turns ", data.idle_turns, " do not fit the limit ",
                   IdleTurnLimit(data.players), " and the end trigger");
  if (data.phase < Phase::kPrivilege || data.phase > Phase::kFinished ||
      data.privilege_extra >= kEffectKinds)
    return Invalid("phase or privilege extra out of range");
  if (data.discarder < -1 || data.discarder >= data.players)
    return Invalid("discarding seat out of range");
  if (data.scoring_position < -1 || data.scoring_position >= kPositions)
    return Invalid("scoring position out of range");
  GAVEL_RETURN_IF_ERROR(ValidateDisplay(data));
  GAVEL_RETURN_IF_ERROR(ValidateComponents(data));
  GAVEL_RETURN_IF_ERROR(ValidateTrack(data));
  return ValidatePhase(data);
}

}  // namespace gavel::mercado
