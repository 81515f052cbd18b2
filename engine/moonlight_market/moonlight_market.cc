// Moonlight Market's rules: legal moves, bidding with displacement, the chain phase and
// the automata. Round ends and scorings: moonlight_market_scoring.cc.
#include "engine/moonlight_market/moonlight_market.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/core/move_texts.h"
#include "engine/core/ranking.h"
#include "engine/moonlight_market/moonlight_market_names.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {
namespace {

// Insertion sort of a few held tiles (at most 3).
template <typename Less>
void SortTiles(std::array<uint8_t, kColumns>& tiles, int count, Less less) {
  for (int i = 1; i < count; ++i)
    for (int j = i; j > 0 && less(tiles[j], tiles[j - 1]); --j) std::swap(tiles[j], tiles[j - 1]);
}

// Sort key of the bots' attachment order (docs/rules/moonlight_market.md §9.2.3).
int BotKey(int tile) {
  const TileInfo info = Describe(tile);
  const int kind = info.type == TileType::kSingle ? 0 : info.type == TileType::kTwoGem ? 1 : 2;
  return ((info.value * kColours + info.colour) * 3 + kind) * kColours + info.second;
}

}  // namespace

std::string TileName(int tile) {
  const TileInfo info = Describe(tile);
  switch (info.type) {
    case TileType::kSingle:
      return absl::StrCat(kColourNames[info.colour], " ", info.value);
    case TileType::kDoubler:
      return absl::StrCat(kColourNames[info.colour], " doubler");
    case TileType::kTwoGem:
      return absl::StrCat(kColourNames[info.colour], "/", kColourNames[info.second], " ",
                          info.value);
    case TileType::kWorthless:
      return "worthless tile";
    case TileType::kSeal:
      return "seal tile";
    case TileType::kHammer:
      break;
  }
  return "hammer";
}

std::string SeatName(const Data& data, int seat) {
  return data.IsBot(seat) ? std::string(BotName(data, seat)) : absl::StrCat("seat ", seat);
}

bool Attachable(int tile, int colour) {
  const TileInfo info = Describe(tile);
  switch (info.type) {
    case TileType::kSingle:
    case TileType::kDoubler:
      return info.colour == colour;
    case TileType::kTwoGem:
      return info.colour == colour || info.second == colour;
    case TileType::kWorthless:
      return true;
    default:
      return false;
  }
}

int CardCount(CardSet cards) { return std::popcount(static_cast<unsigned>(cards)); }

int NthCard(CardSet cards, int k) {
  for (int card = 1; card <= kCards; ++card) {
    if (!(cards & CardBit(card))) continue;
    if (k-- == 0) return card;
  }
  return 0;
}

int DrawCard(CardSet& from, Rng& rng) {
  const int card = NthCard(from, static_cast<int>(rng.Below(static_cast<uint32_t>(CardCount(from)))));
  from = static_cast<CardSet>(from & ~CardBit(card));
  return card;
}

int ChainValue(std::span<const uint8_t> tiles, bool doubled) {
  int value = 0;
  bool doubler = false;
  for (uint8_t tile : tiles) {
    value += Describe(tile).value;
    doubler = doubler || Describe(tile).type == TileType::kDoubler;
  }
  return doubler && doubled ? 2 * value : value;
}

bool DiscardEarnsSeal(std::span<const uint8_t> chain, bool face_discard) {
  return chain.size() == kChainLimit && ChainValue(chain, !face_discard) >= kDiscardSealValue;
}

bool Eligible(std::span<const uint8_t> tiles) {
  for (uint8_t tile : tiles) {
    const TileType type = Describe(tile).type;
    if (type == TileType::kSingle || type == TileType::kTwoGem) return true;
  }
  return false;
}

std::vector<int> Awards(const std::vector<int>& keys, const std::vector<bool>& eligible,
                        bool competition) {
  std::vector<int> ranked;
  for (size_t i = 0; i < keys.size(); ++i)
    if (eligible[i]) ranked.push_back(keys[i]);
  const PerSeat<int> places = competition ? CompetitionRanks(ranked) : DenseRanks(ranked);
  constexpr std::array<int, 4> kPoints = {0, 4, 2, 1};
  std::vector<int> points(keys.size(), 0);
  for (size_t i = 0, next = 0; i < keys.size(); ++i) {
    if (!eligible[i]) continue;
    const int place = places[next++];
    points[i] = place <= 3 ? kPoints[place] : 0;
  }
  return points;
}

const char* BotName(const Data& data, int seat) {
  if (!data.IsBot(seat)) return "";
  return seat == data.participants() - 1 ? kDirk : kBeate;
}

// ---------------------------------------------------------------------------
// Legal moves

void MoonlightState::LegalMoves(std::vector<Move>& out) const {
  out.clear();
  if (data_.phase == Phase::kFinished) return;
  const SeatData& seat = data_.seats[data_.turn];
  if (data_.phase == Phase::kBid) {
    const CardSet cards = seat.displaced ? CardBit(seat.displaced) : seat.hand;
    for (int card = 1; card <= kCards; ++card) {
      if (!(cards & CardBit(card))) continue;
      for (int cushion = 0; cushion < data_.participants(); ++cushion) {
        const CushionBid& bid = data_.bids[cushion];
        if (bid.seat < 0 || (bid.card < card && seat.seals > 0)) out.push_back(BidMove(card, cushion));
      }
    }
    return;
  }
  const auto held = std::span(seat.held.data(), seat.held_count);
  if (std::find(held.begin(), held.end(), kHammer) != held.end()) {
    for (int colour = 0; colour < kColours; ++colour) {
      const Chain& chain = seat.chains[colour];
      for (int position = 0; position < chain.size; ++position) {
        const auto* first = std::find(chain.tiles.begin(), chain.tiles.end(), chain.tiles[position]);
        if (first - chain.tiles.begin() == position) out.push_back(HammerMove(colour, position));
      }
    }
    out.push_back(HammerDiscardMove());
    return;
  }
  std::array<uint8_t, kColumns> tiles = seat.held;
  SortTiles(tiles, seat.held_count, std::less<uint8_t>());
  for (int i = 0; i < seat.held_count; ++i) {
    if (i > 0 && tiles[i] == tiles[i - 1]) continue;
    for (int colour = 0; colour < kColours; ++colour)
      if (Attachable(tiles[i], colour)) out.push_back(AttachMove(tiles[i], colour));
  }
}

bool MoonlightState::IsLegal(Move move) const {
  if (data_.phase == Phase::kFinished || move.id > kMaxMoveId) return false;
  const SeatData& seat = data_.seats[data_.turn];
  if (data_.phase == Phase::kBid) {
    if (!IsBid(move)) return false;
    const int card = BidCard(move), cushion = BidCushion(move);
    if (card < 1 || card > kCards || cushion >= data_.participants()) return false;
    const bool owned = seat.displaced ? seat.displaced == card : (seat.hand & CardBit(card)) != 0;
    const CushionBid& bid = data_.bids[cushion];
    return owned && (bid.seat < 0 || (bid.card < card && seat.seals > 0));
  }
  const auto held = std::span(seat.held.data(), seat.held_count);
  const bool hammer = std::find(held.begin(), held.end(), kHammer) != held.end();
  if (IsHammer(move)) {
    if (!hammer) return false;
    if (move.id == kHammerDiscard) return true;
    const Chain& chain = seat.chains[HammerColour(move)];
    const int position = HammerPosition(move);
    if (position >= chain.size) return false;
    return std::find(chain.tiles.begin(), chain.tiles.end(), chain.tiles[position]) -
               chain.tiles.begin() == position;
  }
  if (!IsAttach(move) || hammer) return false;
  const int tile = AttachTile(move), colour = AttachColour(move);
  return colour < kColours && tile <= kWorthless &&
         std::find(held.begin(), held.end(), tile) != held.end() && Attachable(tile, colour);
}

// ---------------------------------------------------------------------------
// Applying moves

void MoonlightState::ApplyLegal(Move move, EventSink* events) {
  const int seat = data_.turn;
  if (IsBid(move)) {
    PlaceBid(seat, BidCard(move), BidCushion(move), false, events);
    RunBidding((seat + 1) % data_.participants(), events);
    return;
  }
  if (IsHammer(move)) {
    if (move.id == kHammerDiscard) {
      UseHammer(seat, -1, 0, events);
    } else {
      UseHammer(seat, HammerColour(move), HammerPosition(move), events);
    }
  } else {
    TakeHeld(seat, AttachTile(move));
    Attach(seat, AttachTile(move), AttachColour(move), events);
  }
  RunChainPhase(seat, events);
}

void MoonlightState::StartPass(EventSink* events) {
  FillCushions(events);
  DrawHands(events);
  StartRound(events);
}

void MoonlightState::FillCushions(EventSink* events) {
  Rng rng(data_.rng);
  int total = 0;
  for (uint8_t count : data_.supply) total += count;
  auto draw = [&] {
    const int tile = rng.PickWeighted(data_.supply.data(), kTileKinds, total);
    --data_.supply[tile];
    --total;
    return tile;
  };
  int set_aside = 0;
  for (int cushion = 0; cushion < data_.participants(); ++cushion) {
    for (int column = 0; column < kColumns; ++column) {
      for (int row = 0; row < Rows(cushion); ++row) {
        int tile = draw();
        // Pass 1: a drawn hammer is set aside and the slot drawn again
        // (docs/rules/moonlight_market.md §4.1).
        for (; data_.pass == 0 && tile == kHammer; ++set_aside) tile = draw();
        data_.slots[cushion][column][row] = static_cast<uint8_t>(tile);
      }
    }
  }
  data_.supply[kHammer] = static_cast<uint8_t>(data_.supply[kHammer] + set_aside);
  data_.rng = rng.state();
  if (!events) return;
  EventDraft<v1::MoonlightEvent> draft;
  v1::MoonlightEvent& event = *draft;
  auto* filled = event.mutable_cushions_filled();
  filled->set_pass(data_.pass);
  filled->set_hammers_set_aside(set_aside);
  for (int cushion = 0; cushion < data_.participants(); ++cushion) {
    auto* shown = filled->add_cushions();
    shown->set_bid_seat(-1);
    for (const auto& column : data_.slots[cushion]) {
      auto* shown_column = shown->add_columns();
      for (int row = 0; row < Rows(cushion); ++row) shown_column->add_tiles(column[row]);
    }
  }
  events->Emit(kEveryone, event,
               absl::StrCat("pass ", data_.pass + 1, ": the cushions are filled",
                            set_aside ? absl::StrCat(" (", set_aside, " hammers set aside)") : ""));
}

void MoonlightState::DrawHands(EventSink* events) {
  Rng rng(data_.rng);
  for (int seat = 0; seat < data_.humans; ++seat) {
    SeatData& holder = data_.seats[seat];
    // Never-held cards first; only in pass 4 do the cards under the pile come back.
    for (int i = 0; i < kHandSize; ++i) {
      int card = 0;
      if (holder.pile) {
        card = DrawCard(holder.pile, rng);
      } else {
        card = NthCard(holder.under, 0);
        holder.under = static_cast<CardSet>(holder.under & ~CardBit(card));
      }
      holder.hand |= CardBit(card);
    }
    if (events) {
      EventDraft<v1::MoonlightEvent> draft;
      v1::MoonlightEvent& event = *draft;
      auto* drawn = event.mutable_hand_drawn();
      drawn->set_seat(seat);
      drawn->set_count(kHandSize);
      events->Emit(AllBut(seat), event, absl::StrCat("seat ", seat, " draws ", kHandSize, " cards"));
      std::vector<int> cards;
      for (int card = 1; card <= kCards; ++card)
        if (holder.hand & CardBit(card)) cards.push_back(card);
      for (int card : cards) drawn->add_cards(card);
      events->Emit(OnlySeat(seat), event,
                   absl::StrCat("seat ", seat, " draws ", absl::StrJoin(cards, ", ")));
    }
  }
  data_.rng = rng.state();
}

void MoonlightState::StartRound(EventSink* events) {
  // Each bot's card for the round, face down until its first bid (see the .proto).
  Rng rng(data_.rng);
  for (int seat = data_.humans; seat < data_.participants(); ++seat)
    data_.seats[seat].hand = CardBit(DrawCard(data_.seats[seat].pile, rng));
  data_.rng = rng.state();
  data_.phase = Phase::kBid;
  const int first = data_.coin_holder;
  data_.coin_holder = -1;  // beside the moon cushion while bidding
  RunBidding(first, events);
}

// Gives the turn to the next seat without a card at a cushion, playing bots on the way;
// distributes the columns once every seat has a card at a cushion.
void MoonlightState::RunBidding(int from, EventSink* events) {
  const int n = data_.participants();
  // Terminates: a bot always places its card, and every displacement raises a cushion.
  while (true) {
    std::array<bool, kMaxParticipants> placed{};
    for (int cushion = 0; cushion < n; ++cushion)
      if (data_.bids[cushion].seat >= 0) placed[data_.bids[cushion].seat] = true;
    int seat = -1;
    for (int offset = 0; offset < n && seat < 0; ++offset)
      if (!placed[(from + offset) % n]) seat = (from + offset) % n;
    if (seat < 0) break;
    if (!data_.IsBot(seat)) {
      data_.turn = static_cast<int8_t>(seat);
      return;
    }
    BotBid(seat, events);
    from = (seat + 1) % n;
  }
  Distribute(events);
}

void MoonlightState::BotBid(int seat, EventSink* events) {
  SeatData& bot = data_.seats[seat];
  const bool revealed = bot.displaced == 0;
  const int card = revealed ? NthCard(bot.hand, 0) : bot.displaced;
  for (int cushion = 0; cushion < data_.participants(); ++cushion) {
    const CushionBid& bid = data_.bids[cushion];
    if (bid.seat < 0 || (bid.card < card && bot.seals > 0)) {
      PlaceBid(seat, card, cushion, revealed, events);
      return;
    }
  }
}

void MoonlightState::PlaceBid(int seat, int card, int cushion, bool revealed, EventSink* events) {
  SeatData& bidder = data_.seats[seat];
  if (bidder.displaced == card) {
    bidder.displaced = 0;
  } else {
    bidder.hand = static_cast<CardSet>(bidder.hand & ~CardBit(card));
  }
  CushionBid& bid = data_.bids[cushion];
  const CushionBid before = bid;
  if (before.seat >= 0) {
    SeatData& owner = data_.seats[before.seat];
    owner.displaced = before.card;
    --bidder.seals;
    ++owner.seals;
  }
  bid = CushionBid{static_cast<int8_t>(seat), static_cast<uint8_t>(card)};
  if (!events) return;
  EventDraft<v1::MoonlightEvent> draft;
  v1::MoonlightEvent& event = *draft;
  auto* placed = event.mutable_bid_placed();
  placed->set_seat(seat);
  placed->set_card(card);
  placed->set_cushion(cushion);
  placed->set_displaced_seat(before.seat);
  placed->set_displaced_card(before.card);
  placed->set_seal_paid(before.seat >= 0);
  placed->set_revealed(revealed);
  std::string text = absl::StrCat(SeatName(data_, seat), revealed ? " reveals " : " bids ", card,
                                  " on cushion ", cushion);
  if (before.seat >= 0)
    absl::StrAppend(&text, ", displacing ", SeatName(data_, before.seat), "'s ",
                    static_cast<int>(before.card), " and paying 1 seal");
  events->Emit(kEveryone, event, text);
}

void MoonlightState::Distribute(EventSink* events) {
  const int column = data_.round;
  for (int cushion = 0; cushion < data_.participants(); ++cushion) {
    CushionBid& bid = data_.bids[cushion];
    SeatData& taker = data_.seats[bid.seat];
    taker.taken = static_cast<int8_t>(cushion);
    taker.discard |= CardBit(bid.card);
    taker.held_count = static_cast<uint8_t>(Rows(cushion));
    for (int row = 0; row < Rows(cushion); ++row) {
      taker.held[row] = data_.slots[cushion][column][row];
      data_.slots[cushion][column][row] = kNoTile;
    }
    if (cushion == 0) data_.coin_holder = bid.seat;
    if (events) {
      EventDraft<v1::MoonlightEvent> draft;
      v1::MoonlightEvent& event = *draft;
      auto* taken = event.mutable_column_taken();
      taken->set_seat(bid.seat);
      taken->set_cushion(cushion);
      taken->set_column(column);
      std::vector<std::string> names;
      for (int row = 0; row < Rows(cushion); ++row) {
        taken->add_tiles(taker.held[row]);
        names.push_back(TileName(taker.held[row]));
      }
      taken->set_start_coin(cushion == 0);
      events->Emit(kEveryone, event,
                   absl::StrCat(SeatName(data_, bid.seat), " takes ", absl::StrJoin(names, ", "),
                                " from cushion ", cushion, cushion == 0 ? " and the start coin" : ""));
    }
    bid = CushionBid{};
  }
  data_.phase = Phase::kChain;
  RunChainPhase(data_.coin_holder, events);
}

// Seats resolve one at a time from the coin holder; bots are played here, the turn stops
// at the first human still holding tiles.
void MoonlightState::RunChainPhase(int from, EventSink* events) {
  const int n = data_.participants();
  for (int offset = (from - data_.coin_holder + n) % n; offset < n; ++offset) {
    const int seat = (data_.coin_holder + offset) % n;
    ResolveSealTiles(seat, events);
    if (data_.IsBot(seat)) {
      BotPlaceTiles(seat, events);
    } else if (data_.seats[seat].held_count > 0) {
      data_.turn = static_cast<int8_t>(seat);
      return;
    }
  }
  EndRound(events);
}

void MoonlightState::TakeHeld(int seat, int tile) {
  SeatData& holder = data_.seats[seat];
  for (int i = 0; i < holder.held_count; ++i) {
    if (holder.held[i] != tile) continue;
    for (int j = i + 1; j < holder.held_count; ++j) holder.held[j - 1] = holder.held[j];
    holder.held[--holder.held_count] = 0;
    return;
  }
}

void MoonlightState::ResolveSealTiles(int seat, EventSink* events) {
  const SeatData& holder = data_.seats[seat];
  while (std::find(holder.held.begin(), holder.held.begin() + holder.held_count, kSealTile) !=
         holder.held.begin() + holder.held_count) {
    TakeHeld(seat, kSealTile);
    ++data_.box[kSealTile];
    GainSeal(seat, false, events);
  }
}

void MoonlightState::GainSeal(int seat, bool from_discard, EventSink* events) {
  const bool lost = !data_.unlimited_seals && data_.seal_supply == 0;
  if (!lost) {
    ++data_.seats[seat].seals;
    if (!data_.unlimited_seals) --data_.seal_supply;
  }
  if (!events) return;
  EventDraft<v1::MoonlightEvent> draft;
  v1::MoonlightEvent& event = *draft;
  auto* gained = event.mutable_seal_gained();
  gained->set_seat(seat);
  gained->set_cause(from_discard ? v1::MoonlightEvent::SEAL_CAUSE_DISCARDED_CHAIN
                                 : v1::MoonlightEvent::SEAL_CAUSE_SEAL_TILE);
  gained->set_lost(lost);
  events->Emit(kEveryone, event,
               absl::StrCat(SeatName(data_, seat), lost ? " would gain a seal, but none are left"
                                                        : " gains a seal"));
}

void MoonlightState::UseHammer(int seat, int colour, int position, EventSink* events) {
  TakeHeld(seat, kHammer);
  ++data_.box[kHammer];
  int removed = 0;
  if (colour >= 0) {
    Chain& chain = data_.seats[seat].chains[colour];
    removed = chain.tiles[position];
    ++data_.box[removed];
    for (int i = position + 1; i < chain.size; ++i) chain.tiles[i - 1] = chain.tiles[i];
    chain.tiles[--chain.size] = 0;
  }
  if (!events) return;
  EventDraft<v1::MoonlightEvent> draft;
  v1::MoonlightEvent& event = *draft;
  auto* used = event.mutable_hammer_used();
  used->set_seat(seat);
  used->set_discard(colour < 0);
  if (colour >= 0) {
    used->set_colour(ToColour(colour));
    used->set_position(position);
    used->set_removed_tile(removed);
  }
  events->Emit(kEveryone, event,
               colour < 0 ? absl::StrCat(SeatName(data_, seat), " boxes a hammer unused")
                          : absl::StrCat(SeatName(data_, seat), " hammers away the ",
                                         TileName(removed), " from the ", kColourNames[colour],
                                         " chain"));
}

void MoonlightState::Attach(int seat, int tile, int colour, EventSink* events) {
  Chain& chain = data_.seats[seat].chains[colour];
  if (chain.size == kChainLimit) {
    const bool seal = DiscardEarnsSeal(Tiles(chain), data_.face_discard);
    for (uint8_t old : Tiles(chain)) ++data_.box[old];
    if (events) {
      const int value = ChainValue(Tiles(chain), !data_.face_discard);
      EventDraft<v1::MoonlightEvent> draft;
      v1::MoonlightEvent& event = *draft;
      auto* discarded = event.mutable_chain_discarded();
      discarded->set_seat(seat);
      discarded->set_colour(ToColour(colour));
      for (uint8_t old : Tiles(chain)) discarded->add_tiles(old);
      discarded->set_value(value);
      discarded->set_seal(seal);
      events->Emit(kEveryone, event,
                   absl::StrCat(SeatName(data_, seat), "'s full ", kColourNames[colour],
                                " chain (value ", value, ") goes to the box"));
    }
    chain = Chain{};
    if (seal) GainSeal(seat, true, events);
  }
  chain.tiles[chain.size++] = static_cast<uint8_t>(tile);
  if (!events) return;
  EventDraft<v1::MoonlightEvent> draft;
  v1::MoonlightEvent& event = *draft;
  auto* attached = event.mutable_tile_attached();
  attached->set_seat(seat);
  attached->set_tile(tile);
  attached->set_colour(ToColour(colour));
  events->Emit(kEveryone, event,
               absl::StrCat(SeatName(data_, seat), " attaches the ", TileName(tile), " to ",
                            kColourNames[colour]));
}

void MoonlightState::BotPlaceTiles(int seat, EventSink* events) {
  SeatData& bot = data_.seats[seat];
  while (std::find(bot.held.begin(), bot.held.begin() + bot.held_count, kHammer) !=
         bot.held.begin() + bot.held_count)
    UseHammer(seat, -1, 0, events);
  std::array<uint8_t, kColumns> tiles = bot.held;
  const int count = bot.held_count;
  // Gems and worthless tiles by the key of docs/rules/moonlight_market.md §9.2.3, then doublers
  // by colour.
  SortTiles(tiles, count, [](uint8_t a, uint8_t b) {
    const bool a_doubler = Describe(a).type == TileType::kDoubler;
    const bool b_doubler = Describe(b).type == TileType::kDoubler;
    if (a_doubler != b_doubler) return b_doubler;
    return a_doubler ? a < b : BotKey(a) < BotKey(b);
  });
  for (int i = 0; i < count; ++i) {
    const int tile = tiles[i];
    const TileInfo info = Describe(tile);
    int colour = info.colour;
    if (info.type == TileType::kTwoGem) {
      if (bot.chains[info.second].size < bot.chains[info.colour].size) colour = info.second;
    } else if (info.type == TileType::kWorthless) {
      for (int c = 1; c < kColours; ++c)
        if (bot.chains[c].size < bot.chains[colour].size) colour = c;
    }
    TakeHeld(seat, tile);
    Attach(seat, tile, colour, events);
  }
}

// ---------------------------------------------------------------------------
// Move descriptions

std::string IdText(Move move) {
  if (IsBid(move)) return absl::StrCat("bid ", BidCard(move), " on cushion ", BidCushion(move));
  if (move.id == kHammerDiscard) return "box the hammer unused";
  if (IsHammer(move)) {
    const int colour = HammerColour(move), position = HammerPosition(move);
    return absl::StrCat("hammer the ", kColourNames[colour], " chain's tile ", position + 1);
  }
  if (IsAttach(move) && AttachTile(move) <= kWorthless && AttachColour(move) < kColours)
    return absl::StrCat("attach the ", TileName(AttachTile(move)), " to ",
                        kColourNames[AttachColour(move)]);
  return "";
}

bool MoonlightState::Displaces(Move move) const {
  if (!IsBid(move)) return false;
  const int cushion = BidCushion(move);
  return cushion < kMaxParticipants && data_.bids[cushion].seat >= 0;
}

// Texts are built once per id (the service lists every legal move of each turn); only a
// displacing bid's is built per call.
std::string MoonlightState::MoveText(Move move) const {
  static const FixedMoveTexts texts(kMaxMoveId, IdText);
  const std::string* text = texts.Find(move);
  if (text == nullptr) return absl::StrCat("unknown move ", move.id);
  if (!Displaces(move)) return *text;
  return absl::StrCat(*text, " (displacing ", static_cast<int>(data_.bids[BidCushion(move)].card), ")");
}

}  // namespace gavel::moonlight_market
