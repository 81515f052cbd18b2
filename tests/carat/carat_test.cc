// Carat rules: the test vectors of docs/rules/carat.md §11, validation, views, events,
// options and features.
#include "engine/carat/carat.h"

#include <bit>
#include <set>

#include "gavel/v1/carat.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/property_suite.h"
#include "tests/support/decode_changed.h"
#include "tests/support/earlier_formats.h"
#include "tests/support/observed_view.h"
#include "tests/support/random_play.h"

namespace gavel::carat {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

GAVEL_PROPERTY_SUITE(Carat, CaratGame());

enum TileTypeName { A, B, C, D, E, F };

constexpr int Space(int row, int column) { return row * kSide + column; }
constexpr int Chip(int row, int column) { return row * kChipSide + column; }

std::unique_ptr<CaratState> NewCarat(int players, const OptionMap& options = {}, uint64_t seed = 7,
                                     EventSink* events = nullptr) {
  auto state = CaratGame().NewGame(players, seed, options, events);
  EXPECT_TRUE(state.ok()) << state.status();
  return std::unique_ptr<CaratState>(static_cast<CaratState*>(state->release()));
}

struct Laid {
  int row, column, tile, rotation;
};

// Puts `value` on `chip` by swapping it with another chip of that value (keeps the set).
void SetChip(Data& data, int chip, int value) {
  for (int other = 0; other < kChips; ++other) {
    if (data.chip_value[other] != value) continue;
    std::swap(data.chip_value[other], data.chip_value[chip]);
    return;
  }
}

// Rebuilds `data` around the given board: the seat to move holds `mover_holds`, the other
// tiles fill the hands and the supply, and the scores are those the board implies.
void Arrange(Data& data, const std::vector<Laid>& board, const std::vector<int>& mover_holds) {
  data.tile.fill(-1);
  data.rotation.fill(0);
  data.occupied = 0;
  uint64_t free = kAllTiles;
  for (const Laid& laid : board) {
    const int space = Space(laid.row, laid.column);
    data.tile[space] = static_cast<int8_t>(laid.tile);
    data.rotation[space] = static_cast<uint8_t>(laid.rotation);
    data.occupied |= uint64_t{1} << space;
    free &= ~(uint64_t{1} << laid.tile);
  }
  const int placed = static_cast<int>(board.size());
  data.hands = {};
  for (int tile : mover_holds) {
    data.hands[placed % data.players] |= uint64_t{1} << tile;
    free &= ~(uint64_t{1} << tile);
  }
  for (Seat seat = 0; seat < data.players; ++seat) {
    while (std::popcount(data.hands[seat]) < ExpectedHandCount(data, placed, seat)) {
      data.hands[seat] |= free & (~free + 1);
      free &= free - 1;
    }
  }
  data.supply = free;
  ScoringImpliedByBoard(data, &data.scored, &data.scores);
  ASSERT_TRUE(Validate(data).ok()) << Validate(data);
}

std::vector<v1::CaratEvent::ChipScored> ScoredChips(const EventLog& log) {
  std::vector<v1::CaratEvent::ChipScored> chips;
  for (const v1::Event& event : log.ForSeat(0)) {
    v1::CaratEvent detail;
    EXPECT_TRUE(event.detail().UnpackTo(&detail));
    if (detail.has_chip_scored()) chips.push_back(detail.chip_scored());
  }
  return chips;
}

ChipResult Judge(std::vector<Diamond> diamonds, int chip_value) {
  return JudgeChip(diamonds, chip_value);
}

// A tile of `value` not in `used` whose `corner` shows `colour` after some rotation.
std::pair<int, int> TileShowing(int value, int corner, int colour, std::set<int>& used) {
  for (int type = 0; type < kTypes; ++type) {
    const int tile = TileId(type, value);
    if (used.count(tile)) continue;
    for (int rotation = 0; rotation < kRotations; ++rotation) {
      if (CornerColour(type, rotation, corner) != colour) continue;
      used.insert(tile);
      return {tile, rotation};
    }
  }
  ADD_FAILURE() << "no tile shows colour " << colour << " with value " << value;
  return {0, 0};
}

// The rulebook examples at chip K(3,3) worth 3 (rules §11, vectors 1-6): the diamonds are
// SE of T(2,2), SW of T(2,3), NE of T(3,2) and NW of T(3,3). Checks the pure judgement
// and then the same chip on a 4-player board, where colour c belongs to seat c.
void CheckRulebookExample(std::vector<Diamond> diamonds, std::array<int, kColours> totals,
                          int winner, int points) {
  const ChipResult result = Judge(diamonds, 3);
  EXPECT_EQ(result.totals, totals);
  EXPECT_EQ(result.winner, winner);
  EXPECT_EQ(result.winner == kNoColour ? 0 : result.points, points);

  auto state = NewCarat(4);
  Data& data = state->mutable_data();
  SetChip(data, Chip(3, 3), 3);
  std::set<int> used;
  const std::array<std::pair<int, int>, 4> spaces = {{{2, 2}, {2, 3}, {3, 2}, {3, 3}}};
  const std::array<int, 4> corners = {kSouthEast, kSouthWest, kNorthEast, kNorthWest};
  std::vector<Laid> board;
  for (int i = 0; i < 4; ++i) {
    auto [tile, rotation] = TileShowing(diamonds[i].value, corners[i], diamonds[i].colour, used);
    board.push_back({spaces[i].first, spaces[i].second, tile, rotation});
  }
  const Laid last = board.back();
  board.pop_back();
  Arrange(data, board, {last.tile});
  const auto before = data.scores;
  EventLog log;
  ASSERT_TRUE(state->Apply(PlaceMove(last.tile, Space(3, 3), last.rotation), &log).ok());
  const auto chips = ScoredChips(log);
  ASSERT_EQ(chips.size(), 1u);
  EXPECT_EQ(chips[0].row(), 3u);
  EXPECT_EQ(chips[0].column(), 3u);
  EXPECT_THAT(chips[0].totals(), ElementsAre(totals[0], totals[1], totals[2], totals[3]));
  EXPECT_EQ(chips[0].winner(), winner == kNoColour ? 0 : winner + 1);
  EXPECT_EQ(chips[0].seat(), winner == kNoColour ? kNoSeat : winner);
  for (Seat seat = 0; seat < 4; ++seat)
    EXPECT_EQ(state->data().scores[seat] - before[seat], seat == winner ? points : 0) << seat;
}

TEST(CaratRulebookExamples, Vector1AllFourColoursRedWinsTwelve) {
  CheckRulebookExample({{kBlue, 3}, {kYellow, 2}, {kRed, 5}, {kGreen, 1}}, {5, 2, 3, 1}, kRed, 12);
}

TEST(CaratRulebookExamples, Vector2BlueSumBeatsRedSix) {
  CheckRulebookExample({{kBlue, 3}, {kBlue, 2}, {kRed, 5}, {kBlue, 1}}, {5, 0, 6, 0}, kBlue, 6);
}

TEST(CaratRulebookExamples, Vector3RedAndBlueCancelGreenWinsNine) {
  CheckRulebookExample({{kBlue, 3}, {kBlue, 2}, {kRed, 5}, {kGreen, 1}}, {5, 0, 5, 1}, kGreen, 9);
}

TEST(CaratRulebookExamples, Vector4ThreeWayTieYellowWinsAtZero) {
  CheckRulebookExample({{kBlue, 3}, {kBlue, 2}, {kRed, 5}, {kGreen, 5}}, {5, 0, 5, 5}, kYellow, 9);
}

TEST(CaratRulebookExamples, Vector5TwoPlusTwoNobody) {
  CheckRulebookExample({{kBlue, 3}, {kYellow, 3}, {kRed, 5}, {kGreen, 5}}, {5, 3, 3, 5}, kNoColour,
                       0);
}

TEST(CaratRulebookExamples, Vector6TwoPlusTwoAtZeroNobody) {
  CheckRulebookExample({{kRed, 3}, {kGreen, 3}, {kRed, 5}, {kGreen, 5}}, {8, 0, 0, 8}, kNoColour,
                       0);
}

TEST(CaratRules, Vector7FullPlacementOfVector1) {
  auto rotations = [](int type, int rotation) {
    std::string letters;
    for (int corner = 0; corner < kCorners; ++corner)
      letters += "RYBG"[CornerColour(type, rotation, corner)];
    return letters;
  };
  EXPECT_EQ(rotations(D, 1), "GRBY");
  EXPECT_EQ(rotations(A, 0), "RGBY");
  EXPECT_EQ(rotations(A, 3), "GBYR");
  auto state = NewCarat(4);
  Data& data = state->mutable_data();
  SetChip(data, Chip(3, 3), 3);
  Arrange(data, {{2, 2, TileId(D, 3), 1}, {2, 3, TileId(A, 2), 0}, {3, 2, TileId(D, 5), 1}},
          {TileId(A, 1)});
  EventLog log;
  ASSERT_EQ(state->to_move(), 3);
  ASSERT_TRUE(state->Apply(PlaceMove(TileId(A, 1), Space(3, 3), 3), &log).ok());
  const auto chips = ScoredChips(log);
  ASSERT_EQ(chips.size(), 1u);
  EXPECT_THAT(chips[0].totals(), ElementsAre(5, 2, 3, 1));
  EXPECT_EQ(chips[0].winner(), v1::CARAT_COLOUR_RED);
  EXPECT_EQ(chips[0].multiplier(), 4u);
  EXPECT_EQ(chips[0].points(), 12u);
  EXPECT_EQ(chips[0].seat(), 0);
  EXPECT_THAT(state->data().scores, ElementsAre(12, 0, 0, 0));
  EXPECT_TRUE((state->data().scored >> Chip(3, 3)) & 1);
}

TEST(CaratRules, Vector8RotationsOfTypeA) {
  const std::array<std::string, 4> expected = {"RGBY", "YRGB", "BYRG", "GBYR"};
  for (int rotation = 0; rotation < kRotations; ++rotation) {
    std::string letters;
    for (int corner = 0; corner < kCorners; ++corner)
      letters += "RYBG"[CornerColour(A, rotation, corner)];
    EXPECT_EQ(letters, expected[rotation]) << rotation;
  }
  // The four rotations of every type differ, and the six types differ up to rotation.
  std::set<std::string> orders;
  for (int type = 0; type < kTypes; ++type) {
    std::set<std::string> own;
    for (int rotation = 0; rotation < kRotations; ++rotation) {
      std::string letters;
      for (int corner = 0; corner < kCorners; ++corner)
        letters += "RYBG"[CornerColour(type, rotation, corner)];
      own.insert(letters);
      orders.insert(letters);
    }
    EXPECT_EQ(own.size(), 4u) << type;
  }
  EXPECT_EQ(orders.size(), 24u);
}

TEST(CaratRules, Vector9SmallChips) {
  for (int value = 1; value <= kMaxChipValue; ++value) {
    ChipResult corner = Judge({{kYellow, 4}}, value);
    EXPECT_EQ(corner.winner, kYellow);
    EXPECT_EQ(corner.points, value);
    EXPECT_EQ(Judge({{kRed, 4}, {kBlue, 4}}, value).winner, kNoColour);
    ChipResult same = Judge({{kRed, 4}, {kRed, 2}}, value);
    EXPECT_EQ(same.winner, kRed);
    EXPECT_EQ(same.points, value);
    ChipResult two = Judge({{kRed, 4}, {kBlue, 2}}, value);
    EXPECT_EQ(two.winner, kRed);
    EXPECT_EQ(two.points, 2 * value);
  }
}

TEST(CaratRules, Vector10PlacementLegality) {
  int inner = 0;
  for (int space = 0; space < kSpaces; ++space) inner += IsInnerSpace(space);
  EXPECT_EQ(inner, 16);
  EXPECT_FALSE(IsInnerSpace(Space(0, 3)));
  EXPECT_TRUE(IsInnerSpace(Space(1, 1)));
  auto state = NewCarat(2);
  const int tile = std::countr_zero(state->data().hands[0]);
  for (int rotation = 0; rotation < kRotations; ++rotation) {
    EXPECT_FALSE(state->IsLegal(PlaceMove(tile, Space(0, 3), rotation)));
    EXPECT_TRUE(state->IsLegal(PlaceMove(tile, Space(1, 1), rotation)));
  }
  EXPECT_FALSE(state->IsLegal(PlaceMove((tile + 1) % kTiles, Space(1, 1), 0))) << "not in hand";
  std::vector<Move> legal;
  state->LegalMoves(legal);
  EXPECT_EQ(legal.size(), 16u * 4u);  // the inner spaces only
  ASSERT_TRUE(state->Apply(PlaceMove(tile, Space(1, 1), 0)).ok());
  const int next = std::countr_zero(state->data().hands[1]);
  EXPECT_TRUE(state->IsLegal(PlaceMove(next, Space(1, 2), 0)));
  EXPECT_TRUE(state->IsLegal(PlaceMove(next, Space(0, 1), 2)));
  EXPECT_FALSE(state->IsLegal(PlaceMove(next, Space(2, 2), 0))) << "diagonal";
  EXPECT_FALSE(state->IsLegal(PlaceMove(next, Space(3, 3), 0)));
  EXPECT_FALSE(state->IsLegal(PlaceMove(next, Space(1, 1), 0))) << "occupied";
  EXPECT_EQ(state->Apply(PlaceMove(next, Space(2, 2), 0)).code(),
            absl::StatusCode::kInvalidArgument);
  state->LegalMoves(legal);
  EXPECT_EQ(legal.size(), 4u * 4u);  // T(0,1), T(1,0), T(1,2), T(2,1)
}

// Vector 11 on a 4-player board (colour c belongs to seat c).
TEST(CaratRules, Vector11OnePlacementCompletesFourChips) {
  auto state = NewCarat(4);
  Data& data = state->mutable_data();
  SetChip(data, Chip(0, 0), 2);
  SetChip(data, Chip(0, 1), 5);
  SetChip(data, Chip(1, 0), 1);
  SetChip(data, Chip(1, 1), 4);
  Arrange(data, {{0, 1, TileId(B, 3), 0}, {1, 0, TileId(C, 6), 0}, {1, 1, TileId(E, 2), 0}},
          {TileId(A, 5)});
  EventLog log;
  ASSERT_TRUE(state->Apply(PlaceMove(TileId(A, 5), Space(0, 0), 2), &log).ok());
  const auto chips = ScoredChips(log);
  ASSERT_EQ(chips.size(), 4u);
  struct Expected {
    int row, column, winner, multiplier, points;
    std::array<int, 4> totals;
  };
  const std::vector<Expected> expected = {{0, 0, kBlue, 1, 2, {0, 0, 5, 0}},
                                          {0, 1, kYellow, 2, 10, {3, 5, 0, 0}},
                                          {1, 1, kBlue, 2, 8, {7, 0, 9, 0}},
                                          {1, 0, kRed, 2, 2, {6, 0, 0, 5}}};
  for (const Expected& want : expected) {
    bool found = false;
    for (const auto& chip : chips) {
      if (static_cast<int>(chip.row()) != want.row ||
          static_cast<int>(chip.column()) != want.column)
        continue;
      found = true;
      EXPECT_EQ(chip.winner(), want.winner + 1);
      EXPECT_EQ(static_cast<int>(chip.multiplier()), want.multiplier);
      EXPECT_EQ(static_cast<int>(chip.points()), want.points);
      EXPECT_THAT(chip.totals(),
                  ElementsAre(want.totals[0], want.totals[1], want.totals[2], want.totals[3]));
    }
    EXPECT_TRUE(found) << want.row << "," << want.column;
  }
  EXPECT_THAT(state->data().scores, ElementsAre(2, 10, 10, 0));
}

// The same placement with two colours per seat: seat 0 owns red and yellow, seat 1 blue and
// green; and with two players and one colour each, blue is a non-player colour.
TEST(CaratRules, Vector11WithTwoPlayers) {
  for (const char* colours : {"1", "2"}) {
    auto state = NewCarat(2, {{"colours_per_player", colours}});
    Data& data = state->mutable_data();
    SetChip(data, Chip(0, 0), 2);
    SetChip(data, Chip(0, 1), 5);
    SetChip(data, Chip(1, 0), 1);
    SetChip(data, Chip(1, 1), 4);
    Arrange(data, {{0, 1, TileId(B, 3), 0}, {1, 0, TileId(C, 6), 0}, {1, 1, TileId(E, 2), 0}},
            {TileId(A, 5)});
    ASSERT_TRUE(state->Apply(PlaceMove(TileId(A, 5), Space(0, 0), 2)).ok());
    if (colours == std::string("2")) {
      EXPECT_THAT(state->data().scores, ElementsAre(12, 10, 0, 0));
    } else {
      EXPECT_THAT(state->data().scores, ElementsAre(2, 10, 0, 0));  // blue's 10 go to nobody
    }
  }
}

TEST(CaratRules, TwoColoursOfOneSeatCancelEachOther) {
  auto state = NewCarat(2, {{"colours_per_player", "2"}});
  const ChipResult result = Judge({{kRed, 4}, {kYellow, 4}, {kBlue, 2}, {kGreen, 1}}, 3);
  EXPECT_EQ(result.winner, kBlue);
  EXPECT_EQ(ColourOwner(state->data(), kBlue), 1);
  EXPECT_EQ(ColourOwner(state->data(), kYellow), 0);
  EXPECT_EQ(ColourOwner(state->data(), kGreen), 1);
  auto three = NewCarat(3);
  EXPECT_EQ(ColourOwner(three->data(), kBlue), 2);
  EXPECT_EQ(ColourOwner(three->data(), kGreen), kNoSeat);
}

TEST(CaratRules, Vector12TilesPerSeat) {
  for (int players = 2; players <= 4; ++players) {
    for (const char* hand : {"1", "3"}) {
      auto state = NewCarat(players, {{"hand_size", hand}}, 40 + players);
      std::array<int, kMaxPlayers> placed{};
      std::vector<Move> legal;
      Rng rng(players);
      for (int turn = 0; !state->finished(); ++turn) {
        ASSERT_EQ(state->to_move(), turn % players) << "strict rotation";
        ++placed[state->to_move()];
        state->LegalMoves(legal);
        ASSERT_TRUE(state->Apply(legal[rng.Below(legal.size())]).ok());
      }
      for (Seat seat = 0; seat < players; ++seat) EXPECT_EQ(placed[seat], kTiles / players);
    }
  }
}

// Every chip is scored exactly once, the points in the events are the final scores, and
// every intermediate state keeps tile conservation and consistent scored flags.
TEST(CaratRules, EveryChipScoredExactlyOnceAndTilesConserved) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const int players = 2 + static_cast<int>(seed % 3);
    EventLog log;
    auto state = NewCarat(players, {{"hand_size", seed % 2 ? "3" : "1"}}, seed, &log);
    std::vector<Move> legal;
    Rng rng(seed);
    while (!state->finished()) {
      state->LegalMoves(legal);
      ASSERT_TRUE(state->Apply(legal[rng.Below(legal.size())], &log).ok());
      ASSERT_TRUE(Validate(state->data()).ok()) << Validate(state->data());
    }
    std::set<int> chips;
    std::array<int, kMaxPlayers> points{};
    for (const auto& chip : ScoredChips(log)) {
      EXPECT_TRUE(chips.insert(Chip(chip.row(), chip.column())).second) << "scored twice";
      if (chip.seat() >= 0) points[chip.seat()] += chip.points();
    }
    EXPECT_EQ(chips.size(), static_cast<size_t>(kChips));
    EXPECT_EQ(state->data().scored, (uint64_t{1} << kChips) - 1);
    for (Seat seat = 0; seat < players; ++seat) EXPECT_EQ(points[seat], state->data().scores[seat]);
    EXPECT_EQ(state->data().supply, 0u);
    for (uint64_t hand : state->data().hands) EXPECT_EQ(hand, 0u);
    const std::vector<v1::Event> events = log.ForSeat(0);
    v1::CaratEvent last;
    ASSERT_TRUE(events.back().detail().UnpackTo(&last));
    ASSERT_TRUE(last.has_game_over());
    const Outcome outcome = state->outcome();
    for (Seat seat = 0; seat < players; ++seat) {
      EXPECT_EQ(last.game_over().scores(seat), state->data().scores[seat]);
      EXPECT_EQ(last.game_over().ranks(seat), outcome.ranks[seat]);
    }
  }
}

// Strict rotation never meets an empty hand in a valid state; the turn order still skips
// such a seat rather than hand the turn to a seat that cannot move.
TEST(CaratRules, TurnSkipsASeatWithAnEmptyHand) {
  auto state = NewCarat(3);
  std::vector<Move> legal;
  state->LegalMoves(legal);
  ASSERT_TRUE(state->Apply(legal.front()).ok());
  ASSERT_EQ(state->to_move(), 1);
  state->mutable_data().supply |= state->data().hands[1];
  state->mutable_data().hands[1] = 0;
  EXPECT_EQ(state->to_move(), 2);
  state->LegalMoves(legal);
  EXPECT_FALSE(legal.empty());
  EXPECT_FALSE(Validate(state->data()).ok());  // such a state is never accepted from outside
}

TEST(CaratRules, TiedTopScoresShareTheWin) {
  auto state = NewCarat(3);
  std::vector<Move> legal;
  while (!state->finished()) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal.front()).ok());
  }
  state->mutable_data().scores = {40, 40, 25, 0};
  const Outcome outcome = state->outcome();
  EXPECT_THAT(outcome.scores, ElementsAre(40, 40, 25));
  EXPECT_THAT(outcome.ranks, ElementsAre(1, 1, 3));
  EXPECT_THAT(NewCarat(3)->outcome().ranks, ElementsAre(0, 0, 0));
}

TEST(CaratSetup, ChipsHandsAndSupply) {
  for (const char* hand : {"1", "3"}) {
    auto state = NewCarat(4, {{"hand_size", hand}}, 3);
    const int size = hand == std::string("3") ? 3 : 1;
    for (Seat seat = 0; seat < 4; ++seat) EXPECT_EQ(std::popcount(state->data().hands[seat]), size);
    EXPECT_EQ(std::popcount(state->data().supply), kTiles - 4 * size);
    std::array<int, kMaxChipValue + 1> counts{};
    for (uint8_t value : state->data().chip_value) ++counts[value];
    EXPECT_THAT(counts, ElementsAre(0, 10, 10, 10, 10, 9));
    EXPECT_EQ(state->to_move(), 0);
  }
  EXPECT_NE(NewCarat(2, {}, 1)->data().chip_value, NewCarat(2, {}, 2)->data().chip_value);
}

TEST(CaratOptions, ListedWithDefaultsAndCheckedAgainstThePlayerCount) {
  const GameInfo& info = CaratGame().info();
  EXPECT_EQ(info.name, "carat");
  EXPECT_EQ(info.min_players, 2);
  EXPECT_EQ(info.max_players, 4);
  ASSERT_EQ(info.options.size(), 2u);
  EXPECT_EQ(info.options[0].name, "colours_per_player");
  EXPECT_THAT(info.options[0].choices, ElementsAre("1", "2"));
  EXPECT_EQ(info.options[0].default_value, "1");
  EXPECT_EQ(info.options[1].name, "hand_size");
  EXPECT_THAT(info.options[1].choices, ElementsAre("1", "3"));
  EXPECT_EQ(info.options[1].default_value, "1");
  EXPECT_TRUE(CaratGame().NewGame(2, 1, {{"colours_per_player", "2"}}).ok());
  for (int players : {3, 4}) {
    auto refused = CaratGame().NewGame(players, 1, {{"colours_per_player", "2"}});
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(refused.status().message()), HasSubstr("carat: colours_per_player=2"));
  }
  EXPECT_FALSE(CaratGame().NewGame(2, 1, {{"hand_size", "2"}}).ok());
  EXPECT_FALSE(CaratGame().NewGame(5, 1, {}).ok());
}

TEST(CaratValidation, RejectsBrokenStatesWithAClearMessage) {
  auto state = NewCarat(3, {{"hand_size", "3"}});
  std::vector<Move> legal;
  for (int i = 0; i < 5; ++i) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal.back()).ok());
  }
  const Data good = state->data();
  ASSERT_TRUE(Validate(good).ok());
  auto message = [](const Data& data) { return std::string(Validate(data).message()); };

  Data broken = good;
  broken.hands[1] |= broken.hands[0];  // a tile in two hands
  EXPECT_THAT(message(broken), HasSubstr("counted twice"));
  broken = good;
  broken.supply &= broken.supply - 1;  // a tile vanished
  EXPECT_THAT(message(broken), HasSubstr("is missing"));
  broken = good;
  const uint64_t moved = broken.hands[1] & (~broken.hands[1] + 1);
  broken.hands[1] &= ~moved;
  broken.hands[2] |= moved;  // conservation holds, but the hand sizes do not
  EXPECT_THAT(message(broken), HasSubstr("seat 1 must hold 3 tiles, not 2"));
  broken = good;
  broken.scored ^= 1;  // the corner chip K(0,0) flips
  EXPECT_THAT(message(broken), HasSubstr("K(0,0)"));
  broken = good;
  broken.scores[1] += 3;
  EXPECT_THAT(message(broken), HasSubstr("seat 1's score"));
  broken = good;
  broken.chip_value[0] = broken.chip_value[0] == 5 ? 4 : 5;
  EXPECT_THAT(message(broken), HasSubstr("chips of value"));
  broken = good;
  broken.colours_per_player = 2;
  EXPECT_THAT(message(broken), HasSubstr("colours_per_player=2"));

  // A board whose tiles are not connected, and one laid only on border spaces.
  auto fresh = NewCarat(2);
  Data board = fresh->data();
  Arrange(board, {{1, 1, TileId(A, 1), 0}, {1, 2, TileId(A, 2), 0}}, {});
  Data apart = board;
  std::swap(apart.tile[Space(1, 2)], apart.tile[Space(3, 3)]);
  apart.occupied = (uint64_t{1} << Space(1, 1)) | (uint64_t{1} << Space(3, 3));
  EXPECT_THAT(message(apart), HasSubstr("not orthogonally connected"));
  Data border = board;
  std::swap(border.tile[Space(1, 1)], border.tile[Space(0, 1)]);
  std::swap(border.tile[Space(1, 2)], border.tile[Space(0, 2)]);
  border.occupied = (uint64_t{1} << Space(0, 1)) | (uint64_t{1} << Space(0, 2));
  EXPECT_THAT(message(border), HasSubstr("inner space"));
}

// In format 1 (space and tile messages), which the engine still reads.
TEST(CaratValidation, DeserializeRefusesOutOfRangeFields) {
  auto state = NewCarat(2);
  auto refused = [&](const std::function<void(v1::CaratState&)>& change) {
    const absl::Status status = testing::DecodeChanged(*state, change, /*versions_back=*/2);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    return std::string(status.message());
  };
  EXPECT_THAT(refused([](v1::CaratState& bad) { bad.mutable_seats(0)->mutable_hand(0)->set_value(7); }),
              HasSubstr("does not exist"));
  EXPECT_THAT(refused([](v1::CaratState& bad) { bad.set_players(9); }), HasSubstr("players must be 2 to 4"));
  EXPECT_THAT(refused([](v1::CaratState& bad) { bad.mutable_board(7)->set_rotation(2); }),
              HasSubstr("empty but has a rotation"));
  EXPECT_THAT(refused([](v1::CaratState& bad) { bad.set_chips(3, 6); }), HasSubstr("chips are worth 1 to 5"));
  EXPECT_THAT(refused([](v1::CaratState& bad) { bad.mutable_board()->RemoveLast(); }), HasSubstr("36"));
  EXPECT_THAT(refused([](v1::CaratState& bad) { *bad.add_supply() = bad.supply(0); }), HasSubstr("twice"));
  EXPECT_THAT(refused([](v1::CaratState& bad) { bad.mutable_seats(1)->mutable_hand(0)->set_value(9); }),
              HasSubstr("seat 1's hand"));
}

// Structured damage to mid-game states: every accepted state plays to the end, with a
// legal move for every mover and every invariant kept. (Damaged in format 1, whose messages
// make the damage easy to write; every format decodes into the same checks.)
TEST(CaratValidation, DamagedStatesAreRefusedOrPlayable) {
  int accepted = 0, refused = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    auto state =
        NewCarat(2 + static_cast<int>(seed % 3), {{"hand_size", seed % 2 ? "1" : "3"}}, seed);
    Rng rng(seed);
    std::vector<Move> legal;
    for (int steps = static_cast<int>(rng.Below(30)); steps > 0 && !state->finished(); --steps) {
      state->LegalMoves(legal);
      ASSERT_TRUE(state->Apply(legal[rng.Below(legal.size())]).ok());
    }
    v1::GameState wire;
    ASSERT_TRUE(state->SerializeEarlierFormat(2, &wire));
    v1::CaratState proto;
    ASSERT_TRUE(wire.state().UnpackTo(&proto));
    const int space = static_cast<int>(rng.Below(kSpaces));
    switch (rng.Below(7)) {
      case 0:  // a board tile and a supply tile trade places
        if (proto.board(space).has_tile() && proto.supply_size() > 0)
          std::swap(*proto.mutable_board(space)->mutable_tile(), *proto.mutable_supply(0));
        break;
      case 1:  // a tile appears on an empty space
        if (!proto.board(space).has_tile() && proto.supply_size() > 0) {
          *proto.mutable_board(space)->mutable_tile() = proto.supply(0);
          proto.mutable_supply()->DeleteSubrange(0, 1);
        }
        break;
      case 2:
        proto.mutable_board(space)->set_rotation(rng.Below(5));
        break;
      case 3:
        proto.set_chip_scored(static_cast<int>(rng.Below(kChips)), rng.Below(2) == 1);
        break;
      case 4:
        proto.mutable_seats(0)->set_score(static_cast<int32_t>(rng.Below(20)) - 2);
        break;
      case 5:  // a hand tile goes back to the supply
        if (proto.seats(1).hand_size() > 0) {
          *proto.add_supply() = proto.seats(1).hand(0);
          proto.mutable_seats(1)->mutable_hand()->DeleteSubrange(0, 1);
        }
        break;
      case 6:
        proto.set_starting_hand_size(rng.Below(4));
        break;
    }
    wire.mutable_state()->PackFrom(proto);
    auto decoded = CaratGame().Deserialize(wire);
    if (!decoded.ok()) {
      EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(decoded.status().message()), HasSubstr("carat: "));
      ++refused;
      continue;
    }
    ++accepted;
    auto& playable = static_cast<CaratState&>(**decoded);
    while (!playable.finished()) {
      playable.LegalMoves(legal);
      ASSERT_FALSE(legal.empty());
      ASSERT_TRUE(playable.Apply(legal[rng.Below(legal.size())]).ok());
      ASSERT_TRUE(Validate(playable.data()).ok()) << Validate(playable.data());
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(accepted, 0);
}

TEST(CaratViews, OwnHandOnlySupplyCountedBoardPublic) {
  auto state = NewCarat(3, {{"hand_size", "3"}}, 21);
  std::vector<Move> legal;
  for (int i = 0; i < 4; ++i) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal[legal.size() / 2]).ok());
  }
  for (Seat viewer = 0; viewer < 3; ++viewer) {
    v1::View view;
    state->Observe(viewer, &view);
    v1::CaratView carat;
    ASSERT_TRUE(view.view().UnpackTo(&carat));
    EXPECT_EQ(carat.supply_count(), static_cast<uint32_t>(kTiles - 9 - 4));
    EXPECT_EQ(carat.to_move(), 4 % 3);
    int laid = 0;
    for (const auto& space : carat.board()) {
      if (!space.has_tile()) continue;
      ++laid;
      EXPECT_EQ(space.corners_size(), 4);
    }
    EXPECT_EQ(laid, 4);
    for (Seat seat = 0; seat < 3; ++seat) {
      EXPECT_EQ(carat.seats(seat).hand_count(), 3u);
      EXPECT_EQ(carat.seats(seat).hand_size(), seat == viewer ? 3 : 0);
      EXPECT_EQ(carat.seats(seat).colours_size(), 1);
    }
  }
}

// A board space in a view lists its corners' colours NW, NE, SE, SW: rulebook vector 7's
// tiles, A at rotation 0 (RGBY) and D at rotation 1 (GRBY).
TEST(CaratViews, CornersRunFromNorthWestClockwise) {
  auto state = NewCarat(4);
  Arrange(state->mutable_data(), {{2, 2, TileId(D, 3), 1}, {2, 3, TileId(A, 2), 0}}, {TileId(A, 1)});
  v1::View view;
  state->Observe(kNoSeat, &view);
  v1::CaratView carat;
  ASSERT_TRUE(view.view().UnpackTo(&carat));
  const auto letters = [&](int space) {
    std::string out;
    for (int colour : carat.board(space).corners()) out += "-RYBG"[colour];
    return out;
  };
  EXPECT_EQ(letters(Space(2, 3)), "RGBY");
  EXPECT_EQ(letters(Space(2, 2)), "GRBY");
}

// The view writes the board, the chips, the seats and the supply's count with MessageWriter
// after protobuf's part, in field order: for every viewer at every step the bytes must be
// exactly protobuf's own for the view, and the chips the state's.
TEST(CaratViews, ViewsAreProtobufsOwnBytes) {
  auto state = NewCarat(4, {}, 31);
  int states_with_scored_chips = 0, hands_shown = 0;
  testing::PlayRandomly(*state, 3, [&](const State& at) {
    const Data& data = static_cast<const CaratState&>(at).data();
    for (Seat viewer = kNoSeat; viewer < data.players; ++viewer) {
      const auto [bytes, shown] = testing::Observed<v1::CaratView>(at, viewer);
      ASSERT_EQ(bytes, shown.SerializeAsString()) << "viewer " << viewer;
      ASSERT_EQ(shown.chips_size(), kChips);
      for (int chip = 0; chip < kChips; ++chip) {
        EXPECT_EQ(shown.chips(chip), data.chip_value[chip]);
        EXPECT_EQ(shown.chip_scored(chip), (data.scored >> chip & 1) != 0);
      }
      if (viewer != kNoSeat) hands_shown += shown.seats(viewer).hand_size() > 0;
    }
    states_with_scored_chips += data.scored != 0;
  });
  EXPECT_GT(states_with_scored_chips, 0) << "no chip was ever scored: a weak test of its flags";
  EXPECT_GT(hands_shown, 0);
}

// The state is written field by field (CaratState::WriteFormat3): exactly protobuf's bytes.
TEST(CaratWire, StateIsProtobufsOwnBytes) {
  for (int players = 2; players <= kMaxPlayers; ++players) {
    auto state = NewCarat(players, {}, 40 + players);
    int empty_supplies = 0;
    testing::PlayRandomly(*state, 5, [&](const State& at) {
      const auto [bytes, parsed] = testing::Written<v1::CaratState>(at);
      ASSERT_EQ(bytes, parsed.SerializeAsString());
      const Data& data = static_cast<const CaratState&>(at).data();
      ASSERT_EQ(parsed.seats_size(), players);
      EXPECT_EQ(parsed.seats(0).score(), data.scores[0]);
      empty_supplies += parsed.supply_tiles().empty();
    });
    EXPECT_GT(empty_supplies, 0) << "the supply never ran out: its field was never left out";
  }
}

TEST(CaratViews, ResampleRedealsOnlyWhatTheViewerCannotSee) {
  auto state = NewCarat(4, {{"hand_size", "3"}}, 5);
  std::vector<Move> legal;
  for (int i = 0; i < 6; ++i) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal[i % legal.size()]).ok());
  }
  const Data& real = state->data();
  const Seat viewer = 1;
  v1::View view;
  state->Observe(viewer, &view);
  std::set<uint64_t> other_hands;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto resampled = CaratGame().Resample(view, seed);
    ASSERT_TRUE(resampled.ok()) << resampled.status();
    const Data& data = static_cast<const CaratState&>(**resampled).data();
    EXPECT_EQ(data.tile, real.tile);
    EXPECT_EQ(data.rotation, real.rotation);
    EXPECT_EQ(data.chip_value, real.chip_value);
    EXPECT_EQ(data.scored, real.scored);
    EXPECT_EQ(data.scores, real.scores);
    EXPECT_EQ(data.hands[viewer], real.hands[viewer]);
    // The other hands and the supply together are exactly the tiles the viewer cannot see.
    EXPECT_EQ(data.hands[0] | data.hands[2] | data.hands[3] | data.supply,
              real.hands[0] | real.hands[2] | real.hands[3] | real.supply);
    other_hands.insert(data.hands[0]);
  }
  EXPECT_GT(other_hands.size(), 10u) << "the other hands are re-dealt at random";

  v1::CaratView carat;
  ASSERT_TRUE(view.view().UnpackTo(&carat));
  auto refused = [&](const v1::CaratView& bad) {
    v1::View wrapped = view;
    wrapped.mutable_view()->PackFrom(bad);
    return CaratGame().Resample(wrapped, 1).status();
  };
  v1::CaratView bad = carat;
  bad.set_supply_count(carat.supply_count() + 1);
  EXPECT_THAT(std::string(refused(bad).message()), HasSubstr("unaccounted"));
  bad = carat;
  *bad.mutable_seats(2)->add_hand() = carat.seats(viewer).hand(0);
  EXPECT_THAT(std::string(refused(bad).message()), HasSubstr("hidden hand"));
  bad = carat;
  bad.set_seat(4);
  EXPECT_THAT(std::string(refused(bad).message()), HasSubstr("not a seat"));
  bad = carat;
  bad.mutable_seats(0)->set_hand_count(2);
  bad.mutable_seats(2)->set_hand_count(3 + 1);
  EXPECT_EQ(refused(bad).code(), absl::StatusCode::kInvalidArgument);
}

TEST(CaratWire, SerializedStatesStaySmall) {
  for (int players = 2; players <= 4; ++players) {
    auto state = NewCarat(players, {{"hand_size", "3"}}, 17);
    std::vector<Move> legal;
    size_t largest = 0;
    while (!state->finished()) {
      largest = std::max(largest, state->Bytes().size());
      state->LegalMoves(legal);
      ASSERT_TRUE(state->Apply(legal.back()).ok());
    }
    largest = std::max(largest, state->Bytes().size());
    EXPECT_LT(largest, 1024u) << players;
  }
}

// States and sealed tokens made before format 3 carry the chips as lists, and those before
// format 2 the board, hands and supply as messages: the engine still reads them, into the
// same state, at every step of random games.
TEST(CaratWire, ReadsFormatsOneAndTwoIntoTheSameState) {
  for (int players = 2; players <= 4; ++players) {
    auto state = NewCarat(players, {{"hand_size", "3"}}, 23);
    testing::PlayRandomly(*state, static_cast<uint64_t>(players), [](const State& now) {
      for (int versions_back = 1; versions_back <= 2; ++versions_back) {
        const auto old_form = testing::ExpectEarlierFormatReadsBack<v1::CaratState>(now, versions_back);
        EXPECT_LT(now.Bytes().size(), now.EarlierFormatBytes(versions_back).size());
        EXPECT_EQ(old_form.chips_size(), kChips);
        EXPECT_TRUE(old_form.chip_values().empty());
        EXPECT_EQ(old_form.board_size(), versions_back == 2 ? kSpaces : 0);
      }
      v1::GameState none;
      EXPECT_FALSE(now.SerializeEarlierFormat(3, &none));
    });
  }
}

// Format 2's lists and format 3's chips: both forms at once, wrong lengths, unknown or
// repeated tile ids, a rotation out of range or on an empty space, a chip value out of range,
// scored bits beyond the chips or without the values are refused.
TEST(CaratWire, RefusesMixedFormsAndBadBytes) {
  auto state = NewCarat(3, {{"hand_size", "3"}}, 5);
  std::vector<Move> legal;
  for (int i = 0; i < 4; ++i) {
    state->LegalMoves(legal);
    ASSERT_TRUE(state->Apply(legal.front()).ok());
  }
  const auto refusal = testing::RefusalOfChange<v1::CaratState>(*state);
  EXPECT_EQ(refusal([](v1::CaratState&) {}), "");
  int empty = -1, laid = -1;
  {
    v1::GameState wire;
    state->Serialize(&wire);
    v1::CaratState proto;
    ASSERT_TRUE(wire.state().UnpackTo(&proto));
    for (int space = 0; space < kSpaces; ++space) (proto.board_tiles()[space] == 0 ? empty : laid) = space;
    ASSERT_GE(empty, 0);
    ASSERT_GE(laid, 0);
  }
  EXPECT_THAT(refusal([](v1::CaratState& proto) { proto.add_board(); }),
              HasSubstr("the board is listed both as space messages (format 1) and as bytes (format 2)"));
  const auto tile_a1 = [](v1::CaratTile* tile) {
    tile->set_type(v1::CARAT_TILE_TYPE_A);
    tile->set_value(1);
  };
  EXPECT_THAT(refusal([&](v1::CaratState& proto) { tile_a1(proto.mutable_seats(1)->add_hand()); }),
              HasSubstr("seat 1's hand is listed both as messages (format 1) and as bytes (format 2)"));
  EXPECT_THAT(refusal([&](v1::CaratState& proto) { tile_a1(proto.add_supply()); }),
              HasSubstr("the supply is listed both"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) { proto.mutable_board_rotations()->pop_back(); }),
              HasSubstr("the board lists 36 tiles and 35 rotations instead of 36 each"));
  EXPECT_THAT(refusal([&](v1::CaratState& proto) { (*proto.mutable_board_tiles())[laid] = 37; }),
              HasSubstr("holds a tile that does not exist"));
  EXPECT_THAT(refusal([&](v1::CaratState& proto) { (*proto.mutable_board_rotations())[laid] = 4; }),
              HasSubstr("has rotation 4; it must be 0 to 3"));
  EXPECT_THAT(refusal([&](v1::CaratState& proto) { (*proto.mutable_board_rotations())[empty] = 1; }),
              HasSubstr("is empty but has a rotation"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) { proto.mutable_supply_tiles()->push_back(36); }),
              HasSubstr("the supply holds tile id 36, which does not exist"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) {
                std::string& supply = *proto.mutable_supply_tiles();
                supply.push_back(supply[0]);
              }),
              HasSubstr("the supply lists tile"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) { proto.add_chips(1); }),
              HasSubstr("the chips are listed both as numbers (formats 1 and 2) and as bytes (format 3)"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) { proto.mutable_chip_values()->pop_back(); }),
              HasSubstr("there must be 49 chip values, not 48"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) { (*proto.mutable_chip_values())[9] = 6; }),
              HasSubstr("chip K(1,2) has value 6; chips are worth 1 to 5"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) { proto.set_scored_chips(uint64_t{1} << 49); }),
              HasSubstr("scored chips name chips that do not exist"));
  EXPECT_THAT(refusal([](v1::CaratState& proto) {
                proto.clear_chip_values();
                proto.set_scored_chips(1);
              }),
              HasSubstr("scored chips (format 3) without their values"));
}

TEST(CaratEvents, DrawnTilesGoOnlyToTheirOwner) {
  EventLog log;
  auto state = NewCarat(3, {{"hand_size", "3"}}, 11, &log);
  std::vector<Move> legal;
  state->LegalMoves(legal);
  ASSERT_TRUE(state->Apply(legal[0], &log).ok());
  for (Seat seat = 0; seat < 3; ++seat) {
    int own = 0, others = 0, placed = 0, laid = 0;
    for (const v1::Event& event : log.ForSeat(seat)) {
      v1::CaratEvent detail;
      ASSERT_TRUE(event.detail().UnpackTo(&detail));
      laid += detail.has_chips_laid();
      placed += detail.has_tile_placed();
      if (!detail.has_tile_drawn()) continue;
      const bool mine = detail.tile_drawn().seat() == seat;
      EXPECT_EQ(detail.tile_drawn().has_tile(), mine);
      (mine ? own : others) += 1;
    }
    EXPECT_EQ(laid, 1);
    EXPECT_EQ(placed, 1);
    EXPECT_EQ(own, seat == 0 ? 4 : 3);  // seat 0 drew again after its placement
    EXPECT_EQ(others, seat == 0 ? 6 : 7);
  }
}

TEST(CaratMoves, IdsAndDetailsRoundTrip) {
  const Move move = PlaceMove(TileId(F, 6), Space(5, 4), 3);
  EXPECT_EQ(move.id, static_cast<uint32_t>((35 * 36 + 34) * 4 + 3));
  EXPECT_EQ(MoveTile(move), TileId(F, 6));
  EXPECT_EQ(MoveSpace(move), Space(5, 4));
  EXPECT_EQ(MoveRotation(move), 3);
  auto state = NewCarat(2);
  v1::Move proto;
  state->MoveDetail(move, proto.mutable_detail());
  v1::CaratMove detail;
  ASSERT_TRUE(proto.detail().UnpackTo(&detail));
  EXPECT_EQ(detail.place().tile().type(), v1::CARAT_TILE_TYPE_F);
  EXPECT_EQ(detail.place().tile().value(), 6u);
  EXPECT_EQ(detail.place().row(), 5u);
  EXPECT_EQ(detail.place().column(), 4u);
  EXPECT_EQ(detail.place().rotation(), 3u);
  auto parsed = CaratGame().ParseMove(proto);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->id, move.id);
  EXPECT_EQ(state->MoveText(move), "place F6 turned 3 (YBGR) on T(5,4)");
  detail.mutable_place()->set_row(6);
  proto.mutable_detail()->PackFrom(detail);
  EXPECT_EQ(CaratGame().ParseMove(proto).status().code(), absl::StatusCode::kInvalidArgument);
}

// The move features' immediate gains (layout in carat_features.cc: [5] chips completed / 4,
// [6] the mover's points / 40, [7] other seats' points / 40) match what Apply then does.
TEST(CaratFeatures, ImmediateGainsMatchApply) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const int players = 1 + static_cast<int>(seed) % 3 + 1;
    auto state = NewCarat(players, {{"hand_size", "3"}}, seed);
    std::vector<Move> legal;
    Rng rng(seed);
    int completing_moves = 0;
    while (!state->finished()) {
      const Seat mover = state->to_move();
      state->LegalMoves(legal);
      v1::View view;
      state->Observe(mover, &view);
      Features features;
      ASSERT_TRUE(CaratGame().Featurize(view, legal, &features).ok());
      ASSERT_EQ(features.moves.size(), legal.size() * features.move_size);
      for (size_t i = 0; i < legal.size(); i += 7) {
        const float* f = features.moves.data() + i * features.move_size;
        auto next = state->Clone();
        EventLog log;
        ASSERT_TRUE(next->Apply(legal[i], &log).ok());
        const auto& after = static_cast<const CaratState&>(*next).data();
        int own = 0, others = 0;
        for (Seat seat = 0; seat < players; ++seat)
          (seat == mover ? own : others) += after.scores[seat] - state->data().scores[seat];
        const int completed = static_cast<int>(ScoredChips(log).size());
        completing_moves += completed > 0;
        EXPECT_FLOAT_EQ(f[5] * 4, completed);
        EXPECT_NEAR(f[6] * 40, own, 1e-4);
        EXPECT_NEAR(f[7] * 40, others, 1e-4);
      }
      ASSERT_TRUE(state->Apply(legal[rng.Below(legal.size())]).ok());
    }
    EXPECT_GT(completing_moves, 0);
  }
}

TEST(CaratFeatures, FixedSizesAndFiniteForAnyMoveIds) {
  size_t observation = 0;
  int move_size = 0;
  for (int players = 2; players <= 4; ++players) {
    auto state = NewCarat(players, {{"hand_size", "3"}}, 8);
    std::vector<Move> legal;
    for (int i = 0; i < 9; ++i) {
      state->LegalMoves(legal);
      ASSERT_TRUE(state->Apply(legal[legal.size() / 3]).ok());
    }
    // Legal moves, moves onto occupied spaces, and ids beyond the encoding.
    const std::vector<Move> moves = {PlaceMove(0, 0, 0), PlaceMove(35, 35, 3),
                                     PlaceMove(TileId(C, 4), Space(2, 2), 1), Move{kMoveIds},
                                     Move{0xFFFFFFFFu}};
    for (Seat seat = 0; seat < players; ++seat) {
      v1::View view;
      state->Observe(seat, &view);
      Features features;
      ASSERT_TRUE(CaratGame().Featurize(view, moves, &features).ok());
      if (observation == 0) {
        observation = features.observation.size();
        move_size = features.move_size;
      }
      EXPECT_EQ(features.observation.size(), observation);
      EXPECT_EQ(features.move_size, move_size);
      ASSERT_EQ(features.moves.size(), moves.size() * move_size);
      for (float f : features.observation) ASSERT_TRUE(std::isfinite(f));
      for (float f : features.moves) ASSERT_TRUE(std::isfinite(f));
    }
  }
  v1::View wrong;
  wrong.mutable_view()->PackFrom(v1::CaratMove());
  Features features;
  EXPECT_EQ(CaratGame().Featurize(wrong, {}, &features).code(), absl::StatusCode::kInvalidArgument);
}

// The move features tell a placement that wins a chip for the mover from the same tile
// turned so that another seat wins it. Vector 7's board without T(3,3): around K(3,3) lie
// blue 3, yellow 2 and red 5; seat 3 (green) completes it with A6.
TEST(CaratFeatures, TellWinningRotationsFromLosingOnes) {
  auto state = NewCarat(4);
  Data& data = state->mutable_data();
  SetChip(data, Chip(3, 3), 3);
  Arrange(data, {{2, 2, TileId(D, 3), 1}, {2, 3, TileId(A, 2), 0}, {3, 2, TileId(D, 5), 1}},
          {TileId(A, 6)});
  ASSERT_EQ(state->to_move(), 3);
  std::vector<Move> moves;
  for (int rotation = 0; rotation < kRotations; ++rotation)
    moves.push_back(PlaceMove(TileId(A, 6), Space(3, 3), rotation));
  v1::View view;
  state->Observe(3, &view);
  Features features;
  ASSERT_TRUE(CaratGame().Featurize(view, moves, &features).ok());
  // The NW diamond of A by rotation: red, yellow, blue, green. Red 11, yellow 8 or blue 9
  // win 3 colours x 3 for another seat; green 6 wins all 4 colours x 3 for the mover.
  for (int rotation = 0; rotation < kRotations; ++rotation) {
    const float* f = features.moves.data() + rotation * features.move_size;
    EXPECT_FLOAT_EQ(f[5] * 4, 1) << rotation;  // one chip completed
    EXPECT_NEAR(f[6] * 40, rotation == 3 ? 12 : 0, 1e-4) << rotation;
    EXPECT_NEAR(f[7] * 40, rotation == 3 ? 0 : 9, 1e-4) << rotation;
  }
}

// The move features carry what the next seat can expect to take from a chip the move leaves
// one tile short. Seat 2 places D5 at T(3,2), so that K(3,3) holds blue 3, yellow 2 and
// red 5 with T(3,3) open. Green (seat 3) wins it only with a 6 (totals 5, 2, 3, 6): 4 colours
// x 3 = 12 points. Six of the 33 tiles seat 2 cannot see are 6s.
TEST(CaratFeatures, ExpectTheNextSeatsStealOfAChipLeftOneShort) {
  auto state = NewCarat(4);
  Data& data = state->mutable_data();
  SetChip(data, Chip(3, 3), 3);
  Arrange(data, {{2, 2, TileId(D, 3), 1}, {2, 3, TileId(A, 2), 0}}, {TileId(D, 5)});
  ASSERT_EQ(state->to_move(), 2);
  const std::vector<Move> moves = {PlaceMove(TileId(D, 5), Space(3, 2), 1),
                                   PlaceMove(TileId(D, 5), Space(2, 4), 1)};
  v1::View view;
  state->Observe(2, &view);
  Features features;
  ASSERT_TRUE(CaratGame().Featurize(view, moves, &features).ok());
  const float* leaves_one_short = features.moves.data();
  EXPECT_NEAR(leaves_one_short[13] * 40, 12.0 * 6 / 33, 1e-4);  // the best such chip
  EXPECT_NEAR(leaves_one_short[14] * 40, 12.0 * 6 / 33, 1e-4);  // all of them
  const float* elsewhere = features.moves.data() + features.move_size;
  EXPECT_EQ(elsewhere[13], 0);
  EXPECT_EQ(elsewhere[14], 0);
}

}  // namespace
}  // namespace gavel::carat
