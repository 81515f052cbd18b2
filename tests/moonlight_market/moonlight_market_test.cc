// Moonlight Market rules: the test vectors of docs/rules/moonlight_market.md §13, seating
// and options, views, events and validation.
#include "engine/moonlight_market/moonlight_market.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gavel/v1/moonlight_market.pb.h"
#include "tests/property_suite.h"
#include "tests/support/decode_changed.h"
#include "tests/support/earlier_formats.h"
#include "tests/support/observed_view.h"
#include "tests/support/random_play.h"

namespace gavel::moonlight_market {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::UnorderedElementsAre;

GAVEL_PROPERTY_SUITE(MoonlightMarket, MoonlightMarketGame());

enum { kBlue, kRed, kWhite, kGreen, kYellow };
constexpr int kDoubler = kDoublerBase;  // + colour

std::unique_ptr<MoonlightState> NewMoonlight(int humans, uint64_t seed = 7,
                                             const OptionMap& options = {},
                                             EventSink* events = nullptr) {
  auto state = MoonlightMarketGame().NewGame(humans, seed, options, events);
  EXPECT_TRUE(state.ok()) << state.status();
  return std::unique_ptr<MoonlightState>(static_cast<MoonlightState*>(state->release()));
}

// Puts `card` into a human's hand, returning another hand card to the pile.
void GiveCard(Data& data, int seat, int card) {
  SeatData& holder = data.seats[seat];
  if (holder.hand & CardBit(card)) return;
  ASSERT_TRUE(holder.pile & CardBit(card)) << "card " << card << " is not in the pile";
  for (int other = 1; other <= kCards; ++other) {
    if (!(holder.hand & CardBit(other))) continue;
    holder.hand = static_cast<CardSet>((holder.hand & ~CardBit(other)) | CardBit(card));
    holder.pile = static_cast<CardSet>((holder.pile & ~CardBit(card)) | CardBit(other));
    return;
  }
  FAIL() << "no card to swap";
}

// Puts `tile` into a cushion slot, swapping with the supply or another slot (conservation).
void SetSlot(Data& data, int cushion, int column, int row, int tile) {
  uint8_t& slot = data.slots[cushion][column][row];
  if (slot == tile) return;
  if (data.supply[tile] > 0) {
    ++data.supply[slot];
    --data.supply[tile];
    slot = static_cast<uint8_t>(tile);
    return;
  }
  for (auto& other_cushion : data.slots)
    for (auto& other_column : other_cushion)
      for (uint8_t& other : other_column)
        if (other == tile && &other != &slot) {
          std::swap(other, slot);
          return;
        }
  FAIL() << "tile " << tile << " is nowhere to be had";
}

void SetChain(Data& data, int seat, int colour, std::vector<int> tiles) {
  Chain& chain = data.seats[seat].chains[colour];
  chain = Chain{};
  for (int tile : tiles) chain.tiles[chain.size++] = static_cast<uint8_t>(tile);
}

void SetHeld(Data& data, int seat, std::vector<int> tiles) {
  SeatData& holder = data.seats[seat];
  holder.held = {};
  holder.held_count = 0;
  for (int tile : tiles) holder.held[holder.held_count++] = static_cast<uint8_t>(tile);
}

template <typename Pick>
std::vector<v1::MoonlightEvent> EventsOf(const EventLog& log, Pick pick) {
  std::vector<v1::MoonlightEvent> picked;
  for (const v1::Event& event : log.All(5)) {
    v1::MoonlightEvent detail;
    EXPECT_TRUE(event.detail().UnpackTo(&detail));
    if (pick(detail)) picked.push_back(detail);
  }
  return picked;
}

std::vector<uint32_t> Ids(const std::vector<Move>& moves) {
  std::vector<uint32_t> ids;
  for (Move move : moves) ids.push_back(move.id);
  return ids;
}

std::vector<uint32_t> LegalIds(const State& state) {
  std::vector<Move> legal;
  state.LegalMoves(legal);
  return Ids(legal);
}

// Vector 2's table: Lea (0), Jonathan (1), Anika (2) with known column-0 tiles.
std::unique_ptr<MoonlightState> BiddingTable() {
  auto state = NewMoonlight(3, 21);
  Data& data = state->mutable_data();
  GiveCard(data, 0, 9);
  GiveCard(data, 1, 6);
  GiveCard(data, 2, 12);
  SetSlot(data, 0, 0, 0, SingleGem(kBlue, 7));
  SetSlot(data, 0, 0, 1, SingleGem(kRed, 6));
  SetSlot(data, 0, 0, 2, SingleGem(kYellow, 10));
  SetSlot(data, 1, 0, 0, SingleGem(kRed, 10));
  SetSlot(data, 1, 0, 1, SingleGem(kGreen, 9));
  SetSlot(data, 2, 0, 0, TwoGem(4, kBlue, kWhite));
  SetSlot(data, 2, 0, 1, SingleGem(kGreen, 5));
  EXPECT_TRUE(Validate(data).ok()) << Validate(data);
  return state;
}

TEST(MoonlightRules, ChainValues) {  // vector 1
  const std::vector<uint8_t> red = {SingleGem(kRed, 7), kDoubler + kRed, SingleGem(kRed, 8)};
  EXPECT_EQ(ChainValue(red), 30);
  EXPECT_TRUE(Eligible(red));
  const std::vector<uint8_t> doubler = {kDoubler + kRed};
  const std::vector<uint8_t> worthless = {kWorthless, kDoubler + kRed};
  EXPECT_EQ(ChainValue(doubler), 0);
  EXPECT_FALSE(Eligible(doubler));
  EXPECT_EQ(ChainValue(worthless), 0);
  EXPECT_FALSE(Eligible(worthless));
}

TEST(MoonlightRules, BiddingWithDisplacementAndSeals) {  // vector 2
  auto state = BiddingTable();
  EventLog log;
  EXPECT_EQ(state->to_move(), 0);
  ASSERT_TRUE(state->Apply(BidMove(9, 2), &log).ok());   // Lea
  ASSERT_TRUE(state->Apply(BidMove(6, 0), &log).ok());   // Jonathan
  ASSERT_TRUE(state->Apply(BidMove(12, 2), &log).ok());  // Anika displaces Lea's 9
  EXPECT_EQ(state->to_move(), 0);
  EXPECT_EQ(state->data().seats[0].displaced, 9);
  // Lea must use her displaced 9: only cushions 0 (6 < 9, she has seals) and 1 (empty).
  EXPECT_THAT(LegalIds(*state), ElementsAre(BidMove(9, 0).id, BidMove(9, 1).id));
  ASSERT_TRUE(state->Apply(BidMove(9, 0), &log).ok());  // displaces Jonathan's 6
  EXPECT_THAT(LegalIds(*state), ElementsAre(BidMove(6, 1).id));
  ASSERT_TRUE(state->Apply(BidMove(6, 1), &log).ok());
  const Data& data = state->data();
  EXPECT_EQ(data.phase, Phase::kChain);  // the bidding phase ended
  EXPECT_EQ(data.seats[0].seals, 3);
  EXPECT_EQ(data.seats[1].seals, 4);
  EXPECT_EQ(data.seats[2].seals, 2);
  EXPECT_EQ(data.seats[0].taken, 0);
  EXPECT_EQ(data.seats[1].taken, 1);
  EXPECT_EQ(data.seats[2].taken, 2);
  const auto bids = EventsOf(log, [](const auto& e) { return e.has_bid_placed(); });
  ASSERT_EQ(bids.size(), 5u);
  EXPECT_EQ(bids[2].bid_placed().displaced_seat(), 0);
  EXPECT_EQ(bids[2].bid_placed().displaced_card(), 9u);
  EXPECT_TRUE(bids[2].bid_placed().seal_paid());
  EXPECT_EQ(bids[3].bid_placed().displaced_seat(), 1);
  EXPECT_FALSE(bids[4].bid_placed().seal_paid());
}

// A bid's features carry its column's make-up and the card at its cushion: the network
// cannot otherwise tell which cushion's tiles a bid takes (vector 2's table, after Lea's 9
// went to cushion 2: Jonathan to move with his 6). Layout: moonlight_market_features.cc.
TEST(MoonlightFeatures, ABidCarriesItsColumnAndTheCardThere) {
  auto state = BiddingTable();
  ASSERT_TRUE(state->Apply(BidMove(9, 2), nullptr).ok());
  v1::View view;
  state->Observe(1, &view);
  const std::vector<Move> bids = {BidMove(6, 0), BidMove(6, 1)};
  Features features;
  ASSERT_TRUE(MoonlightMarketGame().Featurize(view, bids, &features).ok());
  constexpr int kColumn = 16 + kColours;  // after the common move features and the colour
  ASSERT_EQ(features.move_size, kColumn + kColours + 4 + 1 + 5 + 2);
  const auto column_of = [&](int bid) {
    const float* f = features.moves.data() + bid * features.move_size + kColumn;
    return std::vector<float>(f, f + kColours + 5);
  };
  // Cushion 0: blue 7, red 6, yellow 10; no card there. Cushion 1: red 10, green 9.
  EXPECT_THAT(column_of(0), ElementsAre(0.7f, 0.6f, 0.f, 0.f, 1.0f, 0.f, 0.f, 0.f, 0.f, 0.f));
  EXPECT_THAT(column_of(1), ElementsAre(0.f, 1.0f, 0.f, 0.9f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f));
  // Bidding where Lea's 9 lies would need a card above it: the feature carries that card.
  state->Observe(1, &view);
  ASSERT_TRUE(MoonlightMarketGame().Featurize(view, std::vector<Move>{BidMove(6, 2)}, &features).ok());
  EXPECT_FLOAT_EQ(features.moves[kColumn + kColours + 4], 9.f / kCards);
}

// The standings block of move `i`'s features: pass points, the others' mean, seals, a rival's
// gain, the seal scoring's change (after the common features, the colour and a bid's column).
std::vector<float> StandingOf(const Features& features, int i) {
  constexpr int kStanding = 16 + kColours + kColours + 4 + 1;
  const float* f = features.moves.data() + i * features.move_size + kStanding;
  return std::vector<float>(f, f + 5);
}

// A bid's standings: the column's tiles placed where they gain the bidder most, the pass
// scored as if now, the most a rival would gain from them, and the seal scoring's change.
// Lea holds red 8 and Anika blue 9; Jonathan (seat 1) bids; every seat has 3 seals.
TEST(MoonlightFeatures, ABidCarriesTheStandingsItsColumnWins) {
  auto state = BiddingTable();
  SetChain(state->mutable_data(), 0, kRed, {SingleGem(kRed, 8)});
  SetChain(state->mutable_data(), 2, kBlue, {SingleGem(kBlue, 9)});
  ASSERT_TRUE(state->Apply(BidMove(9, 2), nullptr).ok());  // Lea's 9 to cushion 2
  v1::View view;
  state->Observe(1, &view);
  const std::vector<Move> bids = {BidMove(6, 0), BidMove(6, 1), BidMove(6, 2)};
  Features features;
  ASSERT_TRUE(MoonlightMarketGame().Featurize(view, bids, &features).ok());
  // Cushion 0 (blue 7, red 6, yellow 10): second in blue and red, first in yellow: 8 points.
  // Lea or Anika would gain 6 (one of the two colours she leads already).
  EXPECT_THAT(StandingOf(features, 0), ElementsAre(2.f, 0.f, 0.f, 1.5f, 0.f));
  // Cushion 1 (red 10, green 9): first in both, and Lea falls to second in red (4 to 2
  // points, the others' mean 1 lower). Anika would gain 8, Lea 4 (she leads red).
  EXPECT_THAT(StandingOf(features, 1), ElementsAre(2.f, -0.25f, 0.f, 2.f, 0.f));
  // Cushion 2 (blue/white 4, green 5): the two-gem goes to white, where it is first, not to
  // blue, where it would be second; displacing Lea's 9 pays her a seal, and Jonathan falls
  // from a three-way tie at 3 seals (4 points) to third with 2 (1 point).
  EXPECT_THAT(StandingOf(features, 2), ElementsAre(2.f, 0.f, -1.f, 2.f, -0.75f));
}

// An attach's and a hammer's standings. Lea holds red 8; Jonathan (seat 1) holds red 10 and a
// full green chain of 24; Anika has 4 seals, the others 3.
TEST(MoonlightFeatures, AttachAndHammerCarryTheirStandings) {
  auto state = BiddingTable();
  Data& data = state->mutable_data();
  SetChain(data, 0, kRed, {SingleGem(kRed, 8)});
  SetChain(data, 1, kRed, {SingleGem(kRed, 10)});
  SetChain(data, 1, kGreen, {SingleGem(kGreen, 9), SingleGem(kGreen, 8), SingleGem(kGreen, 7)});
  data.seats[2].seals = 4;
  v1::View view;
  state->Observe(1, &view);
  const std::vector<Move> moves = {AttachMove(SingleGem(kBlue, 3), kBlue),
                                   AttachMove(SingleGem(kGreen, 1), kGreen), HammerMove(kRed, 0)};
  Features features;
  ASSERT_TRUE(MoonlightMarketGame().Featurize(view, moves, &features).ok());
  // Blue 3 alone in blue: 4 points, nobody else's change, no seal.
  EXPECT_THAT(StandingOf(features, 0), ElementsAre(1.f, 0.f, 0.f, 0.f, 0.f));
  // Green 1 sends the full chain of 24 to the box: still first in green (alone), a seal,
  // and 4 seals tie Anika's for first in the seal scoring (2 points to 4).
  EXPECT_THAT(StandingOf(features, 1), ElementsAre(0.f, 0.f, 1.f, 0.f, 0.5f));
  // Hammering his red 10 away loses red's 4 points and gives Lea first (2 to 4).
  EXPECT_THAT(StandingOf(features, 2), ElementsAre(-1.f, 0.25f, 0.f, 0.f, 0.f));
}

// An attach's turn plan, the last two move features: the pass points (as if scored now) and
// seals of the turn when the mover's other held tiles follow this one where they gain most.
// Lea holds yellow 8; Jonathan (seat 1) holds three yellow 3s and a full green chain of 24.
TEST(MoonlightFeatures, AnAttachCarriesTheTurnPlannedAfterIt) {
  auto state = BiddingTable();
  Data& data = state->mutable_data();
  SetChain(data, 0, kYellow, {SingleGem(kYellow, 8)});
  SetChain(data, 1, kGreen, {SingleGem(kGreen, 9), SingleGem(kGreen, 8), SingleGem(kGreen, 7)});
  const int yellow_3 = SingleGem(kYellow, 3);
  SetHeld(data, 1, {yellow_3, yellow_3, yellow_3});
  v1::View view;
  state->Observe(1, &view);
  Features features;
  ASSERT_TRUE(MoonlightMarketGame().Featurize(view, std::vector<Move>{AttachMove(yellow_3, kYellow)}, &features).ok());
  const auto plan_of = [&](int i) {
    const float* f = features.moves.data() + (i + 1) * features.move_size - 2;
    return std::vector<float>(f, f + 2);
  };
  // This 3 and the two others make 9, above Lea's 8: first in yellow, 4 points, no seal.
  EXPECT_THAT(plan_of(0), ElementsAre(1.f, 0.f));
  // Blue 3 alone in blue (4 points), then green 1 sends the full chain of 24 to the box
  // (a seal; still first in green); or green 1 first, its seal, then blue 3.
  const int green_1 = SingleGem(kGreen, 1), blue_3 = SingleGem(kBlue, 3);
  SetHeld(data, 1, {blue_3, green_1});
  state->Observe(1, &view);
  ASSERT_TRUE(MoonlightMarketGame()
                  .Featurize(view, std::vector<Move>{AttachMove(blue_3, kBlue), AttachMove(green_1, kGreen)}, &features)
                  .ok());
  EXPECT_THAT(plan_of(0), ElementsAre(1.f, 1.f));
  EXPECT_THAT(plan_of(1), ElementsAre(1.f, 1.f));
}

TEST(MoonlightRules, DistributionAndChainOrder) {  // vector 3
  auto state = BiddingTable();
  EventLog log;
  for (Move move : {BidMove(9, 2), BidMove(6, 0), BidMove(12, 2), BidMove(9, 0), BidMove(6, 1)})
    ASSERT_TRUE(state->Apply(move, &log).ok());
  const Data& data = state->data();
  EXPECT_EQ(data.coin_holder, 0);  // Lea took the moon cushion and the start coin
  EXPECT_THAT(std::vector<int>(data.seats[0].held.begin(), data.seats[0].held.end()),
              ElementsAre(SingleGem(kBlue, 7), SingleGem(kRed, 6), SingleGem(kYellow, 10)));
  EXPECT_EQ(data.seats[1].held_count, 2);
  EXPECT_EQ(data.seats[2].held_count, 2);
  EXPECT_EQ(data.seats[0].discard, CardBit(9));
  const auto taken = EventsOf(log, [](const auto& e) { return e.has_column_taken(); });
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_TRUE(taken[0].column_taken().start_coin());
  EXPECT_EQ(taken[0].column_taken().tiles_size(), 3);
  // Lea resolves all three tiles, then Jonathan, then Anika.
  std::vector<int> movers;
  while (state->data().phase == Phase::kChain) {
    movers.push_back(state->to_move());
    std::vector<Move> legal;
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal[0]).ok());
  }
  EXPECT_THAT(movers, ElementsAre(0, 0, 0, 1, 1, 2, 2));
}

TEST(MoonlightRules, TwoGemTileOffersBothColours) {  // vector 4
  auto state = BiddingTable();
  for (Move move : {BidMove(9, 2), BidMove(6, 0), BidMove(12, 2), BidMove(9, 0), BidMove(6, 1)})
    ASSERT_TRUE(state->Apply(move).ok());
  std::vector<Move> legal;
  while (state->to_move() != 2) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal[0]).ok());
  }
  const int two_gem = TwoGem(4, kBlue, kWhite);
  EXPECT_THAT(LegalIds(*state),
              UnorderedElementsAre(AttachMove(two_gem, kBlue).id, AttachMove(two_gem, kWhite).id,
                                   AttachMove(SingleGem(kGreen, 5), kGreen).id));
  ASSERT_TRUE(state->Apply(AttachMove(two_gem, kWhite)).ok());
  EXPECT_THAT(LegalIds(*state), ElementsAre(AttachMove(SingleGem(kGreen, 5), kGreen).id));
}

// The rulebook's pass-scoring example (vector 5): Lea 0, Jonathan 1, Anika 2.
Data ScoringExample(bool competition) {
  Data data;
  data.humans = 3;
  data.competition = competition;
  const int lea = 0, jonathan = 1, anika = 2;
  SetChain(data, anika, kBlue, {SingleGem(kBlue, 5), SingleGem(kBlue, 6)});
  SetChain(data, lea, kBlue, {SingleGem(kBlue, 7)});
  SetChain(data, jonathan, kBlue, {TwoGem(7, kBlue, kRed)});
  SetChain(data, jonathan, kRed, {SingleGem(kRed, 10)});
  SetChain(data, lea, kRed, {SingleGem(kRed, 6)});
  SetChain(data, anika, kWhite, {SingleGem(kWhite, 9), TwoGem(7, kWhite, kGreen)});
  SetChain(data, lea, kWhite, {SingleGem(kWhite, 8), SingleGem(kWhite, 7)});
  SetChain(data, jonathan, kWhite, {kWorthless});
  SetChain(data, jonathan, kGreen, {SingleGem(kGreen, 9)});
  SetChain(data, anika, kGreen, {SingleGem(kGreen, 2), TwoGem(7, kGreen, kYellow)});
  SetChain(data, lea, kYellow, {SingleGem(kYellow, 10)});
  SetChain(data, jonathan, kYellow, {SingleGem(kYellow, 8)});
  SetChain(data, anika, kYellow, {SingleGem(kYellow, 7)});
  return data;
}

TEST(MoonlightRules, PassScoringTableWithJonathansTwelve) {  // vector 5
  for (bool competition : {false, true}) {
    const Data data = ScoringExample(competition);
    std::vector<int> values;
    std::vector<bool> eligible;
    EXPECT_THAT(ColourPoints(data, kBlue, &values), ElementsAre(2, 2, 4));
    EXPECT_THAT(values, ElementsAre(7, 7, 11));
    EXPECT_THAT(ColourPoints(data, kRed), ElementsAre(2, 4, 0));
    EXPECT_THAT(ColourPoints(data, kWhite, &values, &eligible), ElementsAre(2, 0, 4));
    EXPECT_THAT(values, ElementsAre(15, 0, 16));
    EXPECT_THAT(eligible, ElementsAre(true, false, true));
    EXPECT_THAT(ColourPoints(data, kGreen), ElementsAre(0, 4, 4));
    EXPECT_THAT(ColourPoints(data, kYellow), ElementsAre(4, 2, 1));
    std::array<int, 3> totals{};
    for (int colour = 0; colour < kColours; ++colour) {
      const auto points = ColourPoints(data, colour);
      for (int seat = 0; seat < 3; ++seat) totals[seat] += points[seat];
    }
    EXPECT_THAT(totals, ElementsAre(10, 12, 13)) << "Jonathan has 12, not the printed 13";
  }
}

TEST(MoonlightRules, FinalScorings) {  // vector 6
  Data data;
  data.humans = 3;
  data.seats[0].seals = 7;
  data.seats[1].seals = 1;
  data.seats[2].seals = 4;
  data.seats[0].hand = CardBit(4);
  data.seats[1].hand = CardBit(3);
  data.seats[2].hand = CardBit(1);
  EXPECT_THAT(FinalPoints(data, true), ElementsAre(4, 1, 2));
  EXPECT_THAT(FinalPoints(data, false), ElementsAre(4, 2, 1));
  data.seats[1].seals = 0;  // no seals, no points
  EXPECT_THAT(FinalPoints(data, true), ElementsAre(4, 0, 2));
}

// Two humans and Dirk: seat 0 bids 12 on the moon cushion, seat 1 6 on cushion 1, then
// Dirk (seat 2) reveals a 9.
std::unique_ptr<MoonlightState> DirkTable(int dirk_seals, EventLog* log) {
  auto state = NewMoonlight(2, 5);
  Data& data = state->mutable_data();
  EXPECT_EQ(data.bots, 1);
  EXPECT_STREQ(BotName(data, 2), "Dirk");
  GiveCard(data, 0, 12);
  GiveCard(data, 1, 6);
  SeatData& dirk = data.seats[2];
  dirk.pile = static_cast<CardSet>((dirk.pile | dirk.hand) & ~CardBit(9));
  dirk.hand = CardBit(9);
  const int moved = dirk.seals - dirk_seals;
  dirk.seals = static_cast<uint8_t>(dirk_seals);
  data.seal_supply = static_cast<uint8_t>(data.seal_supply + moved);
  EXPECT_TRUE(Validate(data).ok()) << Validate(data);
  EXPECT_TRUE(state->Apply(BidMove(12, 0), log).ok());
  EXPECT_TRUE(state->Apply(BidMove(6, 1), log).ok());
  return state;
}

TEST(MoonlightRules, DirkBidsOnTheFirstCushionHeCanTake) {  // vector 7
  EventLog log;
  auto state = DirkTable(0, &log);
  const Data& data = state->data();
  EXPECT_EQ(data.phase, Phase::kChain) << "Dirk acted third and the bidding ended";
  EXPECT_EQ(data.seats[2].taken, 2) << "no seal: the empty cushion 2";
  auto bids = EventsOf(log, [](const auto& e) { return e.has_bid_placed(); });
  ASSERT_EQ(bids.size(), 3u);
  EXPECT_EQ(bids[2].bid_placed().seat(), 2);
  EXPECT_EQ(bids[2].bid_placed().card(), 9u);
  EXPECT_TRUE(bids[2].bid_placed().revealed());

  EventLog with_seal;
  state = DirkTable(1, &with_seal);
  bids = EventsOf(with_seal, [](const auto& e) { return e.has_bid_placed(); });
  ASSERT_EQ(bids.size(), 3u);
  EXPECT_EQ(bids[2].bid_placed().cushion(), 1u);
  EXPECT_EQ(bids[2].bid_placed().displaced_seat(), 1);
  EXPECT_TRUE(bids[2].bid_placed().seal_paid());
  EXPECT_EQ(state->data().seats[2].seals, 0);
  EXPECT_EQ(state->data().seats[1].seals, 4);
  EXPECT_EQ(state->to_move(), 1) << "the displaced seat re-bids its 6";
  EXPECT_THAT(LegalIds(*state), ElementsAre(BidMove(6, 2).id));
}

TEST(MoonlightRules, DirkPlacesTilesByTheProcedure) {  // vector 8
  auto state = NewMoonlight(2, 3);
  Data& data = state->mutable_data();
  const int dirk = 2;
  SetChain(data, dirk, kBlue, {SingleGem(kBlue, 1)});
  SetChain(data, dirk, kGreen, {SingleGem(kGreen, 1)});
  SetChain(data, dirk, kYellow, {SingleGem(kYellow, 1), SingleGem(kYellow, 2)});
  const int two_gem = TwoGem(4, kRed, kGreen);
  SetHeld(data, dirk, {SingleGem(kRed, 8), two_gem, kWorthless});
  EventLog log;
  state->BotPlaceTiles(dirk, &log);
  const auto attached = EventsOf(log, [](const auto& e) { return e.has_tile_attached(); });
  ASSERT_EQ(attached.size(), 3u);
  EXPECT_EQ(attached[0].tile_attached().tile(), static_cast<uint32_t>(kWorthless));
  EXPECT_EQ(attached[0].tile_attached().colour(), v1::MOONLIGHT_COLOUR_RED);
  EXPECT_EQ(attached[1].tile_attached().tile(), static_cast<uint32_t>(two_gem));
  EXPECT_EQ(attached[1].tile_attached().colour(), v1::MOONLIGHT_COLOUR_RED);
  EXPECT_EQ(attached[2].tile_attached().colour(), v1::MOONLIGHT_COLOUR_RED);
  const Chain& red = state->data().seats[dirk].chains[kRed];
  EXPECT_THAT(std::vector<int>(red.tiles.begin(), red.tiles.end()),
              ElementsAre(kWorthless, two_gem, SingleGem(kRed, 8)));
  EXPECT_EQ(ChainValue(Tiles(red)), 12);
  EXPECT_EQ(state->data().seats[dirk].held_count, 0);
}

TEST(MoonlightRules, BotDoublersGoLastAndHammersAreBoxed) {  // docs/rules/moonlight_market.md §9.2
  auto state = NewMoonlight(2, 3);
  Data& data = state->mutable_data();
  const int dirk = 2;
  SetHeld(data, dirk, {kDoubler + kWhite, kHammer, SingleGem(kWhite, 2)});
  const int boxed_hammers = data.box[kHammer];
  state->BotPlaceTiles(dirk, nullptr);
  const Chain& white = state->data().seats[dirk].chains[kWhite];
  EXPECT_THAT(std::vector<int>(white.tiles.begin(), white.tiles.begin() + white.size),
              ElementsAre(SingleGem(kWhite, 2), kDoubler + kWhite));
  EXPECT_EQ(state->data().box[kHammer], boxed_hammers + 1);
}

TEST(MoonlightRules, ThreeTileLimitWithAndWithoutSeal) {  // vector 9
  for (int last : {9, 8}) {
    auto state = NewMoonlight(3);
    Data& data = state->mutable_data();
    SetChain(data, 1, kWhite, {SingleGem(kWhite, 5), SingleGem(kWhite, 6), SingleGem(kWhite, last)});
    const int seals = data.seats[1].seals;
    const int boxed = data.box[SingleGem(kWhite, 5)];
    EventLog log;
    state->Attach(1, TwoGem(7, kBlue, kWhite), kWhite, &log);
    const SeatData& seat = state->data().seats[1];
    EXPECT_EQ(seat.seals, seals + (last == 9 ? 1 : 0)) << "white chain value " << 11 + last;
    EXPECT_EQ(seat.chains[kWhite].size, 1);
    EXPECT_EQ(ChainValue(Tiles(seat.chains[kWhite])), 7);
    EXPECT_EQ(state->data().box[SingleGem(kWhite, 5)], boxed + 1);
    const auto discarded = EventsOf(log, [](const auto& e) { return e.has_chain_discarded(); });
    ASSERT_EQ(discarded.size(), 1u);
    EXPECT_EQ(discarded[0].chain_discarded().value(), static_cast<uint32_t>(11 + last));
  }
}

TEST(MoonlightRules, DoubledDiscardInBothModes) {  // vector 10
  for (const char* mode : {"chain", "face"}) {
    auto state = NewMoonlight(3, 7, {{"discard_value", mode}});
    Data& data = state->mutable_data();
    SetChain(data, 0, kRed, {kDoubler + kRed, SingleGem(kRed, 6), SingleGem(kRed, 5)});
    EXPECT_EQ(ChainValue(Tiles(data.seats[0].chains[kRed])), 22);
    const int seals = data.seats[0].seals;
    state->Attach(0, SingleGem(kRed, 3), kRed, nullptr);
    const SeatData& seat = state->data().seats[0];
    EXPECT_EQ(seat.seals, seals + (std::string(mode) == "chain" ? 1 : 0)) << mode;
    EXPECT_THAT(std::vector<int>(seat.chains[kRed].tiles.begin(),
                                 seat.chains[kRed].tiles.begin() + seat.chains[kRed].size),
                ElementsAre(SingleGem(kRed, 3)));
  }
}

TEST(MoonlightRules, SealGainFromAnEmptySupplyIsLost) {  // docs/rules/moonlight_market.md §6.6
  for (const char* supply : {"finite", "unlimited"}) {
    auto state = NewMoonlight(3, 7, {{"seal_supply", supply}});
    Data& data = state->mutable_data();
    data.seal_supply = 0;
    SetChain(data, 0, kRed, {kDoubler + kRed, SingleGem(kRed, 6), SingleGem(kRed, 5)});
    const int seals = data.seats[0].seals;
    state->Attach(0, SingleGem(kRed, 3), kRed, nullptr);
    EXPECT_EQ(state->data().seats[0].seals, seals + (std::string(supply) == "unlimited" ? 1 : 0));
  }
}

TEST(MoonlightRules, HammerFirst) {  // vector 11
  auto state = BiddingTable();
  for (Move move : {BidMove(9, 2), BidMove(6, 0), BidMove(12, 2), BidMove(9, 0), BidMove(6, 1)})
    ASSERT_TRUE(state->Apply(move).ok());
  ASSERT_EQ(state->to_move(), 0);
  Data& data = state->mutable_data();
  SetHeld(data, 0, {kHammer, SingleGem(kRed, 8)});
  SetChain(data, 0, kRed, {SingleGem(kRed, 7), kDoubler + kRed, SingleGem(kRed, 3)});
  EXPECT_THAT(LegalIds(*state), ElementsAre(HammerMove(kRed, 0).id, HammerMove(kRed, 1).id,
                                            HammerMove(kRed, 2).id, HammerDiscardMove().id));
  EXPECT_FALSE(state->IsLegal(AttachMove(SingleGem(kRed, 8), kRed)));
  ASSERT_TRUE(state->Apply(HammerMove(kRed, 2)).ok());
  EXPECT_THAT(LegalIds(*state), ElementsAre(AttachMove(SingleGem(kRed, 8), kRed).id));
  ASSERT_TRUE(state->Apply(AttachMove(SingleGem(kRed, 8), kRed)).ok());
  const Chain& red = state->data().seats[0].chains[kRed];
  EXPECT_THAT(std::vector<int>(red.tiles.begin(), red.tiles.end()),
              ElementsAre(SingleGem(kRed, 7), kDoubler + kRed, SingleGem(kRed, 8)));
  EXPECT_EQ(ChainValue(Tiles(red)), 30);
}

TEST(MoonlightRules, HammerListsIdenticalTilesOnce) {  // docs/rules/moonlight_market.md §6.3.2
  auto state = BiddingTable();
  for (Move move : {BidMove(9, 2), BidMove(6, 0), BidMove(12, 2), BidMove(9, 0), BidMove(6, 1)})
    ASSERT_TRUE(state->Apply(move).ok());
  Data& data = state->mutable_data();
  SetHeld(data, 0, {kHammer});
  SetChain(data, 0, kBlue, {SingleGem(kBlue, 1), SingleGem(kBlue, 1), kWorthless});
  EXPECT_THAT(LegalIds(*state),
              ElementsAre(HammerMove(kBlue, 0).id, HammerMove(kBlue, 2).id, HammerDiscardMove().id));
}

TEST(MoonlightRules, RankingModes) {  // vector 12
  const std::vector<int> values = {10, 10, 8, 7};
  const std::vector<bool> all(4, true);
  EXPECT_THAT(Awards(values, all, false), ElementsAre(4, 4, 2, 1));
  EXPECT_THAT(Awards(values, all, true), ElementsAre(4, 4, 1, 0));
  EXPECT_TRUE(NewMoonlight(3, 1, {{"ranking", "competition"}})->data().competition);
  EXPECT_FALSE(NewMoonlight(3, 1)->data().competition);
}

// A fresh 3-seat table whose supply holds the 5 hammers and exactly enough worthless tiles.
std::unique_ptr<MoonlightState> RefillTable(int pass, int worthless) {
  Data data;
  data.humans = 3;
  data.pass = static_cast<uint8_t>(pass);
  data.supply[kHammer] = 5;
  data.supply[kWorthless] = static_cast<uint8_t>(worthless);
  for (int seat = 0; seat < 3; ++seat) data.seats[seat].pile = kAllCards;
  data.rng = Rng::FromSeed(4);
  return std::make_unique<MoonlightState>(data);
}

TEST(MoonlightRules, PassOneRefillsHammerSlots) {  // vector 13
  EventLog log;
  auto state = RefillTable(0, PassTiles(3));
  state->StartPass(&log);
  int hammers_on_cushions = 0;
  for (const auto& cushion : state->data().slots)
    for (const auto& column : cushion)
      for (uint8_t tile : column) hammers_on_cushions += tile == kHammer;
  EXPECT_EQ(hammers_on_cushions, 0);
  EXPECT_EQ(state->data().supply[kHammer], 5) << "the set-aside hammers went back";
  EXPECT_EQ(state->data().supply[kWorthless], 0);
  const auto filled = EventsOf(log, [](const auto& e) { return e.has_cushions_filled(); });
  ASSERT_EQ(filled.size(), 1u);
  EXPECT_GT(filled[0].cushions_filled().hammers_set_aside(), 0u);

  state = RefillTable(1, PassTiles(3) - 5);  // pass 2: every tile must be drawn
  state->StartPass(nullptr);
  hammers_on_cushions = 0;
  for (const auto& cushion : state->data().slots)
    for (const auto& column : cushion)
      for (uint8_t tile : column) hammers_on_cushions += tile == kHammer;
  EXPECT_EQ(hammers_on_cushions, 5) << "in pass 2 a drawn hammer stays";
}

TEST(MoonlightRules, TileUsePerPlayerCount) {  // vector 14
  EXPECT_EQ(PassTiles(5), 33);
  EXPECT_EQ(4 * PassTiles(5), 132);
  EXPECT_EQ(PassTiles(3), 21);
  EXPECT_EQ(4 * PassTiles(3), 84);
  for (int humans : {3, 5}) {
    auto state = NewMoonlight(humans, 11);
    std::vector<Move> legal;
    while (!state->finished()) {
      state->LegalMoves(legal);
      ASSERT_TRUE(state->Apply(legal[legal.size() / 2]).ok());
    }
    int supply = 0;
    for (uint8_t count : state->data().supply) supply += count;
    EXPECT_EQ(kTotalTiles - supply, humans == 5 ? 132 : 84);
  }
}

TEST(MoonlightSeating, SeatConfigurationsAndBotOption) {
  const std::array<int, 6> seats = {0, 3, 3, 3, 4, 5};
  for (int humans = 1; humans <= 5; ++humans) {
    auto state = NewMoonlight(humans);
    EXPECT_EQ(state->seats(), seats[humans]) << humans << " humans";
    for (int seat = 0; seat < state->seats(); ++seat)
      EXPECT_EQ(state->IsAutomaton(seat), seat >= humans);
  }
  auto solo = NewMoonlight(1);
  EXPECT_STREQ(BotName(solo->data(), 1), "Beate");
  EXPECT_STREQ(BotName(solo->data(), 2), "Dirk");
  EXPECT_EQ(NewMoonlight(3, 1, {{"bots", "2"}})->seats(), 5);
  EXPECT_EQ(NewMoonlight(4, 1, {{"bots", "1"}})->seats(), 5);
  EXPECT_EQ(NewMoonlight(2, 1, {{"bots", "2"}})->seats(), 4);
  for (auto [humans, bots] : std::vector<std::pair<int, const char*>>{
           {1, "1"}, {1, "0"}, {2, "0"}, {4, "2"}, {5, "1"}}) {
    const auto refused = MoonlightMarketGame().NewGame(humans, 1, {{"bots", bots}});
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << humans << " " << bots;
  }
  EXPECT_FALSE(MoonlightMarketGame().info().players_note.empty());
  EXPECT_EQ(MoonlightMarketGame().info().options.size(), 4u);
}

TEST(MoonlightGame, SharedWinsShareRankOne) {
  auto state = NewMoonlight(3);
  Data& data = state->mutable_data();
  data.phase = Phase::kFinished;
  data.seats[0].prestige = 20;
  data.seats[1].prestige = 20;
  data.seats[2].prestige = 12;
  EXPECT_THAT(state->outcome().ranks, ElementsAre(1, 1, 3));
}

TEST(MoonlightGame, FullGameEventsAndFinalScorings) {
  EventLog log;
  auto state = NewMoonlight(1, 9, {}, &log);
  std::vector<Move> legal;
  while (!state->finished()) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal[0], &log).ok());
  }
  EXPECT_EQ(EventsOf(log, [](const auto& e) { return e.has_cushions_filled(); }).size(), 4u);
  EXPECT_EQ(EventsOf(log, [](const auto& e) { return e.has_column_taken(); }).size(), 36u);
  EXPECT_EQ(EventsOf(log, [](const auto& e) { return e.has_colour_scored(); }).size(), 20u);
  EXPECT_EQ(EventsOf(log, [](const auto& e) { return e.has_final_scored(); }).size(), 2u);
  EXPECT_EQ(EventsOf(log, [](const auto& e) { return e.has_game_over(); }).size(), 1u);
  // Each bot revealed 12 cards and kept one.
  for (int bot : {1, 2}) {
    EXPECT_EQ(CardCount(state->data().seats[bot].discard), 12);
    EXPECT_EQ(CardCount(state->data().seats[bot].pile), 1);
  }
  EXPECT_EQ(CardCount(state->data().seats[0].hand), 1);
  int total = 0;
  for (double score : state->outcome().scores) total += static_cast<int>(score);
  EXPECT_GT(total, 0);
}

TEST(MoonlightViews, HiddenCardsStayHidden) {
  auto state = NewMoonlight(2, 13, {{"bots", "2"}});
  // Play into pass 2 so that cards lie under the piles.
  std::vector<Move> legal;
  while (state->data().pass < 1) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal[0]).ok());
  }
  for (int viewer = 0; viewer < 2; ++viewer) {
    v1::View view;
    state->Observe(viewer, &view);
    v1::MoonlightView shown;
    ASSERT_TRUE(view.view().UnpackTo(&shown));
    const auto& own = shown.seats(viewer);
    const auto& other = shown.seats(1 - viewer);
    EXPECT_EQ(own.hand_size(), 4);
    EXPECT_EQ(own.under_size(), 1);
    EXPECT_EQ(other.hand_size(), 0);
    EXPECT_EQ(other.hand_count(), 4u);
    EXPECT_EQ(other.under_size(), 0);
    EXPECT_EQ(other.under_count(), 1u);
    for (int bot : {2, 3}) {
      EXPECT_TRUE(shown.seats(bot).automaton());
      EXPECT_EQ(shown.seats(bot).next_card(), 0u) << "a bot's face-down card is hidden";
    }
  }
  // Only a bot's own view (never sent to a player) shows its face-down card.
  for (int bot : {2, 3}) {
    if (!state->data().seats[bot].hand) continue;
    v1::View view;
    state->Observe(bot, &view);
    v1::MoonlightView shown;
    ASSERT_TRUE(view.view().UnpackTo(&shown));
    EXPECT_NE(shown.seats(bot).next_card(), 0u);
  }
}

// The view appends the supply's and the box's counts, the cushions and the seats
// (MessageWriter) after protobuf's part, in field order: for every viewer at every
// step the bytes must be exactly protobuf's own for the view, and the counts the state's.
TEST(MoonlightViews, ViewsAreProtobufsOwnBytes) {
  int states_with_boxed_tiles = 0, bot_cards_shown = 0, hands_shown = 0;
  for (const auto& [humans, seed] : {std::pair(3, 29), std::pair(1, 23)}) {
    auto state = NewMoonlight(humans, seed);
    testing::PlayRandomly(*state, 5, [&](const State& at) {
      const Data& data = static_cast<const MoonlightState&>(at).data();
      for (Seat viewer = kNoSeat; viewer < data.participants(); ++viewer) {
        const auto [bytes, shown] = testing::Observed<v1::MoonlightView>(at, viewer);
        ASSERT_EQ(bytes, shown.SerializeAsString()) << "viewer " << viewer;
        EXPECT_THAT(shown.supply(), ElementsAreArray(data.supply));
        EXPECT_THAT(shown.box(), ElementsAreArray(data.box));
        if (viewer == kNoSeat) continue;
        bot_cards_shown += shown.seats(viewer).next_card() != 0;
        hands_shown += shown.seats(viewer).hand_size() > 0;
      }
      states_with_boxed_tiles += std::any_of(data.box.begin(), data.box.end(), [](uint8_t n) { return n > 0; });
    });
  }
  EXPECT_GT(states_with_boxed_tiles, 0) << "the box was never filled: a weak test of its field";
  EXPECT_GT(bot_cards_shown, 0);
  EXPECT_GT(hands_shown, 0);
}

TEST(MoonlightViews, ResampleRedrawsHiddenCardsOnly) {
  auto state = NewMoonlight(1, 23);  // solo: human, Beate, Dirk
  ASSERT_EQ(state->to_move(), 0);
  for (Seat viewer : {0, 1, 2}) {
    v1::View view;
    state->Observe(viewer, &view);
    bool redrawn = false;
    for (uint64_t seed = 0; seed < 20; ++seed) {
      auto resampled = MoonlightMarketGame().Resample(view, seed);
      ASSERT_TRUE(resampled.ok()) << resampled.status();
      v1::View again;
      (*resampled)->Observe(viewer, &again);
      EXPECT_EQ(again.SerializeAsString(), view.SerializeAsString());
      const auto& data = static_cast<const MoonlightState&>(**resampled).data();
      // Every seat's view keeps its own hidden cards; the others' are dealt anew.
      for (int seat : {0, 1, 2}) {
        if (seat == viewer) {
          EXPECT_EQ(data.seats[seat].hand, state->data().seats[seat].hand);
        } else {
          redrawn = redrawn || data.seats[seat].hand != state->data().seats[seat].hand;
        }
      }
    }
    EXPECT_TRUE(redrawn) << "seat " << viewer << " sees others' hidden cards re-drawn";
  }
}

TEST(MoonlightEvents, HiddenContentGoesOnlyToItsOwner) {
  EventLog log;
  auto state = NewMoonlight(3, 17, {}, &log);
  int owner_copies = 0;
  for (Seat seat = 0; seat < 3; ++seat) {
    for (const v1::Event& event : log.ForSeat(seat)) {
      v1::MoonlightEvent detail;
      ASSERT_TRUE(event.detail().UnpackTo(&detail));
      if (!detail.has_hand_drawn()) continue;
      const bool own = detail.hand_drawn().seat() == seat;
      EXPECT_EQ(detail.hand_drawn().cards_size(), own ? 4 : 0);
      owner_copies += own;
    }
  }
  EXPECT_EQ(owner_copies, 3);
}

TEST(MoonlightValidation, RejectsBrokenStatesWithAClearMessage) {
  auto state = NewMoonlight(3);
  Data broken = state->data();
  ++broken.supply[SingleGem(kBlue, 1)];
  EXPECT_THAT(std::string(Validate(broken).message()), ::testing::HasSubstr("tiles of code 0"));
  broken = state->data();
  broken.seats[1].hand |= static_cast<CardSet>(broken.seats[1].pile & -broken.seats[1].pile);
  EXPECT_THAT(std::string(Validate(broken).message()), ::testing::HasSubstr("seat 1"));
  broken = state->data();
  ++broken.seats[2].seals;
  EXPECT_THAT(std::string(Validate(broken).message()), ::testing::HasSubstr("29"));
  broken = state->data();
  broken.turn = 5;
  EXPECT_FALSE(Validate(broken).ok());
  auto solo = NewMoonlight(1);
  broken = solo->data();
  broken.turn = 2;  // Dirk never moves
  EXPECT_FALSE(Validate(broken).ok());
}

TEST(MoonlightWire, DecodingErrorsNameTheSeatOrCushionAndThePart) {
  auto state = NewMoonlight(3);
  EXPECT_THAT(std::string(testing::DecodeChanged<v1::MoonlightState>(*state, [](v1::MoonlightState& proto) {
                proto.mutable_seats(1)->add_hand(99);
              }, /*versions_back=*/2).message()),
              ::testing::HasSubstr("seat 1's hand holds card 99, which does not exist"));
  EXPECT_THAT(std::string(testing::DecodeChanged<v1::MoonlightState>(*state, [](v1::MoonlightState& proto) {
                proto.mutable_seats(2)->set_prestige(5000);
              }).message()),
              ::testing::HasSubstr("seat 2's prestige 5000 is out of range"));
  EXPECT_THAT(std::string(testing::DecodeChanged<v1::MoonlightState>(*state, [](v1::MoonlightState& proto) {
                proto.mutable_cushions(0)->set_bid_card(99);
              }, /*versions_back=*/1).message()),
              ::testing::HasSubstr("cushion 0's card is card 99, which does not exist"));
}

// States and sealed tokens made before format 4 list the cushions as messages, those before
// format 3 a seat's cards and tiles as lists, and those before format 2 the supply and the box
// as numbers: the engine still reads them, into the same state, at every step of random games
// at every table size.
TEST(MoonlightWire, ReadsFormatsOneToThreeIntoTheSameState) {
  int steps = 0;
  for (int humans = 1; humans <= kMaxParticipants; ++humans) {
    auto state = NewMoonlight(humans, 5);
    testing::PlayRandomly(*state, 2, [&steps](const State& now) {
      ++steps;
      for (int versions_back = 1; versions_back <= 3; ++versions_back) {
        const auto old_form = testing::ExpectEarlierFormatReadsBack<v1::MoonlightState>(now, versions_back);
        EXPECT_EQ(old_form.cushions_size(), old_form.seats_size());
        EXPECT_TRUE(old_form.cushion_tiles().empty());
        EXPECT_EQ(old_form.seats(0).chains_size(), versions_back >= 2 ? kColours : 0);
        EXPECT_EQ(old_form.supply_size(), versions_back == 3 ? kTileKinds : 0);
      }
      v1::GameState none;
      EXPECT_FALSE(now.SerializeEarlierFormat(4, &none));
    });
  }
  EXPECT_GT(steps, 250);
}

// Counts in both forms at once, bytes of the wrong length or beyond a tile's copies: refused.
// The state is written field by field (MoonlightState::WriteFormat4): exactly protobuf's
// bytes, with one to five humans (so with Dirk and Beate), held tiles and displaced cards.
TEST(MoonlightWire, StateIsProtobufsOwnBytes) {
  int held = 0, displaced = 0;
  for (int humans = 1; humans <= kMaxParticipants; ++humans) {
    auto state = NewMoonlight(humans, 70 + humans);
    testing::PlayRandomly(*state, 3, [&](const State& at) {
      const auto [bytes, parsed] = testing::Written<v1::MoonlightState>(at);
      ASSERT_EQ(bytes, parsed.SerializeAsString());
      const Data& data = static_cast<const MoonlightState&>(at).data();
      ASSERT_EQ(parsed.seats_size(), data.participants());
      for (int seat = 0; seat < data.participants(); ++seat) {
        held += data.seats[seat].held_count > 0;
        displaced += data.seats[seat].displaced > 0;
      }
    });
  }
  EXPECT_GT(held, 0);
  EXPECT_GT(displaced, 0);
}

TEST(MoonlightWire, RefusesCountsInBothFormsOrOutOfRange) {
  auto state = NewMoonlight(3);
  const auto refusal = testing::RefusalOfChange<v1::MoonlightState>(*state);
  EXPECT_EQ(refusal([](v1::MoonlightState&) {}), "");
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) {
                for (int tile = 0; tile < kTileKinds; ++tile) proto.add_box(0);
              }),
              ::testing::HasSubstr("listed both as numbers (format 1) and as bytes (format 2)"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.mutable_supply_counts()->pop_back(); }),
              ::testing::HasSubstr("the supply must list 78 tile counts, not 77"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_box_counts())[kHammer] = '\xc8'; }),
              ::testing::HasSubstr("the box holds 200 tiles of code 77, more than exist"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.clear_supply_counts(); }),
              ::testing::HasSubstr("the supply must list 78 tile counts, not 0"));
}

// Format 4's cushions: messages beside the bytes, bytes of the wrong length, a column neither
// full nor empty, a tile in an unused row, an unknown tile, card or owner: refused.
TEST(MoonlightWire, RefusesCushionsInBothFormsOrOutOfRange) {
  auto state = NewMoonlight(3);
  const auto refusal = testing::RefusalOfChange<v1::MoonlightState>(*state);
  EXPECT_EQ(refusal([](v1::MoonlightState&) {}), "");
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.add_cushions(); }),
              ::testing::HasSubstr("the cushions are listed both as messages and as format 4's bytes"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.mutable_cushion_tiles()->pop_back(); }),
              ::testing::HasSubstr("the cushions must be 27 tile bytes and 6 card bytes, not 26 and 6"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.clear_cushion_cards(); }),
              ::testing::HasSubstr("the cushions must be 27 tile bytes and 6 card bytes, not 27 and 0"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_cushion_tiles())[1] = '\xff'; }),
              ::testing::HasSubstr("cushion 0 column 0 must hold 3 tiles or none"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_cushion_tiles())[9 + 2] = 4; }),
              ::testing::HasSubstr("cushion 1 column 0 must hold 2 tiles or none"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_cushion_tiles())[3] = 90; }),
              ::testing::HasSubstr("cushion 0 holds tile 90, which does not exist"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_cushion_cards())[2] = 20; }),
              ::testing::HasSubstr("cushion 1's card is card 20, which does not exist"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_cushion_cards())[5] = 3; }),
              ::testing::HasSubstr("cushion 2's card belongs to 3, not a seat"));
}

// Format 3's seats: lists beside the bits and bytes, unknown cards, chains of the wrong
// length, with a gap or an unknown tile, too many held tiles: refused.
TEST(MoonlightWire, RefusesSeatsInBothFormsOrOutOfRange) {
  auto state = NewMoonlight(3);
  const auto refusal = testing::RefusalOfChange<v1::MoonlightState>(*state);
  EXPECT_EQ(refusal([](v1::MoonlightState&) {}), "");
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.mutable_seats(1)->add_discard(3); }),
              ::testing::HasSubstr("seat 1's cards and tiles are listed both as lists and as format 3's bits and bytes"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.mutable_seats(0)->set_pile_cards(1); }),
              ::testing::HasSubstr("seat 0's pile names cards that do not exist"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.mutable_seats(2)->mutable_chain_tiles()->pop_back(); }),
              ::testing::HasSubstr("seat 2's chain tiles must be 15 bytes, not 14"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_seats(0)->mutable_chain_tiles())[4] = 3; }),
              ::testing::HasSubstr("seat 0's chain 1 has a gap"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { (*proto.mutable_seats(0)->mutable_chain_tiles())[0] = 90; }),
              ::testing::HasSubstr("tile 90, which does not exist"));
  EXPECT_THAT(refusal([](v1::MoonlightState& proto) { proto.mutable_seats(1)->set_held_tiles("\x01\x02\x03\x04"); }),
              ::testing::HasSubstr("seat 1 holds more than 3 tiles"));
}

}  // namespace
}  // namespace gavel::moonlight_market
