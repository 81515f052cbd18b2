// Validation of an untrusted decoded state: everything the rules can reach, nothing else.
#include "engine/sultan/sultan_wire.h"

namespace gavel::sultan {

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

}  // namespace gavel::sultan
