// Validation of an untrusted decoded state: every invariant the rules keep, checked
// before a state from the wire (or a resampled one) is played on.
#include <array>

#include "engine/core/status.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/moonlight_market/moonlight_market_wire.h"

namespace gavel::moonlight_market {
namespace {

using TileTally = std::array<int, kTileKinds>;
using BidsPerSeat = std::array<int, kMaxParticipants>;

// The cushions' tiles, which must fill exactly the columns of the pass's rounds still to
// come (docs/rules/moonlight_market.md §4), added to `count`.
absl::Status TallyCushionTiles(const Data& data, TileTally& count) {
  const int n = data.participants();
  const bool finished = data.phase == Phase::kFinished;
  for (int cushion = 0; cushion < kMaxParticipants; ++cushion) {
    for (int column = 0; column < kColumns; ++column) {
      const bool full = cushion < n && !finished &&
                        (column > data.round || (column == data.round && data.phase == Phase::kBid));
      for (int row = 0; row < 3; ++row) {
        const uint8_t tile = data.slots[cushion][column][row];
        if ((tile != kNoTile) != (full && row < Rows(cushion)))
          return Invalid("cushion ", cushion, " column ", column, " must be ",
                         full ? "full" : "empty", " now");
        if (tile != kNoTile) ++count[tile];
      }
    }
  }
  return absl::OkStatus();
}

// The seats' chains (each tile where it may lie) and held tiles, added to `count`.
absl::Status TallySeatTiles(const Data& data, TileTally& count) {
  for (int seat = 0; seat < data.participants(); ++seat) {
    const SeatData& holder = data.seats[seat];
    for (int colour = 0; colour < kColours; ++colour) {
      for (uint8_t tile : Tiles(holder.chains[colour])) {
        if (!Attachable(tile, colour))
          return Invalid("seat ", seat, "'s chain ", colour, " holds tile ", static_cast<int>(tile),
                         ", which cannot lie there");
        ++count[tile];
      }
    }
    for (int i = 0; i < holder.held_count; ++i) ++count[holder.held[i]];
  }
  return absl::OkStatus();
}

// Nothing returns to the supply, so its size tells how many passes were dealt.
absl::Status CheckSupplyProgress(const Data& data) {
  const bool finished = data.phase == Phase::kFinished;
  int supply = 0;
  for (uint8_t c : data.supply) supply += c;
  const int dealt = PassTiles(data.participants()) * (finished ? kPasses : data.pass + 1);
  if (kTotalTiles - supply != dealt)
    return Invalid(kTotalTiles - supply, " tiles left the supply; pass ", data.pass + 1,
                   " needs exactly ", dealt);
  if (!finished && data.pass == 0 && data.supply[kHammer] != 5)
    return Invalid("no hammer can leave the supply in pass 1");
  return absl::OkStatus();
}

// Every tile of the edition is in exactly one place.
absl::Status ValidateTiles(const Data& data) {
  TileTally count{};
  for (int tile = 0; tile < kTileKinds; ++tile) count[tile] = data.supply[tile] + data.box[tile];
  GAVEL_RETURN_IF_ERROR(TallyCushionTiles(data, count));
  GAVEL_RETURN_IF_ERROR(TallySeatTiles(data, count));
  for (int tile = 0; tile < kTileKinds; ++tile)
    if (count[tile] != InitialCount(tile))
      return Invalid("there are ", count[tile], " tiles of code ", tile, " instead of ",
                     InitialCount(tile));
  return CheckSupplyProgress(data);
}

// The cards at the cushions: only while bidding, each with an owner, one per seat.
absl::Status CountBids(const Data& data, BidsPerSeat& bids_of) {
  const int n = data.participants();
  for (int cushion = 0; cushion < kMaxParticipants; ++cushion) {
    const CushionBid& bid = data.bids[cushion];
    if (bid.seat < 0) {
      if (bid.card != 0) return Invalid("cushion ", cushion, " has a card but no owner");
      continue;
    }
    if (data.phase != Phase::kBid || cushion >= n || bid.seat >= n || bid.card == 0)
      return Invalid("cushion ", cushion, " cannot hold a card now");
    if (++bids_of[bid.seat] > 1)
      return Invalid("seat ", static_cast<int>(bid.seat), " has two cards at cushions");
  }
  return absl::OkStatus();
}

// Only a human seat decides (the engine plays the automata).
absl::Status CheckMover(const Data& data) {
  if (data.turn < 0 || data.turn >= data.participants() || data.IsBot(data.turn))
    return Invalid("seat ", static_cast<int>(data.turn), " cannot be the seat to move");
  return absl::OkStatus();
}

absl::Status CheckFinishedTurn(const Data& data, const BidsPerSeat&) {
  const int n = data.participants();
  if (data.turn != -1 || data.coin_holder < 0 || data.coin_holder >= n)
    return Invalid("a finished game has no turn but a coin holder");
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& holder = data.seats[seat];
    if (holder.taken != -1 || holder.held_count != 0 || holder.displaced != 0)
      return Invalid("seat ", seat, " holds tiles or a displaced card after the game");
  }
  return absl::OkStatus();
}

absl::Status CheckBidTurn(const Data& data, const BidsPerSeat& bids_of) {
  GAVEL_RETURN_IF_ERROR(CheckMover(data));
  if (data.coin_holder != -1) return Invalid("the start coin lies beside the moon cushion while bidding");
  if (bids_of[data.turn] != 0) return Invalid("the seat to move already has a card at a cushion");
  for (int seat = 0; seat < data.participants(); ++seat) {
    const SeatData& holder = data.seats[seat];
    if (holder.taken != -1 || holder.held_count != 0)
      return Invalid("seat ", seat, " cannot hold tiles while bidding");
    if (holder.displaced && bids_of[seat])
      return Invalid("seat ", seat, " has a displaced card and a card at a cushion");
  }
  return absl::OkStatus();
}

// In the chain phase seats resolve in order from the coin holder: those before the mover
// hold nothing, those after it hold their whole column, the mover holds part of it.
bool HeldFitsOrder(const Data& data, int seat) {
  const int n = data.participants();
  const SeatData& holder = data.seats[seat];
  const int mover_offset = (data.turn - data.coin_holder + n) % n;
  const int offset = (seat - data.coin_holder + n) % n;
  const int rows = Rows(holder.taken);
  return offset < mover_offset   ? holder.held_count == 0
         : offset > mover_offset ? holder.held_count == rows
                                 : holder.held_count >= 1 && holder.held_count <= rows;
}

absl::Status CheckChainTurn(const Data& data, const BidsPerSeat&) {
  GAVEL_RETURN_IF_ERROR(CheckMover(data));
  const int n = data.participants();
  if (data.coin_holder < 0 || data.coin_holder >= n)
    return Invalid("in the chain phase a seat holds the start coin");
  std::array<bool, kMaxParticipants> cushion_taken{};
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& holder = data.seats[seat];
    if (holder.displaced) return Invalid("seat ", seat, " cannot have a displaced card now");
    if (holder.taken < 0 || holder.taken >= n || cushion_taken[holder.taken])
      return Invalid("seat ", seat, " must have taken a cushion of its own");
    cushion_taken[holder.taken] = true;
    if ((holder.taken == 0) != (seat == data.coin_holder))
      return Invalid("the coin holder is the seat that took the moon cushion");
    if (!HeldFitsOrder(data, seat))
      return Invalid("seat ", seat, " holds ", static_cast<int>(holder.held_count),
                     " tiles, which does not fit the resolution order");
  }
  const SeatData& mover = data.seats[data.turn];
  for (int i = 0; i < mover.held_count; ++i)
    if (mover.held[i] == kSealTile) return Invalid("the seat to move still holds a seal tile");
  return absl::OkStatus();
}

using TurnCheck = absl::Status (*)(const Data&, const BidsPerSeat&);
struct PhaseTurnCheck {
  Phase phase;
  TurnCheck check;
};
// The checks of the turn, the start coin and the seats' tiles, per phase.
constexpr std::array<PhaseTurnCheck, 3> kTurnChecks = {{
    {Phase::kBid, CheckBidTurn},
    {Phase::kChain, CheckChainTurn},
    {Phase::kFinished, CheckFinishedTurn},
}};

// Bids, turn and the chain-phase resolution order.
absl::Status ValidateTurn(const Data& data) {
  BidsPerSeat bids_of{};
  GAVEL_RETURN_IF_ERROR(CountBids(data, bids_of));
  for (const PhaseTurnCheck& entry : kTurnChecks)
    if (entry.phase == data.phase) return entry.check(data, bids_of);
  return CheckChainTurn(data, bids_of);
}

struct CardPlaces {
  int discard = 0, pile = 0, under = 0, hand = 0;
};

// How many of a seat's cards each place holds at this point of the game.
CardPlaces ExpectedCardPlaces(const Data& data, int seat, int in_play) {
  const bool finished = data.phase == Phase::kFinished;
  const int rounds_done = finished ? kPasses * kRounds : kRounds * data.pass + data.round;
  CardPlaces expected;
  // Played this round (bid phase: at most one; chain phase: already discarded).
  expected.discard = rounds_done + (data.phase == Phase::kChain ? 1 : 0);
  if (data.IsBot(seat)) {
    expected.hand = data.phase == Phase::kBid ? 1 - in_play : 0;
    expected.pile = kCards - expected.discard - in_play - expected.hand;
  } else {
    const bool more_passes = data.pass + 1 < kPasses && !finished;
    expected.pile = more_passes ? kCards - kHandSize * (data.pass + 1) : 0;
    expected.under = more_passes ? data.pass : 0;
    expected.hand = kCards - expected.discard - in_play - expected.pile - expected.under;
  }
  return expected;
}

// Each seat's 13 cards are each in exactly one place, as many in each as the game has come.
absl::Status ValidateCards(const Data& data) {
  const int n = data.participants();
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& holder = data.seats[seat];
    CardSet placed = 0;
    for (int cushion = 0; cushion < n; ++cushion)
      if (data.bids[cushion].seat == seat) placed = CardBit(data.bids[cushion].card);
    const CardSet displaced = holder.displaced ? CardBit(holder.displaced) : 0;
    const std::array<CardSet, 6> parts = {holder.pile, holder.under, holder.hand, holder.discard,
                                          placed, displaced};
    CardSet all = 0;
    int total = 0;
    for (CardSet part : parts) {
      all |= part;
      total += CardCount(part);
    }
    if (all != kAllCards || total != kCards)
      return Invalid("seat ", seat, "'s cards 1-13 must each be in exactly one place");
    const CardPlaces want = ExpectedCardPlaces(data, seat, CardCount(placed) + CardCount(displaced));
    if (CardCount(holder.discard) != want.discard || CardCount(holder.pile) != want.pile ||
        CardCount(holder.under) != want.under || CardCount(holder.hand) != want.hand || want.hand < 0)
      return Invalid("seat ", seat, " must have ", want.discard, " discarded, ", want.pile,
                     " in the pile, ", want.under, " under it and ", want.hand, " in hand now");
  }
  return absl::OkStatus();
}

// Seals are conserved with a finite supply, bounded with an unlimited one.
absl::Status ValidateSeals(const Data& data) {
  int seals = 0;
  for (int seat = 0; seat < data.participants(); ++seat) seals += data.seats[seat].seals;
  if (data.unlimited_seals) {
    // Seals only come from seal tiles and discarded chains (at most 44 in a game).
    const int most = kStartSeals * data.participants() + 5 + 44;
    if (data.seal_supply != 0 || seals > most)
      return Invalid("with unlimited seals the supply count is 0 and seats hold at most ", most);
    return absl::OkStatus();
  }
  if (seals + data.seal_supply != kSealTokens)
    return Invalid("seats hold ", seals, " seals and the supply ", static_cast<int>(data.seal_supply),
                   "; together they must be 29");
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckSeating(int humans, int bots) {
  const int n = humans + bots;
  if (n < 3 || n > kMaxParticipants)
    return Invalid(humans, " humans and ", bots, " bots make ", n, " seats; 3 to 5 are needed");
  if (humans == 1 && bots != 2) return Invalid("a solo game needs both bots (bots=2)");
  if (humans == 2 && bots < 1) return Invalid("a 2-human game needs Dirk (bots=1 or 2)");
  return absl::OkStatus();
}

absl::Status Validate(const Data& data) {
  GAVEL_RETURN_IF_ERROR(CheckSeating(data.humans, data.bots));
  const bool finished = data.phase == Phase::kFinished;
  if (finished ? (data.pass != kPasses || data.round != 0)
               : (data.pass >= kPasses || data.round >= kRounds))
    return Invalid("pass ", data.pass, " round ", data.round, " does not fit phase ",
                   static_cast<int>(data.phase));
  for (int seat = data.participants(); seat < kMaxParticipants; ++seat)
    if (data.seats[seat].held_count || data.seats[seat].pile) return Invalid("an unused seat is in play");
  GAVEL_RETURN_IF_ERROR(ValidateTurn(data));
  GAVEL_RETURN_IF_ERROR(ValidateTiles(data));
  GAVEL_RETURN_IF_ERROR(ValidateCards(data));
  GAVEL_RETURN_IF_ERROR(ValidateSeals(data));
  // At most 4 per colour per pass scored so far, plus the two final scorings; a bound that
  // ignored progress would accept a state whose later scorings overflow it.
  const int most_prestige = 4 * kColours * data.pass + (finished ? 8 : 0);
  for (int seat = 0; seat < data.participants(); ++seat)
    if (data.seats[seat].prestige < 0 || data.seats[seat].prestige > most_prestige)
      return Invalid("seat ", seat, "'s prestige ", data.seats[seat].prestige, " is more than the game awards");
  return absl::OkStatus();
}

}  // namespace gavel::moonlight_market
