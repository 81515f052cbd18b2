// Sultan rules: the test vectors of docs/rules/sultan.md §10 and validation.
#include "engine/sultan/sultan.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gavel/v1/sultan.pb.h"
#include "tests/property_suite.h"
#include "tests/support/decode_changed.h"
#include "tests/support/earlier_formats.h"
#include "tests/support/observed_view.h"
#include "tests/support/random_play.h"

namespace gavel::sultan {
namespace {

using ::testing::ElementsAre;

GAVEL_PROPERTY_SUITE(Sultan, SultanGame());

std::unique_ptr<SultanState> NewSultan(int players, uint64_t seed = 7) {
  auto state = SultanGame().NewGame(players, seed, {});
  EXPECT_TRUE(state.ok()) << state.status();
  return std::unique_ptr<SultanState>(static_cast<SultanState*>(state->release()));
}

// Puts a card of `value` into the seat's hand, swapping with its pile (keeps conservation).
void GiveCard(Data& data, int seat, int value) {
  SeatData& holder = data.seats[seat];
  if (holder.hand[value] > 0 && value != 0) return;
  ASSERT_GT(holder.pile[value], 0) << "value " << value << " is not in the pile";
  for (int other = 1; other <= kMaxCard; ++other) {
    if (holder.hand[other] == 0 || other == value) continue;
    --holder.hand[other];
    ++holder.pile[other];
    --holder.pile[value];
    ++holder.hand[value];
    return;
  }
}

// Replaces the drawn jewels (keeping the bag's totals right) for a round's set-up.
void SetDrawn(Data& data, const Counts& drawn) {
  for (int colour = 0; colour < kColours; ++colour) {
    data.bag[colour] = static_cast<uint8_t>(data.bag[colour] + data.drawn[colour] - drawn[colour]);
    data.drawn[colour] = drawn[colour];
  }
}

TEST(SultanRules, ScoresTheRulebookCollection) {
  const Counts anne = {3, 5, 0, 0, 1};
  EXPECT_EQ(CollectionScore(anne, 4), 30);  // vector 4: 18 + 12
  EXPECT_EQ(CollectionScore(anne, 3), 30);
  EXPECT_EQ(CollectionScore(anne, 2), 23);  // vector 5: bonus 0 + 5
}

TEST(SultanRules, BonusTablesByPlayerCount) {
  EXPECT_EQ(CollectionScore({0, 0, 0, 6, 0}, 3), 44);  // vector 9
  EXPECT_EQ(CollectionScore({0, 0, 0, 6, 0}, 2), 34);
  EXPECT_EQ(CollectionScore({7, 0, 0, 0, 0}, 2), 27);
  for (int count = 0; count <= 9; ++count) {
    const int many[] = {0, 0, 0, 2, 5, 10, 20, 20, 20, 20};
    const int two[] = {0, 0, 0, 0, 2, 5, 10, 20, 20, 20};
    EXPECT_EQ(ColourBonus(count, 4), many[count]) << count;
    EXPECT_EQ(ColourBonus(count, 2), two[count]) << count;
  }
}

TEST(SultanRules, ReturnChoicesAndCushionOrder) {  // vector 8
  auto state = NewSultan(4);
  SetDrawn(state->mutable_data(), {1, 2, 0, 0, 1});
  std::vector<Move> legal;
  state->LegalMoves(legal);
  EXPECT_THAT(legal, ElementsAre(ReturnMove(kWhite), ReturnMove(kRed), ReturnMove(kBlue)));
  const int bag_red = state->data().bag[kRed];
  ASSERT_TRUE(state->Apply(ReturnMove(kRed)).ok());
  EXPECT_THAT(state->data().cushions, ElementsAre(kWhite, kRed, kBlue));
  EXPECT_EQ(state->data().bag[kRed], bag_red + 1);
}

// One 4-player round: seat 0 (start) 12 on cushion 2 (blue), seat 1 12 on cushion 2,
// seat 2 9 on cushion 1 (green), seat 3 8 on cushion 1; cushion 0 (red) gets no bid.
TEST(SultanRules, HighestCardWinsEarliestBreaksTiesUnclaimedJewelReturns) {
  auto state = NewSultan(4);
  Data& data = state->mutable_data();
  SetDrawn(data, {0, 2, 0, 1, 1});
  GiveCard(data, 0, 12);
  GiveCard(data, 1, 12);
  GiveCard(data, 2, 9);
  GiveCard(data, 3, 8);
  ASSERT_TRUE(Validate(data).ok()) << Validate(data);
  ASSERT_TRUE(state->Apply(ReturnMove(kRed)).ok());
  ASSERT_THAT(state->data().cushions, ElementsAre(kRed, kGreen, kBlue));
  const int bag_before = state->data().bag[kRed];
  ASSERT_TRUE(state->Apply(BidMove(12, 2)).ok());  // Sebastian
  ASSERT_TRUE(state->Apply(BidMove(12, 2)).ok());  // Nadine, later, same value
  ASSERT_TRUE(state->Apply(BidMove(9, 1)).ok());   // Peter
  EventLog log;
  ASSERT_TRUE(state->Apply(BidMove(8, 1), &log).ok());  // Olaf
  const Data& after = state->data();
  EXPECT_EQ(after.seats[0].collection[kBlue], 1);  // vector 3: the earlier 12 wins
  EXPECT_EQ(after.seats[1].collection[kBlue], 0);
  EXPECT_EQ(after.seats[2].collection[kGreen], 1);  // vector 2: 9 beats 8
  EXPECT_EQ(after.seats[3].collection[kGreen], 0);
  // Vector 7: the red jewel went back, then the next round drew from the bag.
  int drawn_red = after.drawn[kRed];
  EXPECT_EQ(after.bag[kRed] + drawn_red, bag_before + 1);
  EXPECT_EQ(after.start_player, 1);
  EXPECT_EQ(after.seats[0].played[12], 1);
  EXPECT_TRUE(Validate(after).ok());
}

TEST(SultanRules, SingleBidWinsItsJewel) {  // vector 1
  auto state = NewSultan(3);
  Data& data = state->mutable_data();
  SetDrawn(data, {0, 2, 0, 0, 1});
  GiveCard(data, 0, 1);
  GiveCard(data, 1, 5);
  GiveCard(data, 2, 6);
  ASSERT_TRUE(state->Apply(ReturnMove(kBlue)).ok());  // cushions: red, red
  ASSERT_TRUE(state->Apply(BidMove(1, 0)).ok());      // Anne alone on cushion 0
  ASSERT_TRUE(state->Apply(BidMove(5, 1)).ok());
  ASSERT_TRUE(state->Apply(BidMove(6, 1)).ok());
  EXPECT_EQ(state->data().seats[0].collection[kRed], 1);
  EXPECT_EQ(state->data().seats[2].collection[kRed], 1);
  EXPECT_EQ(state->data().seats[1].collection[kRed], 0);
}

TEST(SultanRules, TwoPlayersStartPlayerWinsTiesAndSecondBidMovesOn) {  // vector 6
  auto state = NewSultan(2);
  Data& data = state->mutable_data();
  SetDrawn(data, {1, 1, 1, 0, 1});
  GiveCard(data, 0, 5);
  GiveCard(data, 0, 7);
  GiveCard(data, 1, 7);
  GiveCard(data, 1, 3);
  ASSERT_TRUE(state->Apply(ReturnMove(kWhite)).ok());  // cushions: red, yellow, blue
  ASSERT_TRUE(state->Apply(BidMove(5, 0)).ok());       // S
  ASSERT_TRUE(state->Apply(BidMove(7, 1)).ok());       // O
  EXPECT_FALSE(state->IsLegal(BidMove(7, 0))) << "S may not bid twice on cushion 0";
  EXPECT_EQ(state->Apply(BidMove(7, 0)).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(state->Apply(BidMove(7, 1)).ok());  // S ties O's 7, placed later
  ASSERT_TRUE(state->Apply(BidMove(3, 2)).ok());  // O
  const Data& after = state->data();
  EXPECT_EQ(after.seats[0].collection[kRed], 1);
  EXPECT_EQ(after.seats[0].collection[kYellow], 1);
  EXPECT_EQ(after.seats[1].collection[kBlue], 1);
  EXPECT_EQ(after.start_player, 1);
}

TEST(SultanRules, RankingByScoreThenJewelCount) {  // vector 10
  auto state = NewSultan(3);
  Data& data = state->mutable_data();
  data.phase = Phase::kFinished;
  data.seats[0].collection = {3, 5, 0, 0, 1};  // 30 points, 9 jewels
  data.seats[1].collection = {0, 0, 0, 5, 0};  // 30 points, 5 jewels
  data.seats[2].collection = {0, 5, 0, 0, 1};  // 25 points
  Outcome outcome = state->outcome();
  EXPECT_THAT(outcome.scores, ElementsAre(30, 30, 25));
  EXPECT_THAT(outcome.ranks, ElementsAre(1, 2, 3));
  data.seats[1].collection = {3, 5, 0, 0, 1};  // same score, same count: a shared win
  EXPECT_THAT(state->outcome().ranks, ElementsAre(1, 1, 3));
}

TEST(SultanRules, GameLengthAndHandsByPlayerCount) {
  for (int players = 2; players <= 5; ++players) {
    auto state = NewSultan(players, 99);
    const Params params = ParamsFor(players);
    for (int seat = 0; seat < players; ++seat) {
      int hand = 0;
      for (int count : state->data().seats[seat].hand) hand += count;
      EXPECT_EQ(hand, params.hand_size);
    }
    int rounds = 0;
    std::vector<Move> legal;
    while (!state->finished()) {
      if (state->data().phase == Phase::kReturn) ++rounds;
      state->LegalMoves(legal);
      ASSERT_TRUE(state->Apply(legal.back()).ok());
    }
    EXPECT_EQ(rounds, players == 2 ? 12 : 15);
    for (int seat = 0; seat < players; ++seat) {
      int played = 0;
      for (int count : state->data().seats[seat].played) played += count;
      EXPECT_EQ(played, players == 2 ? 24 : 15);
    }
  }
}

TEST(SultanValidation, RejectsBrokenConservationWithAClearMessage) {
  auto state = NewSultan(4);
  Data broken = state->data();
  ++broken.bag[kBlue];
  EXPECT_THAT(std::string(Validate(broken).message()), ::testing::HasSubstr("jewels of colour 5"));
  broken = state->data();
  ++broken.seats[2].hand[3];
  EXPECT_THAT(std::string(Validate(broken).message()), ::testing::HasSubstr("seat 2"));
  broken = state->data();
  broken.start_player = 3;
  EXPECT_FALSE(Validate(broken).ok());
}

// States and sealed tokens made before format 2 list the seats' cards by value: the engine
// still reads them, into the same state, at every step of random games.
TEST(SultanWire, ReadsFormatOneIntoTheSameState) {
  for (int players = 2; players <= 5; ++players) {
    auto state = NewSultan(players, 31);
    testing::PlayRandomly(*state, static_cast<uint64_t>(players), [players](const State& now) {
      const auto old_form = testing::ExpectEarlierFormatReadsBack<v1::SultanState>(now, 1);
      EXPECT_TRUE(old_form.cards().empty());
      int listed = 0;
      for (const v1::SultanSeatState& seat : old_form.seats())
        listed += seat.pile_size() + seat.hand_size() + seat.played_size();
      v1::GameState current;
      now.Serialize(&current);
      v1::SultanState new_form;
      ASSERT_TRUE(current.state().UnpackTo(&new_form));
      EXPECT_EQ(new_form.cards().size(), 15u * players);
      int counted = 0;
      for (char byte : new_form.cards()) counted += (byte & 3) + (byte >> 2 & 3) + (byte >> 4 & 3);
      EXPECT_EQ(counted, listed);
      for (const v1::SultanSeatState& seat : new_form.seats())
        EXPECT_EQ(seat.pile_size() + seat.hand_size() + seat.played_size(), 0);
    });
  }
}

// Format 2's bytes: both forms at once, a wrong length and counts the deck cannot hold are refused.
// The state is written field by field (SultanState::WriteFormat2): exactly protobuf's bytes,
// at every table size and step, with bids on the cushions and jewels on some of them.
TEST(SultanWire, StateIsProtobufsOwnBytes) {
  int with_bids = 0, partly_filled = 0;
  for (int players = 2; players <= 5; ++players) {
    auto state = NewSultan(players, 50 + players);
    testing::PlayRandomly(*state, 5, [&](const State& at) {
      const auto [bytes, parsed] = testing::Written<v1::SultanState>(at);
      ASSERT_EQ(bytes, parsed.SerializeAsString());
      const Data& data = static_cast<const SultanState&>(at).data();
      ASSERT_EQ(parsed.bids_size(), data.bids_made);
      EXPECT_EQ(parsed.rng(), data.rng);
      with_bids += data.bids_made > 0;
      partly_filled += parsed.cushions_size() > 0 && parsed.cushions_size() < 3;
    });
  }
  EXPECT_GT(with_bids, 0);
  EXPECT_GT(partly_filled, 0);
}

// The view is written field by field (SultanState::PackView): exactly protobuf's bytes for
// every viewer, the spectator included, at every table size and step; the viewer's hand and
// its own face-down bids shown to it alone.
TEST(SultanViews, ViewsAreProtobufsOwnBytes) {
  int hidden_bids = 0, hands_shown = 0;
  for (int players = 2; players <= 5; ++players) {
    auto state = NewSultan(players, 60 + players);
    testing::PlayRandomly(*state, 7, [&](const State& at) {
      const Data& data = static_cast<const SultanState&>(at).data();
      for (Seat viewer = kNoSeat; viewer < data.players; ++viewer) {
        const auto [bytes, shown] = testing::Observed<v1::SultanView>(at, viewer);
        ASSERT_EQ(bytes, shown.SerializeAsString()) << "viewer " << viewer;
        ASSERT_EQ(shown.seats_size(), players);
        ASSERT_EQ(shown.bids_size(), data.bids_made);
        for (int i = 0; i < data.bids_made; ++i) {
          const bool own = data.bids[i].seat == viewer;
          EXPECT_EQ(shown.bids(i).value(), own ? data.bids[i].value : 0);
          hidden_bids += !own;
        }
        for (Seat seat = 0; seat < players; ++seat) {
          EXPECT_EQ(shown.seats(seat).hand_size(), seat == viewer ? static_cast<int>(shown.seats(seat).hand_count()) : 0);
          hands_shown += seat == viewer && shown.seats(seat).hand_size() > 0;
        }
      }
    });
  }
  EXPECT_GT(hidden_bids, 0);
  EXPECT_GT(hands_shown, 0);
}

TEST(SultanWire, RefusesMixedFormsAndBadBytes) {
  auto state = NewSultan(3, 13);
  const auto refusal = testing::RefusalOfChange<v1::SultanState>(*state);
  EXPECT_EQ(refusal([](v1::SultanState&) {}), "");
  EXPECT_THAT(refusal([](v1::SultanState& proto) { proto.mutable_seats(1)->add_hand(4); }),
              ::testing::HasSubstr("seat 1's cards are listed both as values (format 1) and as counts (format 2)"));
  EXPECT_THAT(refusal([](v1::SultanState& proto) { proto.mutable_cards()->pop_back(); }),
              ::testing::HasSubstr("the cards take 44 bytes; 3 players need 45"));
  EXPECT_THAT(refusal([](v1::SultanState& proto) { (*proto.mutable_cards())[15 + 6] = 0b11; }),
              ::testing::HasSubstr("seat 1 has 3 cards of value 7 instead of 1"));
  EXPECT_THAT(refusal([](v1::SultanState& proto) { (*proto.mutable_cards())[15 + 6] |= 0b1000000; }),
              ::testing::HasSubstr("seat 1's byte of the cards of value 7 has unused bits set"));
  // A card moved from the pile to the hand keeps the deck whole but not the hand's size.
  EXPECT_THAT(refusal([](v1::SultanState& proto) {
                std::string& cards = *proto.mutable_cards();
                for (char& byte : cards) {
                  if ((byte & 3) == 0) continue;
                  byte = static_cast<char>(byte - 1 + 4);  // one copy from the pile into the hand
                  return;
                }
              }),
              ::testing::HasSubstr("must have played"));
}

TEST(SultanViews, OtherSeatsBidsAndHandsAreHidden) {
  auto state = NewSultan(3, 5);
  std::vector<Move> legal;
  state->LegalMoves(legal);
  ASSERT_TRUE(state->Apply(legal[0]).ok());  // the return
  state->LegalMoves(legal);
  ASSERT_TRUE(state->Apply(legal[0]).ok());  // seat 0 bids
  for (Seat seat = 0; seat < 3; ++seat) {
    v1::View view;
    state->Observe(seat, &view);
    v1::SultanView sultan;
    ASSERT_TRUE(view.view().UnpackTo(&sultan));
    ASSERT_EQ(sultan.bids_size(), 1);
    EXPECT_EQ(sultan.bids(0).value() != 0, seat == 0);
    for (int other = 0; other < 3; ++other) {
      EXPECT_EQ(sultan.seats(other).hand_count() > 0, true);
      EXPECT_EQ(sultan.seats(other).hand_count() > 0 && sultan.seats(other).hand().empty(),
                other != seat);
    }
  }
}

TEST(SultanEvents, HiddenContentGoesOnlyToItsOwner) {
  EventLog log;
  auto state = SultanGame().NewGame(3, 11, {}, &log);
  ASSERT_TRUE(state.ok());
  int owner_copies = 0;
  for (Seat seat = 0; seat < 3; ++seat) {
    for (const v1::Event& event : log.ForSeat(seat)) {
      v1::SultanEvent detail;
      ASSERT_TRUE(event.detail().UnpackTo(&detail));
      if (!detail.has_hand_drawn()) continue;
      const bool own = detail.hand_drawn().seat() == seat;
      EXPECT_EQ(detail.hand_drawn().cards_size(), own ? 5 : 0);
      owner_copies += own;
    }
  }
  EXPECT_EQ(owner_copies, 3);
}

}  // namespace
}  // namespace gavel::sultan
