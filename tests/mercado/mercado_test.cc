// Mercado rules: the test vectors of docs/rules/mercado.md §12, validation, views and
// events.
#include "engine/mercado/mercado.h"

#include <bit>
#include <functional>
#include <initializer_list>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gavel/v1/mercado.pb.h"
#include "engine/core/rng.h"
#include "tests/property_suite.h"
#include "tests/support/decode_changed.h"
#include "tests/support/earlier_formats.h"
#include "tests/support/observed_view.h"
#include "tests/support/random_play.h"

namespace gavel::mercado {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

GAVEL_PROPERTY_SUITE(Mercado, MercadoGame());

// Tile ids (rules §10).
constexpr int kCloth = 0, kJug = 1, kGoblet = 2, kShoe = 5, kVase = 6, kMusicBox = 8,
              kDiadem = 10, kRareBook = 7, kLute = 19, kRose = kItems + 0, kMusk = kItems + 1,
              kAmber = kItems + 2;
// Privilege types (mercado_data.cc).
constexpr int kValue3 = 0, kValue2 = 1, kValue2Seal = 2, kValue1Seal = 5;

std::unique_ptr<MercadoState> NewMercado(int players, const OptionMap& options = {},
                                         uint64_t seed = 7) {
  auto state = MercadoGame().NewGame(players, seed, options);
  EXPECT_TRUE(state.ok()) << state.status();
  return std::unique_ptr<MercadoState>(static_cast<MercadoState*>(state->release()));
}

int Sum(const CoinCounts& coins) { return CoinTotal(coins); }

// Puts `tile` at display `position`, the tile there going back into its deck.
void Display(Data& data, int position, int tile) {
  for (int other = 0; other < kOverseerPosition; ++other) {
    if (data.display[other] == tile) {
      std::swap(data.display[other], data.display[position]);
      return;
    }
  }
  const int old = data.display[position];
  if (tile < kItems) {
    data.item_deck &= ~(uint32_t{1} << tile);
    data.item_discards &= ~(uint32_t{1} << tile);
    data.item_deck |= uint32_t{1} << old;
  } else {
    data.perfume_deck = static_cast<uint16_t>(data.perfume_deck & ~(1u << (tile - kItems)));
    data.perfume_discards =
        static_cast<uint16_t>(data.perfume_discards & ~(1u << (tile - kItems)));
    data.perfume_deck = static_cast<uint16_t>(data.perfume_deck | 1u << (old - kItems));
  }
  data.display[position] = static_cast<int8_t>(tile);
}

// Takes one coin of a seat from its bag, else its person tile, else the supply.
void Take(Data& data, int seat, int coin) {
  SeatData& holder = data.seats[seat];
  if (holder.bag[coin] > 0) {
    --holder.bag[coin];
  } else if (holder.person[coin] > 0) {
    --holder.person[coin];
  } else {
    ASSERT_GT(data.supply[coin], 0) << "no " << CoinName(coin) << " coin left for seat " << seat;
    --data.supply[coin];
  }
}

void OnEdge(Data& data, int seat, int position, std::initializer_list<int> coins) {
  for (int coin : coins) {
    Take(data, seat, coin);
    ++data.seats[seat].edges[position][coin];
  }
}

// Makes the seat's bag hold exactly `coins`; the rest of its bag goes to its person tile.
void SetBag(Data& data, int seat, std::initializer_list<int> coins) {
  SeatData& holder = data.seats[seat];
  for (int coin = 0; coin < kCoinKinds; ++coin) holder.person[coin] += holder.bag[coin];
  holder.bag = {};
  for (int coin : coins) {
    Take(data, seat, coin);
    ++holder.bag[coin];
  }
}

void GivePrivilege(Data& data, int seat, int type) {
  ASSERT_GT(data.privilege_supply[type], 0);
  --data.privilege_supply[type];
  ++data.seats[seat].privileges[type];
}

void GiveSeal(Data& data, int seat) {
  ASSERT_GT(data.seal_supply, 0);
  --data.seal_supply;
  ++data.seats[seat].seals;
}

// Places markers: progress per seat, stacked in the order given (later = higher).
void SetTrack(Data& data, std::initializer_list<std::pair<int, int>> seat_progress) {
  for (auto [seat, progress] : seat_progress) {
    int below = 0;
    for (auto [other, other_progress] : seat_progress) {
      if (other == seat) break;
      if ((other_progress - progress) % kSpaces == 0) ++below;
    }
    data.seats[seat].progress = static_cast<uint8_t>(progress);
    data.seats[seat].height = static_cast<uint8_t>(below);
  }
}

// The active seat has completed the tile at `position` and is about to score.
void ReadyToScore(Data& data, int seat, int position, std::initializer_list<int> coins) {
  data.active = static_cast<int8_t>(seat);
  OnEdge(data, seat, position, coins);
  data.phase = Phase::kScore;
}

void ExpectValid(const Data& data) {
  const absl::Status status = Validate(data);
  ASSERT_TRUE(status.ok()) << status;
}

std::vector<Move> Legal(const State& state) {
  std::vector<Move> legal;
  state.LegalMoves(legal);
  return legal;
}

void Play(State& state, Move move) {
  const absl::Status status = state.Apply(move);
  ASSERT_TRUE(status.ok()) << status;
}

TEST(MercadoRules, ClothTurn) {  // vector 1: Red 0, Blue 1, Yellow 2
  auto state = NewMercado(3);
  Data& data = state->mutable_data();
  Display(data, 0, kCloth);
  OnEdge(data, 0, 0, {kGold, kTurquoise});
  OnEdge(data, 2, 0, {kGold, kGold, kTurquoise});
  OnEdge(data, 1, 0, {kTurquoise});
  SetBag(data, 0, {kBlack, kGold, kTurquoise});
  GivePrivilege(data, 0, kValue3);
  data.phase = Phase::kPrivilege;
  ExpectValid(data);
  const int black_on_person_tile = data.seats[0].person[kBlack];
  Play(*state, Move{kNoPrivilege});
  Play(*state, Move{kActionA});
  EXPECT_EQ(state->data().seats[0].person[kBlack], black_on_person_tile + 1);
  EXPECT_EQ(state->data().phase, Phase::kPlace);
  EXPECT_FALSE(state->IsLegal(Move{kStop}));
  Play(*state, PlaceMove(kGold, 0));
  Play(*state, PlaceMove(kTurquoise, 0));
  ASSERT_THAT(Legal(*state), ElementsAre(ScoreMove(0)));
  const int yellow_bag = Sum(state->data().seats[2].bag), blue_bag = Sum(state->data().seats[1].bag);
  const int person = Sum(state->data().seats[0].person);
  Play(*state, ScoreMove(0));
  const Data& after = state->data();
  EXPECT_EQ(after.seats[0].progress, 4);
  EXPECT_EQ(PrivilegeCount(after.seats[0].privileges), 2);  // the unplayed one and the new one
  EXPECT_EQ(after.seats[2].seals, 2);
  EXPECT_EQ(after.seats[1].seals, 1);
  EXPECT_EQ(Sum(after.seats[0].person), person + 4);
  EXPECT_EQ(Sum(after.seats[2].bag), yellow_bag + 3);
  EXPECT_EQ(Sum(after.seats[1].bag), blue_bag + 1);
  EXPECT_NE(after.display[0], kCloth);
  EXPECT_TRUE(after.item_discards >> kCloth & 1);
  EXPECT_EQ(after.active, 1);  // Blue is next
  EXPECT_EQ(after.idle_turns, 1);  // reset by the purchase, then Red's turn ended
  ExpectValid(after);
}

TEST(MercadoRules, JugGivesFourPointsAndACounterfeit) {  // vector 2
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  Display(data, 1, kJug);
  ReadyToScore(data, 0, 1, {kSilver, kSilver});
  ExpectValid(data);
  const int supply = data.supply[kBlack], bag = data.seats[0].bag[kBlack];
  Play(*state, ScoreMove(1));
  EXPECT_EQ(state->data().seats[0].progress, 4);
  EXPECT_EQ(state->data().supply[kBlack], supply - 1);
  EXPECT_EQ(state->data().seats[0].bag[kBlack], bag + 1);
}

TEST(MercadoRules, SameColourPrices) {  // vector 3
  const Price& music_box = Tile(kMusicBox).price;
  const CoinCounts red = {0, 3, 0, 0, 0, 0}, blue = {2, 0, 0, 0, 0, 0}, green = {0, 2, 0, 0, 0, 0};
  EXPECT_TRUE(Fits(music_box, red) && Fits(music_box, blue) && Fits(music_box, green));
  EXPECT_TRUE(MayPlace(music_box, red, kSilver));
  EXPECT_TRUE(MayPlace(music_box, red, kWhite));
  EXPECT_FALSE(MayPlace(music_box, red, kGold));
  EXPECT_TRUE(Completes(music_box, {0, 4, 0, 0, 0, 0}));
  EXPECT_TRUE(Completes(music_box, {0, 3, 0, 0, 1, 0}));
  EXPECT_TRUE(MayPlace(music_box, blue, kGold));
  EXPECT_TRUE(MayPlace(music_box, blue, kWhite));
  EXPECT_FALSE(MayPlace(music_box, blue, kSilver));
}

// TileFits looks the tiles' prices up in a table worked out once: it must answer as Fits, the
// search of the groups' assignment, does, for every tile and every set of up to four coins.
TEST(MercadoRules, TheTableOfFitsAnswersAsTheSearch) {
  int fitting = 0, refused = 0;
  for (int tile = 0; tile < kTiles; ++tile) {
    const Price& price = Tile(tile).price;
    for (int gold = 0; gold <= kMaxSlots; ++gold)
      for (int silver = 0; gold + silver <= kMaxSlots; ++silver)
        for (int copper = 0; gold + silver + copper <= kMaxSlots; ++copper)
          for (int turquoise = 0; gold + silver + copper + turquoise <= kMaxSlots; ++turquoise)
            for (int white = 0; gold + silver + copper + turquoise + white <= kMaxSlots; ++white) {
              const CoinCounts coins = {static_cast<uint8_t>(gold), static_cast<uint8_t>(silver),
                                        static_cast<uint8_t>(copper), static_cast<uint8_t>(turquoise),
                                        static_cast<uint8_t>(white), 0};
              const bool fits = Fits(price, coins);
              EXPECT_EQ(TileFits(tile, coins), fits) << Tile(tile).name << ": " << gold << silver << copper << turquoise << white;
              ++(fits ? fitting : refused);
            }
  }
  EXPECT_GT(fitting, 0);
  EXPECT_GT(refused, 0);
}

TEST(MercadoRules, DifferentColourPrices) {  // vector 4
  const Price& rare_book = Tile(kRareBook).price;
  const CoinCounts gold = {1, 0, 0, 0, 0, 0};
  for (int coin : {kSilver, kCopper, kTurquoise, kWhite})
    EXPECT_TRUE(MayPlace(rare_book, gold, coin)) << CoinName(coin);
  EXPECT_FALSE(MayPlace(rare_book, gold, kGold));
  EXPECT_FALSE(MayPlace(rare_book, gold, kBlack));
  EXPECT_FALSE(MayPlace(rare_book, {}, kBlack));
}

TEST(MercadoRules, FixedColoursAndJokerSlots) {
  const Price& cloth = Tile(kCloth).price;
  EXPECT_TRUE(MayPlace(cloth, {1, 0, 0, 1, 0, 0}, kWhite));
  EXPECT_FALSE(MayPlace(cloth, {2, 0, 0, 0, 0, 0}, kGold));
  EXPECT_TRUE(MayPlace(cloth, {1, 0, 0, 0, 1, 0}, kGold));  // the joker moves to a T slot
  const Price& musk = Tile(kMusk).price;                    // J =2
  EXPECT_FALSE(MayPlace(musk, {2, 0, 0, 0, 0, 0}, kSilver));
  EXPECT_TRUE(MayPlace(musk, {2, 0, 0, 0, 0, 0}, kWhite));
  EXPECT_FALSE(Completes(musk, {3, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(Completes(musk, {2, 0, 0, 0, 1, 0}));
}

// Vectors 5 and 6: Yellow (seat 1) at 6, Red (seat 0) at 4 scores.
std::unique_ptr<MercadoState> RedScores(int tile, std::initializer_list<int> coins,
                                        int yellow_progress) {
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  Display(data, 2, tile);
  SetTrack(data, {{0, 4}, {1, yellow_progress}});
  ReadyToScore(data, 0, 2, coins);
  return state;
}

TEST(MercadoRules, LandingOnAMinusCounterfeitReturnsOneFromTheBag) {  // vector 5
  auto state = RedScores(kGoblet, {kGold, kGold, kGold}, 6);
  ExpectValid(state->data());
  const int bag = state->data().seats[0].bag[kBlack];
  Play(*state, ScoreMove(2));
  EXPECT_EQ(state->data().seats[0].progress, 8);
  EXPECT_EQ(state->data().seats[0].bag[kBlack], bag - 1);
}

TEST(MercadoRules, LandingReturnsFromThePersonTileOrNothing) {  // vector 5, fallbacks
  auto state = RedScores(kGoblet, {kGold, kGold, kGold}, 6);
  Data& data = state->mutable_data();
  data.seats[0].person[kBlack] += data.seats[0].bag[kBlack];
  data.seats[0].bag[kBlack] = 0;
  const int person = data.seats[0].person[kBlack], supply = data.supply[kBlack];
  Play(*state, ScoreMove(2));
  EXPECT_EQ(state->data().seats[0].person[kBlack], person - 1);
  EXPECT_EQ(state->data().supply[kBlack], supply + 1);

  auto empty = RedScores(kGoblet, {kGold, kGold, kGold}, 6);
  Data& none = empty->mutable_data();
  none.supply[kBlack] += none.seats[0].bag[kBlack] + none.seats[0].person[kBlack];
  none.seats[0].bag[kBlack] = none.seats[0].person[kBlack] = 0;
  ExpectValid(none);
  Play(*empty, ScoreMove(2));
  EXPECT_EQ(empty->data().supply[kBlack], none.supply[kBlack]);
  EXPECT_EQ(empty->data().seats[0].progress, 8);
}

TEST(MercadoRules, PlusThreeMovesOnUnlessStacked) {  // vector 6
  auto state = RedScores(kShoe, {kTurquoise, kTurquoise}, 6);
  Play(*state, ScoreMove(2));
  EXPECT_EQ(state->data().seats[0].progress, 10);

  auto stacked = RedScores(kShoe, {kTurquoise, kTurquoise}, 7);
  Play(*stacked, ScoreMove(2));
  EXPECT_EQ(stacked->data().seats[0].progress, 7);
  EXPECT_EQ(stacked->data().seats[0].height, 1);
  EXPECT_EQ(stacked->data().seats[1].height, 0);
  EXPECT_EQ(RankOf(stacked->data(), 0), 1);
}

TEST(MercadoRules, PrivilegeMoveMakesTheSymbolOptional) {  // vector 7
  for (bool use : {true, false}) {
    auto state = NewMercado(2);
    Data& data = state->mutable_data();
    SetTrack(data, {{1, 0}, {0, 5}});
    GivePrivilege(data, 0, kValue3);
    data.phase = Phase::kPrivilege;
    ExpectValid(data);
    const int bag = data.seats[0].bag[kBlack];
    Play(*state, PlayPrivilegeMove(kValue3));
    EXPECT_EQ(state->data().seats[0].progress, 8);
    ASSERT_THAT(Legal(*state), ElementsAre(Move{kUseSymbol}, Move{kSkipSymbol}));
    Play(*state, Move{use ? kUseSymbol : kSkipSymbol});
    EXPECT_EQ(state->data().seats[0].bag[kBlack], bag - (use ? 1 : 0));
    EXPECT_EQ(state->data().phase, Phase::kAction);
    EXPECT_EQ(state->data().privileges_gone[kValue3], 1);
  }
}

TEST(MercadoRules, PrivilegeExtraComesAfterTheSymbolAndPlusThreeStaysOptional) {
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  SetTrack(data, {{1, 0}, {0, 5}});
  GivePrivilege(data, 0, kValue2Seal);
  data.phase = Phase::kPrivilege;
  Play(*state, PlayPrivilegeMove(kValue2Seal));  // lands on 7: +3
  ASSERT_EQ(state->data().phase, Phase::kSymbol);
  EXPECT_EQ(state->data().privilege_extra, kGainSeal);
  Play(*state, Move{kUseSymbol});  // on to 10, a blank: the extra follows
  EXPECT_EQ(state->data().seats[0].progress, 10);
  EXPECT_EQ(state->data().seats[0].seals, 2);
  EXPECT_EQ(state->data().phase, Phase::kAction);
}

TEST(MercadoRules, RankScoresTheBuyersPlace) {  // vector 8: Red 0, Yellow 1, Blue 2, Green 3
  auto state = NewMercado(4);
  Data& data = state->mutable_data();
  SetTrack(data, {{2, 12}, {1, 9}, {0, 9}, {3, 3}});
  ExpectValid(data);
  EXPECT_EQ(RankOf(data, 2), 1);
  EXPECT_EQ(RankOf(data, 0), 2);
  EXPECT_EQ(RankOf(data, 1), 3);
  EXPECT_EQ(RankOf(data, 3), 4);
  Display(data, 0, kLute);
  ReadyToScore(data, 0, 0, {kCopper, kCopper});
  Play(*state, ScoreMove(0));
  EXPECT_EQ(state->data().seats[0].progress, 11);

  auto yellow = NewMercado(4);
  Data& other = yellow->mutable_data();
  SetTrack(other, {{2, 12}, {1, 9}, {0, 9}, {3, 3}});
  Display(other, 0, kLute);
  ReadyToScore(other, 1, 0, {kCopper, kCopper});
  Play(*yellow, ScoreMove(0));
  EXPECT_EQ(yellow->data().seats[1].progress, 12);  // stacks on Blue
}

TEST(MercadoRules, SealTiesAllTakeOne) {  // vector 9: Red 0, Yellow 1, Blue 2, Green 3
  auto state = NewMercado(4);
  Data& data = state->mutable_data();
  Display(data, 3, kDiadem);
  OnEdge(data, 1, 3, {kGold, kGold});
  OnEdge(data, 2, 3, {kGold, kGold});
  OnEdge(data, 3, 3, {kGold});
  ReadyToScore(data, 0, 3, {kGold, kGold, kGold, kGold});
  ExpectValid(data);
  Play(*state, ScoreMove(3));
  EXPECT_EQ(state->data().seats[1].seals, 2);
  EXPECT_EQ(state->data().seats[2].seals, 2);
  EXPECT_EQ(state->data().seats[3].seals, 1);
  EXPECT_EQ(state->data().seats[0].seals, 1);
}

TEST(MercadoRules, ActionARequiresThreeCoins) {  // vector 10
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  SetBag(data, 0, {kGold, kSilver});
  data.phase = Phase::kAction;
  ExpectValid(data);
  EXPECT_THAT(Legal(*state), ElementsAre(Move{kActionB}));
}

// A seat's coloured coins on edges that fit without completing: 18 of them with S and T
// left in its bag, or all 20. Its black coins go to the supply.
void StrandCoins(Data& data, int seat, bool all = false) {
  Display(data, 0, kDiadem);
  Display(data, 1, kMusicBox);
  Display(data, 2, 4);   // Pocket watch ≠4
  Display(data, 3, 18);  // Jewel casket ≠4
  Display(data, 4, kItems + 4);  // Lavender ≠3
  Display(data, 5, kItems + 5);  // Violet =3
  OnEdge(data, seat, 0, {kGold, kGold, kGold});
  OnEdge(data, seat, 1, {kSilver, kSilver, kSilver});
  OnEdge(data, seat, 2, {kCopper, kTurquoise, kGold});
  OnEdge(data, seat, 3, {kCopper, kTurquoise, kSilver});
  OnEdge(data, seat, 4, {kCopper, kTurquoise});
  OnEdge(data, seat, 5, {kCopper, kCopper});
  if (all) {
    OnEdge(data, seat, kOverseerPosition, {kGold, kSilver});
    OnEdge(data, seat, kChangerPosition, {kTurquoise, kTurquoise});
  } else {
    OnEdge(data, seat, kOverseerPosition, {kGold, kTurquoise});
  }
  SeatData& holder = data.seats[seat];
  data.supply[kBlack] += holder.bag[kBlack] + holder.person[kBlack];
  holder.bag[kBlack] = holder.person[kBlack] = 0;
  for (int coin = 0; coin < kCoinKinds; ++coin) holder.bag[coin] += holder.person[coin];
  holder.person = {};
}

TEST(MercadoRules, WithoutAnActionTheTurnGoesToScoring) {  // vector 10
  auto state = NewMercado(3);
  Data& data = state->mutable_data();
  StrandCoins(data, 1);
  ASSERT_EQ(Sum(data.seats[1].bag), 2);
  SetBag(data, 0, {kGold, kSilver});  // seat 0 can only do Action B
  data.phase = Phase::kAction;
  ExpectValid(data);
  EventLog log;
  ASSERT_TRUE(state->Apply(Move{kActionB}, &log).ok());
  // Seat 1 had neither action and nothing pending: its turn passed to seat 2.
  EXPECT_EQ(state->data().active, 2);
  int turns = 0;
  for (const v1::Event& event : log.ForSeat(0)) {
    v1::MercadoEvent detail;
    ASSERT_TRUE(event.detail().UnpackTo(&detail));
    if (detail.has_turn_started()) ++turns;
  }
  EXPECT_EQ(turns, 2);
}

// Vector 11: only turquoise fits anywhere for seat 0.
std::unique_ptr<MercadoState> OnlyTurquoiseFits(std::initializer_list<int> drawn) {
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  Display(data, 0, kGoblet);
  Display(data, 1, kDiadem);
  Display(data, 2, kShoe);
  Display(data, 3, 13);  // Carpet T3
  Display(data, 4, kMusk);
  Display(data, 5, kItems + 9);  // Vanilla J =1
  OnEdge(data, 0, 4, {kGold});
  OnEdge(data, 0, 5, {kGold});
  OnEdge(data, 0, kOverseerPosition, {kSilver, kCopper});
  OnEdge(data, 0, kChangerPosition, {kGold});
  for (int coin : drawn) {
    Take(data, 0, coin);
    ++data.drawn[coin];
  }
  data.phase = Phase::kPlace;
  return state;
}

TEST(MercadoRules, MustPlaceBeforeStopping) {  // vector 11
  auto state = OnlyTurquoiseFits({kSilver, kTurquoise, kCopper});
  ExpectValid(state->data());
  const std::vector<Move> legal = Legal(*state);
  EXPECT_FALSE(state->IsLegal(Move{kStop}));
  for (Move move : legal) EXPECT_EQ((move.id - kPlaceBase) / 8, static_cast<uint32_t>(kTurquoise));
  const CoinCounts bag = state->data().seats[0].bag;
  Play(*state, PlaceMove(kTurquoise, 2));
  // S and C fit nowhere: the loop ends and they return to the bag.
  EXPECT_EQ(state->data().seats[0].bag[kSilver], bag[kSilver] + 1);
  EXPECT_EQ(state->data().seats[0].bag[kCopper], bag[kCopper] + 1);
  EXPECT_EQ(Sum(state->data().drawn), 0);

  auto twice = OnlyTurquoiseFits({kSilver, kTurquoise, kTurquoise});
  const CoinCounts twice_bag = twice->data().seats[0].bag;
  EXPECT_FALSE(twice->IsLegal(Move{kStop}));
  Play(*twice, PlaceMove(kTurquoise, 3));
  EXPECT_TRUE(twice->IsLegal(Move{kStop}));
  Play(*twice, Move{kStop});
  EXPECT_EQ(twice->data().seats[0].bag[kSilver], twice_bag[kSilver] + 1);
  EXPECT_EQ(twice->data().seats[0].bag[kTurquoise], twice_bag[kTurquoise] + 1);
}

TEST(MercadoRules, CoinChangerJokerCompletesATile) {  // vector 12
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  Display(data, 0, kVase);
  OnEdge(data, 0, kChangerPosition, {kCopper, kCopper});
  OnEdge(data, 0, 0, {kCopper, kCopper});
  SetBag(data, 0, {kCopper, kGold, kSilver});
  data.phase = Phase::kAction;
  ExpectValid(data);
  const int person = Sum(data.seats[0].person);
  Play(*state, Move{kActionA});
  Play(*state, PlaceMove(kCopper, kChangerPosition));
  Play(*state, Move{kStop});
  EXPECT_EQ(state->data().seats[0].bag[kGold], 1);
  EXPECT_EQ(state->data().seats[0].bag[kSilver], 1);
  ASSERT_THAT(Legal(*state), ElementsAre(ScoreMove(kChangerPosition)));
  Play(*state, ScoreMove(kChangerPosition));
  EXPECT_EQ(state->data().seats[0].person[kCopper], 3);
  EXPECT_EQ(Sum(state->data().seats[0].person), person + 3);
  EXPECT_EQ(state->data().supply[kWhite], kJokers - 1);
  ASSERT_EQ(state->data().phase, Phase::kJoker);
  EXPECT_FALSE(state->IsLegal(PlaceJokerMove(kChangerPosition)));
  Play(*state, PlaceJokerMove(0));
  ASSERT_THAT(Legal(*state), ElementsAre(ScoreMove(0)));
  Play(*state, ScoreMove(0));
  EXPECT_EQ(state->data().seats[0].progress, 4);
  EXPECT_EQ(state->data().seats[0].person[kCopper], 5);
  EXPECT_EQ(state->data().supply[kWhite], kJokers);
  EXPECT_EQ(state->data().display[kChangerPosition], kChanger);
}

TEST(MercadoRules, MuskGivesAnExtraTurnAndCounterfeitsToOpponents) {  // vector 13
  auto state = NewMercado(3);
  Data& data = state->mutable_data();
  Display(data, 4, kMusk);
  OnEdge(data, 1, 4, {kGold});
  ReadyToScore(data, 0, 4, {kWhite, kSilver, kSilver});
  ExpectValid(data);
  const int supply = data.supply[kBlack];
  const int bag1 = data.seats[1].bag[kBlack], bag2 = data.seats[2].bag[kBlack];
  const int gold1 = data.seats[1].bag[kGold];
  EventLog log;
  ASSERT_TRUE(state->Apply(ScoreMove(4), &log).ok());
  const Data& after = state->data();
  EXPECT_EQ(after.active, 0);  // the extra turn has started
  EXPECT_EQ(after.seats[1].bag[kBlack], bag1 + 2);
  EXPECT_EQ(after.seats[1].bag[kGold], gold1 + 1);  // its coin on the Musk comes back
  EXPECT_EQ(after.seats[2].bag[kBlack], bag2 + 2);
  EXPECT_EQ(after.supply[kBlack], supply - 4);
  EXPECT_EQ(after.seats[1].seals, 1);
  bool extra = false;
  for (const v1::Event& event : log.ForSeat(0)) {
    v1::MercadoEvent detail;
    ASSERT_TRUE(event.detail().UnpackTo(&detail));
    extra = extra || (detail.has_turn_started() && detail.turn_started().extra_turn());
  }
  EXPECT_TRUE(extra);
}

TEST(MercadoRules, RoseGivesSealAndPrivilegeAndOpponentsDiscardInOrder) {  // vector 14
  auto state = NewMercado(4);
  Data& data = state->mutable_data();
  Display(data, 4, kRose);
  OnEdge(data, 3, 4, {kGold, kSilver});
  GivePrivilege(data, 3, kValue3);
  GivePrivilege(data, 3, kValue1Seal);
  GivePrivilege(data, 1, kValue2);
  ReadyToScore(data, 2, 4, {kGold, kSilver, kCopper});
  ExpectValid(data);
  Play(*state, ScoreMove(4));
  EXPECT_EQ(state->data().seats[2].seals, 2);
  EXPECT_EQ(PrivilegeCount(state->data().seats[2].privileges), 1);
  EXPECT_EQ(state->data().seats[3].seals, 1);  // no seal for the runner-up
  ASSERT_EQ(state->data().phase, Phase::kDiscard);
  EXPECT_EQ(state->to_move(), 3);
  EXPECT_THAT(Legal(*state), ElementsAre(DiscardMove(kValue3), DiscardMove(kValue1Seal)));
  EXPECT_EQ(state->data().display[4], kRose);  // the tile waits for the discards
  Play(*state, DiscardMove(kValue1Seal));
  EXPECT_EQ(state->to_move(), 1);  // seat 0 holds none
  Play(*state, DiscardMove(kValue2));
  EXPECT_NE(state->data().display[4], kRose);
  EXPECT_EQ(state->data().privileges_gone[kValue1Seal], 1);
  EXPECT_EQ(state->data().privileges_gone[kValue2], 1);
  EXPECT_EQ(state->data().active, 3);  // seat 2's turn is over
  ExpectValid(state->data());
}

TEST(MercadoRules, ShortSupplyGivesClockwise) {  // vector 15
  auto state = NewMercado(4);
  Data& data = state->mutable_data();
  Display(data, 4, kAmber);
  data.seats[1].person[kBlack] += data.supply[kBlack] - 3;
  data.supply[kBlack] = 3;
  ReadyToScore(data, 1, 4, {kGold, kGold});
  ExpectValid(data);
  const Data before = data;
  Play(*state, ScoreMove(4));
  EXPECT_EQ(state->data().seats[2].bag[kBlack], before.seats[2].bag[kBlack] + 2);
  EXPECT_EQ(state->data().seats[3].bag[kBlack], before.seats[3].bag[kBlack] + 1);
  EXPECT_EQ(state->data().seats[0].bag[kBlack], before.seats[0].bag[kBlack]);
  EXPECT_EQ(state->data().supply[kBlack], 0);
}

TEST(MercadoRules, FinalBonusStacksAndDecidesTheWinner) {  // vector 16: Yellow 0, Blue 1
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  SetTrack(data, {{0, 36}, {1, 32}});
  data.end_triggered = true;
  GivePrivilege(data, 1, kValue1Seal);
  GivePrivilege(data, 1, kValue2);
  GiveSeal(data, 1);
  --data.seats[1].bag[kBlack];
  ++data.seats[1].person[kBlack];
  data.active = 1;
  data.phase = Phase::kPrivilege;
  ExpectValid(data);
  Play(*state, Move{kNoPrivilege});
  ASSERT_TRUE(state->IsLegal(Move{kActionB}));
  Play(*state, Move{kActionB});
  ASSERT_TRUE(state->finished());
  const Data& after = state->data();
  EXPECT_EQ(after.seats[0].progress, 37);  // the +3 on space 7 is ignored
  EXPECT_EQ(after.seats[1].progress, 37);
  EXPECT_EQ(after.seats[1].height, 1);
  EXPECT_THAT(state->outcome().ranks, ElementsAre(2, 1));
  EXPECT_THAT(state->outcome().scores, ElementsAre(37, 37));
}

TEST(MercadoRules, FinalRoundEndsWithTheLastSeatAfterExtraTurns) {  // vector 17
  auto state = NewMercado(3);
  Data& data = state->mutable_data();
  Display(data, 4, kMusk);
  Display(data, 0, kDiadem);
  SetTrack(data, {{0, 0}, {2, 0}, {1, 25}});
  OnEdge(data, 1, 4, {kWhite, kCopper, kCopper});
  ReadyToScore(data, 1, 0, {kGold, kGold, kGold, kGold});
  ExpectValid(data);
  Play(*state, ScoreMove(4));
  Play(*state, ScoreMove(0));
  EXPECT_EQ(state->data().seats[1].progress, 32);
  EXPECT_TRUE(state->data().end_triggered);
  EXPECT_EQ(state->data().active, 1);  // its extra turn
  bool seat_two_played = false;
  for (int step = 0; step < 500 && !state->finished(); ++step) {
    EXPECT_NE(state->data().active, 0) << "seat 0 gets no turn in the finished round";
    seat_two_played = seat_two_played || state->data().active == 2;
    const std::vector<Move> legal = Legal(*state);
    Play(*state, legal.back());
  }
  EXPECT_TRUE(state->finished());
  EXPECT_TRUE(seat_two_played);
}

TEST(MercadoRules, OneSealPerTurnAnotherInTheExtraTurn) {  // vector 18
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  GiveSeal(data, 0);
  data.extra_turns = 1;
  data.phase = Phase::kAction;
  ExpectValid(data);
  int seals_used = 0, seal_offers_in_first_turn = 0;
  bool in_extra_turn = false;
  for (int step = 0; step < 200 && state->data().active == 0; ++step) {
    const Phase phase = state->data().phase;
    if (phase == Phase::kSeal) {
      if (!in_extra_turn) ++seal_offers_in_first_turn;
      ++seals_used;
      Play(*state, Move{kUseSeal});
      continue;
    }
    if (phase == Phase::kAction) {
      in_extra_turn = seals_used > 0;
      Play(*state, Move{kActionA});
      continue;
    }
    const std::vector<Move> legal = Legal(*state);
    Play(*state, state->IsLegal(Move{kStop}) ? Move{kStop} : legal.front());
  }
  EXPECT_EQ(seal_offers_in_first_turn, 1);
  EXPECT_EQ(seals_used, 2);
  EXPECT_EQ(state->data().seats[0].seals, 0);
}

TEST(MercadoRules, StuckGameEnds) {
  // No seat can draw again: after the idle-turn limit the end is triggered and the round
  // is finished, all inside one Apply since nobody has a decision left.
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  StrandCoins(data, 0, true);
  StrandCoins(data, 1, true);
  ++data.seats[0].person[kBlack];
  ++data.seats[1].bag[kBlack];
  data.supply[kBlack] -= 2;
  data.phase = Phase::kAction;  // seat 0 can only put its one black coin into its bag
  ExpectValid(data);
  EventLog log;
  ASSERT_TRUE(state->Apply(Move{kActionB}, &log).ok());
  EXPECT_TRUE(state->finished());
  int stuck = 0, turns = 0;
  for (const v1::Event& event : log.ForSeat(0)) {
    v1::MercadoEvent detail;
    ASSERT_TRUE(event.detail().UnpackTo(&detail));
    stuck += detail.has_end_triggered() && detail.end_triggered().seat() == -1;
    turns += detail.has_turn_started();
  }
  EXPECT_EQ(stuck, 1);
  // Seat 0's turn was the first idle one; the 60th, seat 1's, triggers and ends the round.
  EXPECT_EQ(turns, IdleTurnLimit(2) - 1);
}

TEST(MercadoRules, RevealScoresARandomItemsPoints) {
  for (uint64_t seed : {1, 2, 3, 4}) {
    auto state = NewMercado(2, {}, seed);
    Data& data = state->mutable_data();
    Display(data, 4, kItems + 4);  // Lavender ≠3, reveal
    ReadyToScore(data, 0, 4, {kGold, kSilver, kCopper});
    const uint32_t deck = data.item_deck;
    EventLog log;
    ASSERT_TRUE(state->Apply(ScoreMove(4), &log).ok());
    int revealed = -1;
    for (const v1::Event& event : log.ForSeat(1)) {
      v1::MercadoEvent detail;
      ASSERT_TRUE(event.detail().UnpackTo(&detail));
      if (detail.has_tile_scored()) revealed = detail.tile_scored().revealed_tile();
    }
    ASSERT_GE(revealed, 0);
    ASSERT_LT(revealed, kItems);
    EXPECT_TRUE(deck >> revealed & 1);
    EXPECT_TRUE(state->data().item_discards >> revealed & 1);
    const int points = Tile(revealed).points == kRankPoints ? 1 : Tile(revealed).points;  // on top
    const int progress = state->data().seats[0].progress;
    EXPECT_TRUE(progress == points || progress == points + 3) << Tile(revealed).name;
  }
}

TEST(MercadoRules, EmptyDeckIsReshuffledFromItsDiscards) {
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  Display(data, 0, kGoblet);
  data.item_discards |= data.item_deck;
  data.item_deck = 0;
  ReadyToScore(data, 0, 0, {kGold, kGold, kGold});
  ExpectValid(data);
  Play(*state, ScoreMove(0));
  const Data& after = state->data();
  EXPECT_EQ(after.item_discards, 0u);
  EXPECT_EQ(std::popcount(after.item_deck), kItems - kItemSlots);  // 21 reshuffled, 1 drawn
  ExpectValid(after);
}

TEST(MercadoRules, SealShortageGivesNothing) {
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  Display(data, 0, kDiadem);
  OnEdge(data, 1, 0, {kGold});
  data.seats[1].seals = static_cast<uint8_t>(data.seats[1].seals + data.seal_supply);
  data.seal_supply = 0;
  ReadyToScore(data, 0, 0, {kGold, kGold, kGold, kGold});
  ExpectValid(data);
  const int seals = data.seats[1].seals;
  Play(*state, ScoreMove(0));
  EXPECT_EQ(state->data().seats[1].seals, seals);
  ExpectValid(state->data());
}

TEST(MercadoEvents, RandomGamesShowEveryKindOfEvent) {
  std::set<int> kinds;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    EventLog log;
    auto created = MercadoGame().NewGame(3, seed, {{"board_side", "B"}}, &log);
    ASSERT_TRUE(created.ok());
    State& state = **created;
    Rng rng(seed);
    while (!state.finished()) {
      const std::vector<Move> legal = Legal(state);
      ASSERT_TRUE(state.Apply(legal[rng.Below(legal.size())], &log).ok());
    }
    for (const v1::Event& event : log.ForSeat(0)) {
      v1::MercadoEvent detail;
      ASSERT_TRUE(event.detail().UnpackTo(&detail));
      kinds.insert(detail.event_case());
    }
  }
  for (int kind : {v1::MercadoEvent::kTurnStarted, v1::MercadoEvent::kPrivilegePlayed,
                   v1::MercadoEvent::kPrivilegeDrawn, v1::MercadoEvent::kMarkerMoved,
                   v1::MercadoEvent::kSymbolApplied, v1::MercadoEvent::kCoinsDrawn,
                   v1::MercadoEvent::kCoinPlaced, v1::MercadoEvent::kCoinsReturned,
                   v1::MercadoEvent::kPersonTileEmptied, v1::MercadoEvent::kTileScored,
                   v1::MercadoEvent::kGain, v1::MercadoEvent::kDisplayRefilled,
                   v1::MercadoEvent::kEndTriggered, v1::MercadoEvent::kFinalBonus,
                   v1::MercadoEvent::kGameOver, v1::MercadoEvent::kPrivilegeDeclined,
                   v1::MercadoEvent::kSealDeclined})
    EXPECT_TRUE(kinds.count(kind)) << "no event of kind " << kind;
}

TEST(MercadoValidation, RejectsBrokenConservationWithAClearMessage) {
  auto state = NewMercado(3);
  Data broken = state->data();
  ++broken.seats[1].bag[kGold];
  EXPECT_THAT(std::string(Validate(broken).message()), HasSubstr("seat 1 has 6 gold"));
  broken = state->data();
  ++broken.supply[kWhite];
  EXPECT_THAT(std::string(Validate(broken).message()), HasSubstr("white coins"));
  broken = state->data();
  ++broken.seal_supply;
  EXPECT_THAT(std::string(Validate(broken).message()), HasSubstr("seals"));
  broken = state->data();
  ++broken.seats[2].privileges[kValue3];
  EXPECT_THAT(std::string(Validate(broken).message()), HasSubstr("privileges of type 0"));
  broken = state->data();
  broken.seats[0].height = 0;
  EXPECT_THAT(std::string(Validate(broken).message()), HasSubstr("stack"));
  broken = state->data();
  broken.phase = Phase::kScore;
  EXPECT_THAT(std::string(Validate(broken).message()), HasSubstr("completed tile"));
}

TEST(MercadoViews, OnlyTheOwnerSeesItsPrivileges) {
  auto state = NewMercado(3);
  Data& data = state->mutable_data();
  GivePrivilege(data, 1, kValue3);
  GivePrivilege(data, 2, kValue1Seal);
  for (Seat seat = 0; seat < 3; ++seat) {
    v1::View view;
    state->Observe(seat, &view);
    v1::MercadoView mercado;
    ASSERT_TRUE(view.view().UnpackTo(&mercado));
    EXPECT_EQ(mercado.own_privileges_size(), seat == 0 ? 0 : 1);
    EXPECT_EQ(mercado.table().seats(1).privilege_count(), 1);
    EXPECT_EQ(mercado.table().privilege_supply_size(), kPrivileges - 2);
  }
  v1::View view;
  state->Observe(0, &view);
  auto resampled = MercadoGame().Resample(view, 99);
  ASSERT_TRUE(resampled.ok()) << resampled.status();
  const Data& redealt = static_cast<const MercadoState&>(**resampled).data();
  EXPECT_EQ(PrivilegeCount(redealt.seats[1].privileges), 1);
  EXPECT_EQ(PrivilegeCount(redealt.seats[2].privileges), 1);
  EXPECT_EQ(PrivilegeCount(redealt.seats[0].privileges), 0);
  // Other seats' privileges are re-dealt from the unseen ones, so deals vary with the seed.
  std::set<std::pair<int, int>> deals;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    auto again = MercadoGame().Resample(view, seed);
    ASSERT_TRUE(again.ok());
    const Data& dealt = static_cast<const MercadoState&>(**again).data();
    int types[2] = {0, 0};
    for (int seat : {1, 2})
      for (int type = 0; type < kPrivilegeTypes; ++type)
        if (dealt.seats[seat].privileges[type]) types[seat - 1] = type;
    deals.emplace(types[0], types[1]);
  }
  EXPECT_GT(deals.size(), 4u);
}

TEST(MercadoEvents, PrivilegeDrawsAreHiddenFromOthers) {
  auto state = NewMercado(2);
  Data& data = state->mutable_data();
  Display(data, 0, kCloth);
  ReadyToScore(data, 0, 0, {kGold, kGold, kTurquoise, kTurquoise});
  EventLog log;
  ASSERT_TRUE(state->Apply(ScoreMove(0), &log).ok());
  int owner = 0, redacted = 0;
  for (Seat seat = 0; seat < 2; ++seat) {
    for (const v1::Event& event : log.ForSeat(seat)) {
      v1::MercadoEvent detail;
      ASSERT_TRUE(event.detail().UnpackTo(&detail));
      if (!detail.has_privilege_drawn()) continue;
      (detail.privilege_drawn().has_privilege() ? owner : redacted) += 1;
      EXPECT_EQ(detail.privilege_drawn().has_privilege(), seat == 0);
    }
  }
  EXPECT_EQ(owner, 1);
  EXPECT_EQ(redacted, 1);
}

TEST(MercadoOptions, BoardSideAndStartSpace) {
  auto b = NewMercado(2, {{"board_side", "B"}, {"start_space", "29"}});
  EXPECT_EQ(b->data().side, 1);
  EXPECT_EQ(b->data().start_space, 29);
  EXPECT_FALSE(MercadoGame().NewGame(2, 1, {{"start_space", "30"}}).ok());
  EXPECT_FALSE(MercadoGame().NewGame(5, 1, {}).ok());
  // Start space 29: progress 8 stands on space 7 (+3 on side B).
  Data& data = b->mutable_data();
  Display(data, 2, kShoe);
  SetTrack(data, {{1, 0}, {0, 5}});
  ReadyToScore(data, 0, 2, {kTurquoise, kTurquoise});
  Play(*b, ScoreMove(2));
  EXPECT_EQ(b->data().seats[0].progress, 11);
}

TEST(MercadoWire, DecodingErrorsNameTheSeatAndThePart) {
  auto state = NewMercado(3);
  const absl::Status status = testing::DecodeChanged<v1::MercadoState>(
      *state, [](v1::MercadoState& proto) { proto.mutable_table()->mutable_seats(1)->mutable_edges(3)->set_gold(99); },
      /*versions_back=*/1);
  EXPECT_THAT(std::string(status.message()), HasSubstr("seat 1's edge at position 3 holds 99 "));
  // Format 2: drawn, supply, then 60 bytes per seat (bag, person tile, 8 edges of 6 colours).
  const absl::Status in_bytes = testing::DecodeChanged<v1::MercadoState>(*state, [](v1::MercadoState& proto) {
    (*proto.mutable_coins())[12 + 60 + 12 + 3 * 6] = 99;
  });
  EXPECT_THAT(std::string(in_bytes.message()), HasSubstr("seat 1's edge at position 3 holds 99 gold"));
}

// States and sealed tokens made before format 2 carry the coins and held privileges as
// messages: the engine still reads them, into the same state, at every step of random games.
TEST(MercadoWire, ReadsFormatOneIntoTheSameState) {
  for (int players = 2; players <= kMaxPlayers; ++players) {
    auto state = NewMercado(players, {{"board_side", "B"}}, 29);
    testing::PlayRandomly(*state, static_cast<uint64_t>(players), [players](const State& now) {
      const auto old_form = testing::ExpectEarlierFormatReadsBack<v1::MercadoState>(now, 1);
      EXPECT_EQ(old_form.privileges_size(), players);
      EXPECT_EQ(old_form.table().seats(0).edges_size(), kPositions);
      EXPECT_TRUE(old_form.coins().empty());
      EXPECT_TRUE(old_form.held_privileges().empty());
      // Format 2 is a little longer (zero counts take a byte) but holds no coin messages.
      v1::GameState current;
      now.Serialize(&current);
      v1::MercadoState new_form;
      ASSERT_TRUE(current.state().UnpackTo(&new_form));
      EXPECT_EQ(new_form.coins().size(), 12u + 60u * players);
      EXPECT_EQ(new_form.held_privileges().size(), 8u * players);
      EXPECT_FALSE(new_form.table().has_drawn() || new_form.table().seats(0).has_bag());
      EXPECT_EQ(new_form.privileges_size() + new_form.table().seats(players - 1).edges_size(), 0);
    });
  }
}

// Format 2's bytes: both forms at once, wrong lengths and counts out of range are refused.
// The state is written field by field (MercadoState::WriteFormat2): exactly protobuf's bytes,
// with discards, privileges gone and a tile being scored along the way.
TEST(MercadoWire, StateIsProtobufsOwnBytes) {
  int with_discards = 0, privileges_gone = 0, scoring = 0;
  for (int players = 2; players <= kMaxPlayers; ++players) {
    auto state = NewMercado(players, {}, 60 + players);
    testing::PlayRandomly(*state, 7, [&](const State& at) {
      const auto [bytes, parsed] = testing::Written<v1::MercadoState>(at);
      ASSERT_EQ(bytes, parsed.SerializeAsString());
      const Data& data = static_cast<const MercadoState&>(at).data();
      ASSERT_EQ(parsed.table().seats_size(), players);
      EXPECT_EQ(parsed.table().scoring_position(), data.scoring_position);
      with_discards += parsed.table().item_discards_size() > 0;
      privileges_gone += parsed.table().privileges_gone_size() > 0;
      scoring += data.scoring_position >= 0;
    });
  }
  EXPECT_GT(with_discards, 0);
  EXPECT_GT(privileges_gone, 0);
  EXPECT_GT(scoring, 0);
}

// The view is written field by field (MercadoState::PackView): exactly protobuf's bytes for
// every viewer, the spectator included, at every table size and step, the table's coins
// included; the viewer's own privileges to it alone.
TEST(MercadoViews, ViewsAreProtobufsOwnBytes) {
  int privileges_shown = 0, coins_drawn = 0;
  for (int players = 2; players <= kMaxPlayers; ++players) {
    auto state = NewMercado(players, {}, 70 + players);
    testing::PlayRandomly(*state, 9, [&](const State& at) {
      const Data& data = static_cast<const MercadoState&>(at).data();
      for (Seat viewer = kNoSeat; viewer < data.players; ++viewer) {
        const auto [bytes, shown] = testing::Observed<v1::MercadoView>(at, viewer);
        ASSERT_EQ(bytes, shown.SerializeAsString()) << "viewer " << viewer;
        ASSERT_EQ(shown.table().seats_size(), players);
        EXPECT_EQ(shown.own_privileges_size(), viewer == kNoSeat ? 0 : PrivilegeCount(data.seats[viewer].privileges));
        privileges_shown += shown.own_privileges_size() > 0;
        coins_drawn += shown.table().has_drawn() && shown.table().drawn().ByteSizeLong() > 0;
      }
    });
  }
  EXPECT_GT(privileges_shown, 0);
  EXPECT_GT(coins_drawn, 0);
}

TEST(MercadoWire, RefusesMixedFormsAndBadBytes) {
  auto state = NewMercado(3, {}, 13);
  const auto refusal = testing::RefusalOfChange<v1::MercadoState>(*state);
  EXPECT_EQ(refusal([](v1::MercadoState&) {}), "");
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { proto.mutable_table()->mutable_drawn(); }),
              HasSubstr("the table's coins are listed both as messages (format 1) and as bytes (format 2)"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { proto.mutable_table()->mutable_supply(); }),
              HasSubstr("the table's coins are listed both"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { proto.mutable_table()->mutable_seats(2)->mutable_bag(); }),
              HasSubstr("seat 2's coins are listed both as messages (format 1) and as bytes (format 2)"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { proto.mutable_table()->mutable_seats(1)->add_edges(); }),
              HasSubstr("seat 1's coins are listed both"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { proto.add_privileges(); }),
              HasSubstr("the held privileges are listed both as messages (format 1) and as bytes (format 2)"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { proto.mutable_coins()->pop_back(); }),
              HasSubstr("the coins take 191 bytes; 3 players need 192"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { proto.mutable_held_privileges()->push_back(0); }),
              HasSubstr("the held privileges take 25 bytes; 3 players need 24"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { (*proto.mutable_coins())[6 + 5] = 99; }),
              HasSubstr("the supply holds 99 black coins, too many"));
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { (*proto.mutable_held_privileges())[8 + 3] = 99; }),
              HasSubstr("seat 1 holds 99 privileges of type 3"));
  // In range but not what the table says: the cross-checks of format 1 still apply.
  EXPECT_THAT(refusal([](v1::MercadoState& proto) { ++(*proto.mutable_held_privileges())[0]; }),
              HasSubstr("privileges, but the table says"));
}

}  // namespace
}  // namespace gavel::mercado
