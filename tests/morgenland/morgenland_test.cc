// Morgenland rules: the test vectors of docs/rules/morgenland.md §12, every artifact and
// spell (its effect and an illegal use), views and events, and the generic property suite.
#include "engine/morgenland/morgenland.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "engine/morgenland/morgenland_magic.h"
#include "gavel/v1/morgenland.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/property_suite.h"
#include "tests/support/decode_changed.h"
#include "tests/support/earlier_formats.h"
#include "tests/support/observed_view.h"
#include "tests/support/random_play.h"

namespace gavel::morgenland {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::Not;

GAVEL_PROPERTY_SUITE(Morgenland, MorgenlandGame());

constexpr int A = 0, B = 1, C = 2, D = 3;

int TokenOf(int value) {
  return static_cast<int>(std::find(kTokenValues.begin(), kTokenValues.end(), value) -
                          kTokenValues.begin());
}

// A game after setup (every seat picked 3 crowns), all tokens set aside, shelves cleared.
std::unique_ptr<MorgenlandState> Start(int players, bool pro = true, OptionMap options = {}) {
  options["rules"] = pro ? "pro" : "basic";
  auto created = MorgenlandGame().NewGame(players, 11, options);
  EXPECT_TRUE(created.ok()) << created.status();
  std::unique_ptr<MorgenlandState> state(static_cast<MorgenlandState*>(created->release()));
  for (int i = 0; i < 3 * players; ++i) EXPECT_TRUE(state->Apply(KindMove(0)).ok());
  Data& d = state->mutable_data();
  for (int seat = 0; seat < players; ++seat) d.seats[seat].token_space.fill(kSetAside);
  for (int kind = 0; kind < kKinds; ++kind)
    for (uint8_t& units : d.shelves[kind]) {
      d.bank[kind] = static_cast<uint8_t>(d.bank[kind] + units);
      units = 0;
    }
  return state;
}

void Put(Data& d, int seat, int value, int space, bool face_up = false) {
  const int token = TokenOf(value);
  d.seats[seat].token_space[token] = static_cast<int8_t>(space);
  if (face_up) d.seats[seat].face_up |= static_cast<uint8_t>(1 << token);
}

void SetTreasure(Data& d, int seat, std::array<uint8_t, kKinds> units) {
  for (int kind = 0; kind < kKinds; ++kind) {
    d.bank[kind] = static_cast<uint8_t>(d.bank[kind] + d.seats[seat].treasure[kind] - units[kind]);
    d.seats[seat].treasure[kind] = units[kind];
  }
}

// Takes the artifact from a face-down stack, or else from the box.
void GiveArtifact(Data& d, int seat, int artifact) {
  ++d.seats[seat].owned[artifact];
  for (int room = 0; room < d.players; ++room) {
    auto& stack = d.stack[room];
    for (int i = 0; i < d.stack_size[room]; ++i) {
      if (stack[i] != artifact) continue;
      for (int j = i; j + 1 < d.stack_size[room]; ++j) stack[j] = stack[j + 1];
      stack[--d.stack_size[room]] = -1;
      return;
    }
  }
  for (int room = 0; room < d.players; ++room) {
    if (d.face_up[room] != artifact) continue;
    d.face_up[room] = -1;
    return;
  }
  if (d.box[artifact] > 0) {
    --d.box[artifact];
    return;
  }
  ADD_FAILURE() << "no artifact " << artifact << " left to give";
}

void GiveSpell(Data& d, int seat, int spell) {
  d.spell_deck &= ~(1u << spell);
  d.discards &= ~(1u << spell);
  d.seats[seat].spells |= 1u << spell;
}

// Gives the seat a spell and an invoked Lamp.
void Caster(Data& d, int seat, int spell) {
  GiveSpell(d, seat, spell);
  d.seats[seat].invoked[kLamp] = 1;
}

// Opens the tally of `space` (reveal, then the pro window or the resolution).
void Tally(MorgenlandState& state, int space, int guard = 0) {
  Data& d = state.mutable_data();
  d.space = static_cast<int8_t>(space);
  if (space >= kGate && guard) d.guard = static_cast<int8_t>(guard);
  if (space == kGate && guard) {
    // The guard is fixed by the test: reveal the tokens, then open the window.
    d.space = static_cast<int8_t>(kGate);
    for (int seat = 0; seat < d.players; ++seat)
      for (int token = 0; token < kTokens; ++token)
        if (d.seats[seat].token_space[token] == kGate) d.seats[seat].face_up |= 1 << token;
    if (!d.pro) return state.ResolveSpace(nullptr);
    d.phase = Phase::kWindow;
    d.passes = 0;
    d.active = d.camel;
    return state.SkipSilentWindowSeats(nullptr);
  }
  state.RevealSpace(nullptr);
}

std::vector<Move> Legal(const State& state) {
  std::vector<Move> moves;
  state.LegalMoves(moves);
  return moves;
}

void Play(State& state, Move move) {
  ASSERT_TRUE(state.IsLegal(move)) << state.MoveText(move);
  ASSERT_TRUE(state.Apply(move).ok());
}

// ---------------------------------------------------------------------------
// §12 test vectors

TEST(MorgenlandVectors, V1GateEntryAndBribes) {
  auto state = Start(4, false);
  Data& d = state->mutable_data();
  Put(d, A, 9, kGate);
  Put(d, B, 9, kGate);
  Put(d, C, 6, kGate);
  Put(d, D, 7, kGate);
  Put(d, C, 5, kRoom1);
  Put(d, D, 4, kRoom1);
  SetTreasure(d, C, {3, 0, 0, 0, 0});
  SetTreasure(d, D, {3, 0, 0, 0, 0});
  Tally(*state, kGate, 8);
  EXPECT_TRUE(d.seats[A].entered);
  EXPECT_TRUE(d.seats[B].entered);
  ASSERT_EQ(d.phase, Phase::kBribe);
  ASSERT_EQ(d.active, C);
  EXPECT_THAT(Legal(*state), ElementsAre(PassMove(), AcceptMove()));
  Play(*state, PassMove());  // C declines: its room token is set aside
  EXPECT_EQ(d.seats[C].token_space[TokenOf(5)], kSetAside);
  EXPECT_FALSE(d.seats[C].entered);
  ASSERT_EQ(d.phase, Phase::kBribe);
  ASSERT_EQ(d.active, D);
  Play(*state, AcceptMove());
  ASSERT_EQ(d.phase, Phase::kPay);
  EXPECT_EQ(d.units_left, 1);  // G - S = 8 - 7
  Play(*state, KindMove(0));
  EXPECT_TRUE(d.seats[D].entered);
  EXPECT_EQ(d.seats[D].treasure[0], 2);
  EXPECT_EQ(d.seats[D].token_space[TokenOf(4)], kRoom1);
}

TEST(MorgenlandVectors, V1NoGatePresenceNoBribe) {
  auto state = Start(3, false);
  Data& d = state->mutable_data();
  Put(d, A, 9, kGate);
  Put(d, A, 1, kRoom1);  // A's offer in ROOM1 pauses the tally
  Put(d, C, 5, kRoom1);
  Tally(*state, kGate, 8);
  ASSERT_EQ(d.phase, Phase::kOffer);
  // B and C have no gate presence: nobody is asked, and C's room token is set aside.
  EXPECT_NE(d.phase, Phase::kBribe);
  EXPECT_TRUE(d.seats[A].entered);
  EXPECT_FALSE(d.seats[C].entered);
  EXPECT_EQ(d.seats[C].token_space[TokenOf(5)], kSetAside);
}

TEST(MorgenlandVectors, V2RoomPaymentOneKindPerItem) {
  auto state = Start(3, false);
  Data& d = state->mutable_data();
  Put(d, A, 7, kRoom1);
  Put(d, A, 1, kRoom1);
  Put(d, B, 6, kRoom1);
  d.seats[A].entered = d.seats[B].entered = true;
  SetTreasure(d, A, {8, 1, 0, 0, 0});
  SetTreasure(d, B, {7, 0, 0, 0, 0});
  d.guard = 5;
  Tally(*state, kRoom1);
  ASSERT_EQ(d.phase, Phase::kOffer);
  ASSERT_EQ(d.active, A);
  Play(*state, AcceptMove());
  ASSERT_EQ(d.phase, Phase::kRoomPay);
  // The 7 first: only crowns hold 7; then the 1 must be another kind: pearls.
  EXPECT_THAT(Legal(*state), ElementsAre(KindMove(0)));
  Play(*state, KindMove(0));
  EXPECT_THAT(Legal(*state), ElementsAre(KindMove(1)));
  Play(*state, KindMove(1));
  EXPECT_EQ(d.seats[A].treasure[0], 1);
  EXPECT_EQ(d.seats[A].treasure[1], 0);
  EXPECT_EQ(std::accumulate(d.seats[A].owned.begin(), d.seats[A].owned.end(), 0), 1);
}

TEST(MorgenlandVectors, V2UnpayableSeatMustDecline) {
  auto state = Start(3, false);
  Data& d = state->mutable_data();
  Put(d, A, 7, kRoom1);
  Put(d, A, 1, kRoom1);
  Put(d, B, 6, kRoom1);
  d.seats[A].entered = d.seats[B].entered = true;
  SetTreasure(d, A, {8, 0, 0, 0, 0});  // 8 of one kind cannot pay 7 + 1
  SetTreasure(d, B, {6, 0, 0, 0, 0});
  d.guard = 5;
  Tally(*state, kRoom1);
  ASSERT_EQ(d.phase, Phase::kOffer);
  ASSERT_EQ(d.active, A);
  EXPECT_THAT(Legal(*state), ElementsAre(PassMove()));
  EXPECT_FALSE(state->IsLegal(AcceptMove()));
  Play(*state, PassMove());
  ASSERT_EQ(d.phase, Phase::kOffer);
  EXPECT_EQ(d.active, B);
  EXPECT_TRUE(state->IsLegal(AcceptMove()));
}

TEST(MorgenlandVectors, V3MarketWithCarpets) {
  auto state = Start(4);
  Data& d = state->mutable_data();
  Put(d, A, 7, kMarket);
  Put(d, D, 7, kMarket);
  GiveArtifact(d, A, kCarpet);
  GiveArtifact(d, D, kCarpet);
  Tally(*state, kMarket);
  ASSERT_EQ(d.phase, Phase::kWindow);
  ASSERT_EQ(d.active, A);
  Play(*state, PassMove());
  ASSERT_EQ(d.active, D);  // B and C cannot act: passed automatically
  Play(*state, InvokeMove(kCarpet));
  EXPECT_EQ(Strength(d, D, kMarket), 10);
  ASSERT_EQ(d.active, A);
  Play(*state, InvokeMove(kCarpet));
  EXPECT_EQ(Strength(d, A, kMarket), 10);
  // Nobody can act any more: n passes close the window and A decides on player order.
  ASSERT_EQ(d.phase, Phase::kMarket);
  EXPECT_EQ(d.active, A);
  Play(*state, KindMove(0));
  ASSERT_EQ(d.phase, Phase::kTake);
  Play(*state, KindMove(1));
  Play(*state, KindMove(2));
  Play(*state, KindMove(3));
  EXPECT_EQ(d.seats[A].treasure, (std::array<uint8_t, kKinds>{2, 1, 1, 1, 0}));
}

// Anna (A, start player) has face-up 5 and 2 in DJINN, Sam (B) a 7; both Lamps invoked.
std::unique_ptr<MorgenlandState> EclipseSetup(int camel) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.camel = static_cast<int8_t>(camel);
  Put(d, A, 5, kDjinn);
  Put(d, A, 2, kDjinn);
  Put(d, B, 7, kDjinn);
  d.seats[A].invoked[kLamp] = d.seats[B].invoked[kLamp] = 1;
  return state;
}

TEST(MorgenlandVectors, V4aLunarEclipseSetsOddTokensAside) {
  auto state = EclipseSetup(A);
  Data& d = state->mutable_data();
  GiveSpell(d, A, kLunarEclipse);
  GiveSpell(d, A, kCharity);  // keeps A asked in every window, so the tally pauses
  Tally(*state, kDjinn);
  ASSERT_EQ(d.active, A);
  Play(*state, SpellMove(kLunarEclipse, kDjinn));
  // Sam cannot counter: nobody is asked; the spell resolves at once.
  ASSERT_EQ(d.active, A);
  Play(*state, PassMove());
  ASSERT_EQ(d.space, kMarket);
  EXPECT_EQ(d.seats[A].token_space[TokenOf(5)], kSetAside);
  EXPECT_EQ(d.seats[B].token_space[TokenOf(7)], kSetAside);
  EXPECT_EQ(d.seats[A].token_space[TokenOf(2)], kDjinn);
  EXPECT_TRUE(d.seats[A].djinn);  // Anna (2) wins the DJINN
  EXPECT_FALSE(d.seats[B].djinn);
}

TEST(MorgenlandVectors, V4bSecondChanceBeforeTheEclipse) {
  auto state = EclipseSetup(A);
  Data& d = state->mutable_data();
  GiveSpell(d, A, kLunarEclipse);
  GiveSpell(d, A, kSecondChance);
  GiveSpell(d, A, kCharity);
  Tally(*state, kDjinn);
  Play(*state, SpellMove(kSecondChance, 15 * TokenOf(5) + kMarket));
  EXPECT_EQ(d.seats[A].token_space[TokenOf(5)], kMarket);
  ASSERT_EQ(d.phase, Phase::kWindow);
  ASSERT_EQ(d.active, A);  // Sam and C cannot act
  Play(*state, SpellMove(kLunarEclipse, kDjinn));
  EXPECT_EQ(d.seats[A].token_space[TokenOf(5)], kMarket);
  EXPECT_EQ(d.seats[B].token_space[TokenOf(7)], kSetAside);
  EXPECT_EQ(d.seats[A].token_space[TokenOf(2)], kDjinn);
}

TEST(MorgenlandVectors, V4cAfterTheEclipseSamCanOnlyCounter) {
  auto state = EclipseSetup(B);  // Sam earlier in order
  Data& d = state->mutable_data();
  GiveSpell(d, A, kLunarEclipse);
  GiveSpell(d, B, kSecondChance);
  GiveArtifact(d, A, kCounterspell);  // so that Sam, holding spells, is asked to counter
  d.seats[A].invoked[kCounterspell] = 1;
  d.seats[A].djinn = true;
  Tally(*state, kDjinn);
  ASSERT_EQ(d.active, B);
  EXPECT_TRUE(state->IsLegal(SpellMove(kSecondChance, 15 * TokenOf(7) + kMarket)));
  Play(*state, PassMove());
  ASSERT_EQ(d.active, A);
  Play(*state, SpellMove(kLunarEclipse, kDjinn));
  ASSERT_EQ(d.phase, Phase::kCounter);
  ASSERT_EQ(d.active, B);
  EXPECT_FALSE(state->IsLegal(SpellMove(kSecondChance, 15 * TokenOf(7) + kMarket)));
  EXPECT_THAT(Legal(*state), ElementsAre(PassMove()));
  Play(*state, PassMove());
  EXPECT_EQ(d.seats[B].token_space[TokenOf(7)], kSetAside);
}

std::unique_ptr<MorgenlandState> CaveSetup() {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.shelves[0] = {5, 2, 0, 0};
  d.bank[0] = static_cast<uint8_t>(d.bank[0] - 7);
  Put(d, A, 6, kCaveR);
  Put(d, B, 6, kCaveR);
  Put(d, C, 4, kCaveR);
  return state;
}

TEST(MorgenlandVectors, V5CaveRanking) {
  auto state = CaveSetup();
  Data& d = state->mutable_data();
  Tally(*state, kCaveR);
  EXPECT_EQ(d.seats[A].treasure[0], 3 + 5);
  EXPECT_EQ(d.seats[B].treasure[0], 3 + 2);
  EXPECT_EQ(d.seats[C].treasure[0], 3);
}

TEST(MorgenlandVectors, V5CaveRankingWithScroll) {
  auto state = CaveSetup();
  Data& d = state->mutable_data();
  GiveArtifact(d, B, kScroll);
  Tally(*state, kCaveR);
  ASSERT_EQ(d.phase, Phase::kWindow);
  ASSERT_EQ(d.active, B);  // A and... only B can act
  Play(*state, InvokeMove(kScroll));
  EXPECT_EQ(d.seats[B].treasure[0], 3 + 5);
  EXPECT_EQ(d.seats[A].treasure[0], 3 + 2);
}

TEST(MorgenlandVectors, V5CaveRankingLastFirst) {
  auto state = CaveSetup();
  Data& d = state->mutable_data();
  d.last_first = true;
  Tally(*state, kCaveR);
  EXPECT_EQ(d.seats[C].treasure[0], 3 + 5);
  EXPECT_EQ(d.seats[A].treasure[0], 3 + 2);
  EXPECT_EQ(d.seats[B].treasure[0], 3);
}

TEST(MorgenlandVectors, V6DjinnAllowsASecondArtifact) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Put(d, B, 5, kDjinn);
  d.seats[B].invoked[kLamp] = 1;
  GiveArtifact(d, B, kCarpet);
  EXPECT_FALSE(UnderLimit(d.seats[B]));
  Tally(*state, kDjinn);  // B cannot act in the window (limit reached): DJINN resolves
  EXPECT_TRUE(d.seats[B].djinn);
  EXPECT_TRUE(UnderLimit(d.seats[B]));
  Put(d, B, 6, kMarket);
  Tally(*state, kMarket);
  ASSERT_EQ(d.phase, Phase::kWindow);
  ASSERT_EQ(d.active, B);
  Play(*state, InvokeMove(kCarpet));
  EXPECT_EQ(InvokedCount(d.seats[B]), 2);
}

TEST(MorgenlandVectors, V7CaravanMovesTheCamelAtOnce) {
  auto state = Start(4, false);
  Data& d = state->mutable_data();
  Put(d, C, 5, kCaravan);
  Put(d, A, 4, kGate);
  Put(d, C, 2, kGate);
  Put(d, D, 1, kGate);
  Tally(*state, kCaravan);
  EXPECT_EQ(d.camel, C);
  // The gate follows (guard drawn at random, at least 1): C is asked first.
  d.guard = 0;
  Tally(*state, kGate, 9);
  ASSERT_EQ(d.phase, Phase::kBribe);
  EXPECT_EQ(d.active, C);
  Play(*state, PassMove());
  EXPECT_EQ(d.active, D);
  Play(*state, PassMove());
  EXPECT_EQ(d.active, A);
}

TEST(MorgenlandVectors, V8DoubleInARoom) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Put(d, A, 4, kRoom1, true);
  d.seats[A].copies[TokenOf(4)] = 1;
  std::array<uint8_t, 16> items{};
  ASSERT_EQ(PaymentItems(d, A, kRoom1, items), 2);
  EXPECT_EQ(items[0], 4);
  EXPECT_EQ(items[1], 4);
  EXPECT_FALSE(CanAssign({5, 3, 0, 0, 0}, items.data(), 2, 0));
  EXPECT_TRUE(CanAssign({5, 4, 0, 0, 0}, items.data(), 2, 0));
}

TEST(MorgenlandVectors, V8DoubleInvokedInTheRoomWindow) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Put(d, A, 4, kRoom1);
  d.seats[A].entered = true;
  d.guard = 5;
  GiveArtifact(d, A, kDouble);
  SetTreasure(d, A, {5, 4, 0, 0, 0});
  Tally(*state, kRoom1);
  ASSERT_EQ(d.phase, Phase::kWindow);
  Play(*state, DoubleMove(TokenOf(4)));
  EXPECT_EQ(Strength(d, A, kRoom1), 8);
  ASSERT_EQ(d.phase, Phase::kOffer);
  Play(*state, AcceptMove());
  Play(*state, KindMove(0));
  Play(*state, KindMove(1));
  EXPECT_EQ(d.seats[A].treasure, (std::array<uint8_t, kKinds>{1, 0, 0, 0, 0}));
}

TEST(MorgenlandVectors, V9Donation) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kDonation);
  SetTreasure(d, A, {3, 0, 0, 0, 0});
  SetTreasure(d, B, {4, 5, 0, 0, 0});
  SetTreasure(d, C, {0, 0, 0, 0, 0});
  d.seats[A].token_space[0] = kInHand;
  ASSERT_EQ(d.phase, Phase::kPlace);
  Play(*state, SpellMove(kDonation, 0));
  EXPECT_EQ(Total(d.seats[A].treasure), 0);  // returned all 3
  ASSERT_EQ(d.phase, Phase::kPay);
  ASSERT_EQ(d.active, B);
  for (int i = 0; i < 5; ++i) Play(*state, KindMove(1));  // B chooses 5 pearls
  EXPECT_EQ(d.seats[B].treasure, (std::array<uint8_t, kKinds>{4, 0, 0, 0, 0}));
  EXPECT_EQ(d.phase, Phase::kPlace);
  EXPECT_TRUE(d.discards >> kDonation & 1);
  EXPECT_TRUE(Validate(d).ok()) << Validate(d);
}

TEST(MorgenlandVectors, V10TentSecondCardGoesToTheSecond) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.discards = ((1u << kSpells) - 1) & ~(1u << kSpy) & ~(1u << kTaboo);
  d.spell_deck = (1u << kSpy) | (1u << kTaboo);
  Put(d, A, 9, kTent);
  Put(d, B, 5, kTent);
  Tally(*state, kTent);
  ASSERT_EQ(d.phase, Phase::kTent);
  ASSERT_EQ(d.active, A);
  EXPECT_THAT(Legal(*state), ElementsAre(KeepMove(kSpy), KeepMove(kTaboo)));
  // Only the strongest sees the drawn cards before choosing.
  v1::View view;
  for (int seat : {B, C}) {
    state->Observe(seat, &view);
    v1::MorgenlandView other_view;
    ASSERT_TRUE(view.view().UnpackTo(&other_view));
    EXPECT_THAT(other_view.tent(), ElementsAre(kSpells, kSpells));
  }
  Play(*state, KeepMove(kSpy));
  EXPECT_EQ(d.seats[A].spells, 1u << kSpy);
  EXPECT_EQ(d.seats[B].spells, 1u << kTaboo);
  EXPECT_EQ(d.seats[B].known_by[A], 1u << kTaboo);  // A saw it
  state->Observe(A, &view);
  v1::MorgenlandView a_view;
  ASSERT_TRUE(view.view().UnpackTo(&a_view));
  EXPECT_EQ(a_view.seats(B).spells(), 1u << kTaboo);  // A knows what B received
  state->Observe(B, &view);
  v1::MorgenlandView b_view;
  ASSERT_TRUE(view.view().UnpackTo(&b_view));
  EXPECT_EQ(b_view.seats(A).spells(), 0u);  // B does not know what A kept
  EXPECT_TRUE(Validate(d).ok()) << Validate(d);
}

TEST(MorgenlandVectors, V10TentAloneDiscardsTheOther) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.discards = ((1u << kSpells) - 1) & ~(1u << kSpy) & ~(1u << kTaboo);
  d.spell_deck = (1u << kSpy) | (1u << kTaboo);
  Put(d, A, 9, kTent);
  Tally(*state, kTent);
  Play(*state, KeepMove(kSpy));
  EXPECT_TRUE(d.discards >> kTaboo & 1);
  EXPECT_EQ(d.seats[B].spells, 0u);
}

TEST(MorgenlandVectors, V11LastArtifactEndsTheGameAtOnce) {
  auto state = Start(3, false);
  Data& d = state->mutable_data();
  // Only ROOM2 still holds an artifact; ROOM3 would be next but never resolves.
  for (int room : {0, 2})
    while (d.stack_size[room] > 0) {
      ++d.box[d.stack[room][--d.stack_size[room]]];
      d.stack[room][d.stack_size[room]] = -1;
    }
  while (d.stack_size[1] > 1) {
    ++d.box[d.stack[1][--d.stack_size[1]]];
    d.stack[1][d.stack_size[1]] = -1;
  }
  Put(d, A, 1, kRoom1 + 1);
  Put(d, B, 1, kRoom1 + 2);
  d.seats[A].entered = d.seats[B].entered = true;
  d.guard = 5;
  Tally(*state, kRoom1 + 1);
  Play(*state, AcceptMove());
  Play(*state, KindMove(0));
  EXPECT_EQ(d.phase, Phase::kFinished);
  EXPECT_EQ(d.space, kRoom1 + 1);
  EXPECT_TRUE(state->finished());
  EXPECT_TRUE(Validate(d).ok()) << Validate(d);
}

TEST(MorgenlandVectors, V11ScrollsThenTreasureThenOrderBreakTies) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.phase = Phase::kFinished;
  d.seats[A].owned = {1, 1, 1, 1, 1, 1};  // 6 artifacts, 1 Scroll
  d.seats[B].owned = {1, 1, 1, 1, 0, 2};  // 6 artifacts, 2 Scrolls
  EXPECT_THAT(state->outcome().ranks, ElementsAre(2, 1, 3));
  d.seats[B].owned = {1, 1, 1, 1, 1, 1};
  SetTreasure(d, B, {4, 0, 0, 0, 0});
  EXPECT_THAT(state->outcome().ranks, ElementsAre(2, 1, 3));  // more units
  SetTreasure(d, B, {3, 0, 0, 0, 0});
  EXPECT_THAT(state->outcome().ranks, ElementsAre(1, 2, 3));  // player order
  d.camel = B;
  EXPECT_THAT(state->outcome().ranks, ElementsAre(2, 1, 3));
}

TEST(MorgenlandVectors, V12TreasureCards) {
  const TreasureCard& three = CardFor(3, 0);
  EXPECT_THAT(three[0], ElementsAre(5, 2, 0, 0));
  EXPECT_THAT(three[1], ElementsAre(4, 2, 0, 0));
  EXPECT_THAT(three[2], ElementsAre(3, 1, 0, 0));
  EXPECT_THAT(three[3], ElementsAre(6, 0, 0, 0));
  EXPECT_THAT(three[4], ElementsAre(0, 0, 0, 0));
  const TreasureCard& four = CardFor(4, 5);
  EXPECT_THAT(four[0], ElementsAre(6, 3, 0, 0));
  EXPECT_THAT(four[1], ElementsAre(3, 2, 0, 0));
  EXPECT_THAT(four[2], ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(four[3], ElementsAre(4, 2, 1, 0));
  EXPECT_THAT(four[4], ElementsAre(5, 2, 1, 0));
  int total = 0;
  for (const auto& cave : four)
    for (int units : cave) total += units;
  EXPECT_EQ(total, 29);
  const TreasureCard& five = CardFor(5, 10);
  EXPECT_THAT(five[0], ElementsAre(6, 3, 2, 0));
  EXPECT_THAT(five[1], ElementsAre(2, 0, 0, 0));
  EXPECT_THAT(five[2], ElementsAre(4, 3, 2, 1));
  EXPECT_THAT(five[3], ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(five[4], ElementsAre(5, 1, 0, 0));
}

TEST(MorgenlandVectors, V12DeckTotalsAndShelfLimit) {
  const std::array<int, 3> totals = {63, 85, 92};
  for (int players = 3; players <= 5; ++players) {
    for (int kind = 0; kind < kKinds; ++kind) {
      int sum = 0;
      for (int card = 0; card < kCardsPerDeck; ++card) {
        int shelves = 0;
        for (int units : CardFor(players, card)[kind]) {
          sum += units;
          shelves += units > 0;
        }
        EXPECT_LE(shelves, players - 1);
      }
      EXPECT_EQ(sum, totals[players - 3]) << players << " players, kind " << kind;
    }
  }
}

TEST(MorgenlandVectors, V13SmugglerAndOptionalCamel) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Put(d, B, 5, kDjinn);
  Put(d, C, 5, kMarket);
  Caster(d, A, kSmuggler);
  GiveArtifact(d, B, kCarpet);
  Tally(*state, kTent);
  ASSERT_EQ(d.active, A);
  Play(*state, SpellMove(kSmuggler, 0));
  EXPECT_EQ(d.seats[A].smuggler_spaces, (1 << kTent) | (1 << kCaravan));
  EXPECT_EQ(Strength(d, A, kTent), 3);
  EXPECT_EQ(Strength(d, A, kCaravan), 3);
  // Through TENT (A draws and keeps), DJINN, MARKET to the CARAVAN window.
  while (d.space < kCaravan) {
    std::vector<Move> moves = Legal(*state);
    Play(*state, d.phase == Phase::kWindow ? PassMove() : moves[0]);
  }
  ASSERT_EQ(d.space, kCaravan);
  ASSERT_EQ(d.phase, Phase::kWindow);
  if (d.active == A) Play(*state, PassMove());
  ASSERT_EQ(d.active, B);
  Play(*state, InvokeMove(kCarpet));
  EXPECT_EQ(Strength(d, B, kCaravan), 3);
  while (d.phase == Phase::kWindow) Play(*state, PassMove());
  ASSERT_EQ(d.phase, Phase::kCaravan);
  ASSERT_EQ(d.active, A);  // 3 vs 3: A first on player order
  EXPECT_THAT(Legal(*state), ElementsAre(PassMove(), AcceptMove()));
  Play(*state, PassMove());
  EXPECT_EQ(d.camel, A);
}

TEST(MorgenlandVectors, V14CounterspellCancelsTaboo) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, B, kTaboo);
  GiveArtifact(d, A, kCounterspell);
  GiveArtifact(d, C, kCounterspell);
  Put(d, B, 5, kMarket);
  Tally(*state, kMarket);
  ASSERT_EQ(d.active, B);
  Play(*state, SpellMove(kTaboo, kRoom1));
  ASSERT_EQ(d.phase, Phase::kCounter);
  ASSERT_EQ(d.active, A);
  Play(*state, PassMove());
  ASSERT_EQ(d.active, C);
  Play(*state, CounterMove());
  EXPECT_EQ(d.taboo, 0);
  EXPECT_TRUE(d.discards >> kTaboo & 1);
  EXPECT_EQ(InvokedCount(d.seats[C]), 1);
  EXPECT_FALSE(UnderLimit(d.seats[C]));
  EXPECT_EQ(InvokedCount(d.seats[A]), 0);
}

// ---------------------------------------------------------------------------
// Artifacts: effect and an illegal use

TEST(MorgenlandArtifacts, LampEnablesSpellsAndNeedsASpell) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  EXPECT_FALSE(state->IsLegal(InvokeMove(kLamp)));  // no spell in hand
  GiveSpell(d, A, kCharity);
  EXPECT_FALSE(state->IsLegal(SpellMove(kCharity, 0)));
  Play(*state, InvokeMove(kLamp));
  EXPECT_EQ(d.seats[A].invoked[kLamp], 1);
  EXPECT_EQ(d.phase, Phase::kPlace);
  EXPECT_TRUE(state->IsLegal(SpellMove(kCharity, 0)));
  EXPECT_FALSE(state->IsLegal(InvokeMove(kLamp)));
}

TEST(MorgenlandArtifacts, CounterspellOnlyInACounterWindow) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  GiveArtifact(d, A, kCounterspell);
  EXPECT_FALSE(state->IsLegal(CounterMove()));
  EXPECT_FALSE(state->IsLegal(InvokeMove(kCounterspell)));
}

TEST(MorgenlandArtifacts, DoubleNeedsOwnTokenInTheSpace) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  GiveArtifact(d, A, kDouble);
  Put(d, A, 6, kMarket);
  Put(d, A, 9, kCaravan);
  Tally(*state, kMarket);
  ASSERT_EQ(d.active, A);
  EXPECT_FALSE(state->IsLegal(DoubleMove(TokenOf(9))));
  Play(*state, DoubleMove(TokenOf(6)));
  EXPECT_EQ(Strength(d, A, kMarket), 12);
}

TEST(MorgenlandArtifacts, CarpetNotUnderTabooNorInAnEmptyCave) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  GiveArtifact(d, A, kCarpet);
  Caster(d, B, kCharity);  // B is always asked: the tally pauses after A's action
  d.taboo = 1 << kTent;
  Put(d, B, 5, kCaveR);
  Tally(*state, kCaveR);  // the cave holds no units and TENT is under Taboo: A is not asked
  while (d.active == B) Play(*state, PassMove());
  EXPECT_EQ(d.seats[A].invoked[kCarpet], 0);
  ASSERT_EQ(d.space, kDjinn);
  ASSERT_EQ(d.active, A);
  d.taboo = 1 << kDjinn;
  EXPECT_FALSE(state->IsLegal(InvokeMove(kCarpet)));
  d.taboo = 0;
  Play(*state, InvokeMove(kCarpet));
  EXPECT_EQ(d.seats[A].carpets[kDjinn], 1);
}

TEST(MorgenlandArtifacts, KeyEntersThePalaceOnlyAtTheGate) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  GiveArtifact(d, A, kKey);
  Put(d, A, 5, kRoom1);
  Put(d, B, 1, kMarket);
  Tally(*state, kMarket);
  EXPECT_FALSE(state->IsLegal(InvokeMove(kKey)));
  Put(d, C, 9, kGate);
  GiveArtifact(d, C, kKey);
  Tally(*state, kGate, 9);
  ASSERT_EQ(d.active, A);
  EXPECT_FALSE(ArtifactMoveLegal(d, C, InvokeMove(kKey)));  // 9 already beats the guard
  Play(*state, InvokeMove(kKey));
  EXPECT_TRUE(d.seats[A].entered);
  EXPECT_EQ(d.seats[A].token_space[TokenOf(5)], kRoom1);
}

TEST(MorgenlandArtifacts, ScrollNeedsPresenceAndScrollPower) {
  auto state = Start(3, true, {{"scroll_power", "off"}});
  Data& d = state->mutable_data();
  GiveArtifact(d, A, kScroll);
  Put(d, A, 5, kMarket);
  d.space = kMarket;
  d.phase = Phase::kWindow;
  EXPECT_FALSE(state->IsLegal(InvokeMove(kScroll)));
  d.scroll_power = true;
  EXPECT_TRUE(state->IsLegal(InvokeMove(kScroll)));
  d.space = kCaravan;
  EXPECT_FALSE(state->IsLegal(InvokeMove(kScroll)));  // no presence
}

// ---------------------------------------------------------------------------
// Spells: effect and an illegal use

TEST(MorgenlandSpells, AbracadabraTakesAnyArtifactOfTheStack) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kAbracadabra);
  Put(d, A, 1, kRoom1);
  d.seats[A].entered = true;
  d.guard = 5;
  ASSERT_GE(d.face_up[0], 0);  // the vizier turned it up
  EXPECT_FALSE(state->IsLegal(SpellMove(kAbracadabra, 0)));  // only in the buyer window
  const int wanted = d.stack[0][0];
  Tally(*state, kRoom1);
  while (d.phase == Phase::kWindow) Play(*state, PassMove());
  Play(*state, AcceptMove());
  Play(*state, KindMove(0));
  ASSERT_EQ(d.phase, Phase::kBuyer);
  Play(*state, SpellMove(kAbracadabra, 0));
  ASSERT_EQ(d.phase, Phase::kChoose);
  const int face_up = d.face_up[0];
  const int owned_before = d.seats[A].owned[wanted];
  Play(*state, PickArtifactMove(0));
  EXPECT_EQ(d.seats[A].owned[wanted], owned_before + 1);
  EXPECT_EQ(d.face_up[0], face_up);  // the untaken face-up artifact stays
  EXPECT_EQ(d.stack_size[0], 3);
  EXPECT_TRUE(d.set_known[0] >> A & 1);
  EXPECT_FALSE(d.order_known[0] >> A & 1);  // reshuffled
}

TEST(MorgenlandSpells, CounteredAbracadabraReturnsToTheBuyerWindow) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kAbracadabra);
  GiveArtifact(d, C, kCounterspell);
  Put(d, B, 9, kRoom1);
  Put(d, A, 1, kRoom1);
  d.seats[A].entered = d.seats[B].entered = true;
  d.guard = 5;
  const int face_up = d.face_up[0];
  Tally(*state, kRoom1);
  while (d.phase == Phase::kWindow) Play(*state, PassMove());
  ASSERT_EQ(d.active, B);
  Play(*state, PassMove());  // B declines
  ASSERT_EQ(d.active, A);
  Play(*state, AcceptMove());
  Play(*state, KindMove(0));
  ASSERT_EQ(d.phase, Phase::kBuyer);
  Play(*state, SpellMove(kAbracadabra, 0));
  ASSERT_EQ(d.phase, Phase::kCounter);
  ASSERT_EQ(d.active, C);
  Play(*state, CounterMove());
  ASSERT_EQ(d.phase, Phase::kBuyer);
  ASSERT_EQ(d.active, A);
  EXPECT_TRUE(Validate(d).ok()) << Validate(d);
  const int owned = d.seats[A].owned[face_up];
  Play(*state, PassMove());
  EXPECT_EQ(d.seats[A].owned[face_up], owned + 1);
}

TEST(MorgenlandSpells, LastFirstOnlyInATallyWindowNotAtTheGate) {
  auto state = CaveSetup();
  Data& d = state->mutable_data();
  Caster(d, C, kLastFirst);
  EXPECT_FALSE(SpellMoveLegal(d, C, SpellMove(kLastFirst, 0)));  // placement
  Tally(*state, kCaveR);
  ASSERT_EQ(d.active, C);
  Play(*state, SpellMove(kLastFirst, 0));
  EXPECT_EQ(d.seats[C].treasure[0], 3 + 5);
  d.space = kGate;
  d.phase = Phase::kWindow;
  d.last_first = false;
  GiveSpell(d, C, kLastFirst);
  EXPECT_FALSE(SpellMoveLegal(d, C, SpellMove(kLastFirst, 0)));
}

TEST(MorgenlandSpells, CharityTakesThreeUnits) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kCharity);
  Play(*state, SpellMove(kCharity, 0));
  ASSERT_EQ(d.phase, Phase::kTake);
  Play(*state, KindMove(4));
  Play(*state, KindMove(4));
  Play(*state, KindMove(3));
  EXPECT_EQ(d.seats[A].treasure, (std::array<uint8_t, kKinds>{3, 0, 0, 1, 2}));
  EXPECT_EQ(d.phase, Phase::kPlace);
  d.bank = {};
  GiveSpell(d, A, kCharity);
  EXPECT_FALSE(state->IsLegal(SpellMove(kCharity, 0)));  // nothing to take
}

TEST(MorgenlandSpells, CityTaxPerTokenHigherFirst) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kCityTax);
  EXPECT_FALSE(state->IsLegal(SpellMove(kCityTax, 0)));  // no opponent token in the city
  Put(d, B, 9, kMarket);
  Put(d, B, 2, kMarket);
  Put(d, C, 4, kTent);
  Put(d, A, 1, kGate);
  SetTreasure(d, B, {5, 0, 0, 0, 0});
  SetTreasure(d, C, {1, 0, 0, 0, 0});
  Play(*state, SpellMove(kCityTax, 0));
  ASSERT_EQ(d.phase, Phase::kTax);
  ASSERT_EQ(d.active, B);
  Play(*state, AcceptMove());  // pays for the 9
  Play(*state, KindMove(0));
  Play(*state, KindMove(0));
  ASSERT_EQ(d.phase, Phase::kTax);
  Play(*state, PassMove());  // the 2 is set aside
  EXPECT_EQ(d.seats[B].token_space[TokenOf(9)], kMarket);
  EXPECT_EQ(d.seats[B].token_space[TokenOf(2)], kSetAside);
  EXPECT_EQ(d.seats[C].token_space[TokenOf(4)], kSetAside);  // fewer than 2 units
  EXPECT_EQ(d.seats[B].treasure[0], 3);
  EXPECT_EQ(d.phase, Phase::kPlace);
}

TEST(MorgenlandSpells, DonationIllegalWhenNobodyHoldsUnits) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kDonation);
  for (int seat = 0; seat < 3; ++seat) SetTreasure(d, seat, {0, 0, 0, 0, 0});
  EXPECT_FALSE(state->IsLegal(SpellMove(kDonation, 0)));
}

TEST(MorgenlandSpells, SacrificeReturnsSeven) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kSacrifice);
  SetTreasure(d, A, {8, 0, 0, 0, 0});
  SetTreasure(d, B, {7, 0, 0, 0, 0});
  Play(*state, SpellMove(kSacrifice, 0));
  ASSERT_EQ(d.active, A);
  for (int i = 0; i < 7; ++i) Play(*state, KindMove(0));
  EXPECT_EQ(Total(d.seats[A].treasure), 1);
  EXPECT_EQ(Total(d.seats[B].treasure), 0);
  EXPECT_EQ(Total(d.seats[C].treasure), 0);
}

TEST(MorgenlandSpells, SacrificeIllegalWhenNobodyHoldsUnits) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kSacrifice);
  for (int seat = 0; seat < 3; ++seat) SetTreasure(d, seat, {0, 0, 0, 0, 0});
  EXPECT_FALSE(state->IsLegal(SpellMove(kSacrifice, 0)));
  SetTreasure(d, C, {0, 1, 0, 0, 0});
  EXPECT_TRUE(state->IsLegal(SpellMove(kSacrifice, 0)));
}

TEST(MorgenlandSpells, DragonLeavesFillsAnEmptyCave) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kDragonLeaves);
  d.shelves[1] = {2, 0, 0, 0};
  d.bank[1] -= 2;
  EXPECT_FALSE(state->IsLegal(SpellMove(kDragonLeaves, 1)));  // holds units
  EXPECT_FALSE(state->IsLegal(SpellMove(kDragonLeaves, kMarket)));
  Play(*state, SpellMove(kDragonLeaves, 2));
  EXPECT_THAT(d.shelves[2], ElementsAre(4, 2, 0, 0));
  EXPECT_TRUE(SpaceOpenFor(d, A, 2));
}

TEST(MorgenlandSpells, DragonsReturnEmptiesACaveInTheTally) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kDragonsReturn);
  d.shelves[3] = {5, 1, 0, 0};
  d.bank[3] -= 6;
  EXPECT_FALSE(state->IsLegal(SpellMove(kDragonsReturn, 3)));  // placement window
  Put(d, A, 9, kCaveR + 3);
  Put(d, B, 9, kCaveR + 3);
  Tally(*state, kCaveR + 3);
  ASSERT_EQ(d.active, A);
  Play(*state, SpellMove(kDragonsReturn, 3));
  EXPECT_THAT(d.shelves[3], ElementsAre(0, 0, 0, 0));
  EXPECT_EQ(d.seats[A].treasure[3], 0);
}

TEST(MorgenlandSpells, EyeForAnEyeSetsBothAside) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kEyeForAnEye);
  Put(d, A, 1, kMarket);
  Put(d, B, 9, kCaravan);
  constexpr int kRefs = kMaxPlayers * 9 * kSpaces;
  const int hidden_b = (B * 9 + 8) * kSpaces + kCaravan;  // "one of B's face-down tokens"
  const int by_index = (B * 9 + TokenOf(9)) * kSpaces + kCaravan;
  EXPECT_FALSE(state->IsLegal(SpellMove(kEyeForAnEye, TokenOf(1) * kRefs + by_index)));
  EXPECT_FALSE(state->IsLegal(SpellMove(kEyeForAnEye, 8 * kRefs + hidden_b)));  // own is mandatory
  Play(*state, SpellMove(kEyeForAnEye, TokenOf(1) * kRefs + hidden_b));
  EXPECT_EQ(d.seats[A].token_space[TokenOf(1)], kSetAside);
  EXPECT_EQ(d.seats[B].token_space[TokenOf(9)], kSetAside);
}

TEST(MorgenlandSpells, SolarEclipseSetsEvenFaceUpTokensAside) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kSolarEclipse);
  Put(d, B, 6, kMarket, true);
  Put(d, B, 5, kMarket, true);
  Put(d, C, 8, kMarket);  // face down: untouched
  d.seats[C].carpets[kMarket] = 1;
  d.seats[C].invoked[kCarpet] = 1;
  d.seats[C].owned[kCarpet] = 1;
  d.box[kCarpet]--;
  EXPECT_FALSE(state->IsLegal(SpellMove(kSolarEclipse, kCaravan)));  // nothing face up
  Play(*state, SpellMove(kSolarEclipse, kMarket));
  EXPECT_EQ(d.seats[B].token_space[TokenOf(6)], kSetAside);
  EXPECT_EQ(d.seats[B].token_space[TokenOf(5)], kMarket);
  EXPECT_EQ(d.seats[C].token_space[TokenOf(8)], kMarket);
  EXPECT_EQ(d.seats[C].carpets[kMarket], 1);  // carpets unaffected
}

TEST(MorgenlandSpells, LunarEclipseReturnsCarpets) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kLunarEclipse);
  GiveArtifact(d, C, kCarpet);
  d.seats[C].carpets[kMarket] = 1;
  d.seats[C].invoked[kCarpet] = 1;
  Play(*state, SpellMove(kLunarEclipse, kMarket));
  EXPECT_EQ(d.seats[C].carpets[kMarket], 0);
  EXPECT_EQ(d.seats[C].invoked[kCarpet], 1);  // it stays invoked
  EXPECT_FALSE(SpellMoveLegal(d, A, SpellMove(kLunarEclipse, kGate)));
}

TEST(MorgenlandSpells, ApprenticeSwapsAnArtifact) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kApprentice);
  const int there = d.face_up[0];
  const int mine = there == kScroll ? kKey : kScroll;
  EXPECT_FALSE(state->IsLegal(SpellMove(kApprentice, 0 * kArtifactTypes + mine)));  // not owned
  GiveArtifact(d, A, mine);
  Play(*state, SpellMove(kApprentice, 0 * kArtifactTypes + mine));
  EXPECT_EQ(d.face_up[0], mine);
  EXPECT_EQ(d.seats[A].owned[there], there == kLamp ? 2 : 1);
  EXPECT_EQ(d.seats[A].owned[mine], mine == kLamp ? 1 : 0);
}

TEST(MorgenlandSpells, MirageShowsTheStackAndTurnsOneUp) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kMirage);
  const int old_face_up = d.face_up[1];
  const int chosen = d.stack[1][2];
  EXPECT_FALSE(state->IsLegal(SpellMove(kMirage, kMarket)));
  EventLog log;
  ASSERT_TRUE(state->Apply(SpellMove(kMirage, kRoom1 + 1), &log).ok());
  ASSERT_EQ(d.phase, Phase::kChoose);
  // Only the caster's copy of the event lists the artifacts.
  int shown_to_a = 0, shown_to_b = 0;
  for (const auto& event : log.ForSeat(A)) {
    v1::MorgenlandEvent detail;
    if (event.detail().UnpackTo(&detail) && detail.has_shown()) shown_to_a = detail.shown().artifacts_size();
  }
  for (const auto& event : log.ForSeat(B)) {
    v1::MorgenlandEvent detail;
    if (event.detail().UnpackTo(&detail) && detail.has_shown()) shown_to_b = detail.shown().artifacts_size();
  }
  EXPECT_EQ(shown_to_a, 4);
  EXPECT_EQ(shown_to_b, 0);
  Play(*state, PickArtifactMove(2));
  EXPECT_EQ(d.face_up[1], chosen);
  EXPECT_EQ(d.stack[1][0], old_face_up);
  EXPECT_EQ(d.stack_size[1], 4);
  EXPECT_TRUE(d.order_known[1] >> A & 1);
  // The caster's view keeps the stack; another seat's does not.
  v1::View view;
  state->Observe(A, &view);
  v1::MorgenlandView a_view;
  ASSERT_TRUE(view.view().UnpackTo(&a_view));
  EXPECT_EQ(a_view.rooms(1).known_size(), 4);
  state->Observe(B, &view);
  v1::MorgenlandView b_view;
  ASSERT_TRUE(view.view().UnpackTo(&b_view));
  EXPECT_EQ(b_view.rooms(1).known_size(), 0);
}

TEST(MorgenlandSpells, ParasiteCopiesAnOpponentsCarpet) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kParasite);
  Put(d, B, 5, kMarket);
  GiveArtifact(d, B, kCarpet);
  Tally(*state, kMarket);
  ASSERT_EQ(d.active, A);
  EXPECT_FALSE(state->IsLegal(SpellMove(kParasite, 100 * kCarpet)));  // nobody invoked one yet
  EXPECT_FALSE(state->IsLegal(SpellMove(kParasite, 100 * kLamp)));
  Play(*state, PassMove());
  Play(*state, InvokeMove(kCarpet));  // B
  ASSERT_EQ(d.active, A);
  Play(*state, SpellMove(kParasite, 100 * kCarpet));
  EXPECT_EQ(d.seats[A].carpets[kMarket], 1);
  EXPECT_EQ(InvokedCount(d.seats[A]), 1);  // only the Lamp: Parasite does not count
}

TEST(MorgenlandSpells, ParasiteAsACounterOpensItsOwnWindow) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.seats[A].token_space[0] = kInHand;
  Caster(d, A, kTaboo);
  Caster(d, B, kParasite);
  GiveArtifact(d, C, kCounterspell);
  GiveArtifact(d, C, kCounterspell);
  d.seats[C].invoked[kCounterspell] = 1;  // C invoked one earlier this round
  d.seats[C].djinn = true;
  GiveArtifact(d, A, kCounterspell);
  d.seats[A].djinn = true;
  Play(*state, SpellMove(kTaboo, kMarket));
  ASSERT_EQ(d.phase, Phase::kCounter);
  ASSERT_EQ(d.active, B);
  EXPECT_FALSE(state->IsLegal(SpellMove(kParasite, 100 * kCarpet)));
  Play(*state, SpellMove(kParasite, 100 * kCounterspell));
  ASSERT_EQ(d.phase, Phase::kCounter);
  ASSERT_EQ(d.pending_count, 2);
  ASSERT_EQ(d.active, A);  // A may counter the Parasite
  Play(*state, CounterMove());
  // The Parasite is cancelled; the first window continues with C.
  ASSERT_EQ(d.phase, Phase::kCounter);
  ASSERT_EQ(d.active, C);
  Play(*state, PassMove());
  EXPECT_EQ(d.taboo, 1 << kMarket);
  EXPECT_TRUE(d.discards >> kParasite & 1);
  EXPECT_TRUE(Validate(d).ok()) << Validate(d);
}

TEST(MorgenlandSpells, ParasiteCounterCancelsTheSpell) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kTaboo);
  Caster(d, B, kParasite);
  GiveArtifact(d, C, kCounterspell);
  d.seats[C].invoked[kCounterspell] = 1;
  Play(*state, SpellMove(kTaboo, kMarket));
  Play(*state, SpellMove(kParasite, 100 * kCounterspell));
  EXPECT_EQ(d.taboo, 0);
  EXPECT_EQ(d.pending_count, 0);
  EXPECT_TRUE(d.discards >> kTaboo & 1);
  EXPECT_TRUE(d.discards >> kParasite & 1);
  EXPECT_EQ(d.phase, Phase::kPlace);
}

TEST(MorgenlandSpells, SecondChanceMovesAnOwnToken) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kSecondChance);
  Put(d, A, 8, kMarket);
  Put(d, B, 8, kCaravan);
  EXPECT_FALSE(state->IsLegal(SpellMove(kSecondChance, 15 * TokenOf(8) + kGate)));
  EXPECT_FALSE(state->IsLegal(SpellMove(kSecondChance, 15 * TokenOf(9) + kCaravan)));
  Play(*state, SpellMove(kSecondChance, 15 * TokenOf(8) + kCaravan));
  EXPECT_EQ(d.seats[A].token_space[TokenOf(8)], kCaravan);
}

TEST(MorgenlandSpells, SmugglerNeedsAnEmptyCitySpace) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kSmuggler);
  for (int space = kTent; space <= kCaravan; ++space) Put(d, B, kTokenValues[space - kTent], space);
  Put(d, A, 9, kTent);
  Tally(*state, kTent);
  ASSERT_EQ(d.active, A);
  EXPECT_FALSE(state->IsLegal(SpellMove(kSmuggler, 0)));
}

TEST(MorgenlandSpells, SpyMakesOthersPlaceFaceUp) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kSpy);
  d.seats[A].token_space.fill(kInHand);
  d.seats[B].token_space.fill(kInHand);
  Play(*state, SpellMove(kSpy, 0));
  Play(*state, PlaceMove(TokenOf(9), kMarket));
  EXPECT_FALSE(d.seats[A].face_up >> TokenOf(9) & 1);  // the caster still places face down
  ASSERT_EQ(d.active, B);
  Play(*state, PlaceMove(TokenOf(9), kMarket));
  EXPECT_TRUE(d.seats[B].face_up >> TokenOf(9) & 1);
  d.phase = Phase::kWindow;
  d.space = kMarket;
  GiveSpell(d, A, kSpy);
  d.spy = 0;
  EXPECT_FALSE(SpellMoveLegal(d, A, SpellMove(kSpy, 0)));  // placement only
}

TEST(MorgenlandSpells, SultansTaxPerSeat) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kSultansTax);
  EXPECT_FALSE(state->IsLegal(SpellMove(kSultansTax, 0)));
  Put(d, B, 9, kRoom1);
  Put(d, B, 8, kRoom1 + 1);
  Put(d, C, 9, kRoom1);
  SetTreasure(d, C, {0, 0, 0, 0, 0});
  Play(*state, SpellMove(kSultansTax, 0));
  ASSERT_EQ(d.phase, Phase::kTax);
  ASSERT_EQ(d.active, B);
  Play(*state, AcceptMove());
  EXPECT_EQ(d.units_left, 2);
  Play(*state, KindMove(0));
  Play(*state, KindMove(0));
  EXPECT_EQ(d.seats[B].token_space[TokenOf(9)], kRoom1);
  EXPECT_EQ(d.seats[C].token_space[TokenOf(9)], kSetAside);
  EXPECT_EQ(d.phase, Phase::kPlace);
}

TEST(MorgenlandSpells, TabooClosesASpace) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kTaboo);
  d.seats[A].token_space.fill(kInHand);
  EXPECT_FALSE(state->IsLegal(SpellMove(kTaboo, kGate)));
  Play(*state, SpellMove(kTaboo, kMarket));
  EXPECT_FALSE(state->IsLegal(PlaceMove(0, kMarket)));
  EXPECT_TRUE(state->IsLegal(PlaceMove(0, kCaravan)));
}

TEST(MorgenlandSpells, TeleportMovesAnyTokenForTwoUnits) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kTeleport);
  Put(d, B, 9, kMarket);
  const int ref = (B * 9 + 8) * kSpaces + kMarket;
  EXPECT_FALSE(state->IsLegal(SpellMove(kTeleport, ref * kSpaces + kGate)));
  Play(*state, SpellMove(kTeleport, ref * kSpaces + kCaravan));
  ASSERT_EQ(d.phase, Phase::kPay);
  Play(*state, KindMove(0));
  Play(*state, KindMove(0));
  EXPECT_EQ(d.seats[B].token_space[TokenOf(9)], kCaravan);
  EXPECT_EQ(d.seats[A].treasure[0], 1);
  SetTreasure(d, A, {1, 0, 0, 0, 0});
  GiveSpell(d, A, kTeleport);
  EXPECT_FALSE(state->IsLegal(SpellMove(kTeleport, ((B * 9 + 8) * kSpaces + kCaravan) * kSpaces + kMarket)));
}

TEST(MorgenlandSpells, TradeSwapsUpToThree) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, A, kTrade);
  d.seats[A].token_space[0] = kInHand;
  SetTreasure(d, A, {0, 0, 0, 0, 2});
  SetTreasure(d, B, {0, 5, 0, 0, 0});
  EXPECT_FALSE(state->IsLegal(SpellMove(kTrade, B * kKinds + 4)));  // nothing else to give
  Play(*state, SpellMove(kTrade, B * kKinds + 1));
  ASSERT_EQ(d.phase, Phase::kPay);
  EXPECT_EQ(d.units_left, 2);  // min(3, 5, 2)
  EXPECT_THAT(Legal(*state), ElementsAre(KindMove(4)));
  Play(*state, KindMove(4));
  Play(*state, KindMove(4));
  EXPECT_EQ(d.seats[A].treasure, (std::array<uint8_t, kKinds>{0, 2, 0, 0, 0}));
  EXPECT_EQ(d.seats[B].treasure, (std::array<uint8_t, kKinds>{0, 3, 0, 0, 2}));
  EXPECT_TRUE(Validate(d).ok()) << Validate(d);
}

// ---------------------------------------------------------------------------
// Placement and windows

TEST(MorgenlandPlacement, LegalSpaces) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.seats[A].token_space.fill(kInHand);
  d.shelves[1] = {3, 0, 0, 0};
  d.bank[1] -= 3;
  EXPECT_FALSE(state->IsLegal(PlaceMove(0, kCaveR)));  // no units on its shelves
  EXPECT_TRUE(state->IsLegal(PlaceMove(0, kCaveR + 1)));
  EXPECT_TRUE(state->IsLegal(PlaceMove(0, kTent)));
  EXPECT_FALSE(state->IsLegal(PlaceMove(0, kRoom1 + 3)));  // not in play with 3 players
  for (int value : {1, 2, 4, 5, 6}) Put(d, A, value, kRoom1);
  EXPECT_FALSE(state->IsLegal(PlaceMove(TokenOf(9), kRoom1)));  // five tokens already
  EXPECT_TRUE(state->IsLegal(PlaceMove(TokenOf(9), kRoom1 + 1)));
  EXPECT_FALSE(state->IsLegal(PlaceMove(TokenOf(1), kMarket)));  // not in hand
  // A room without artifacts is closed.
  while (d.stack_size[2] > 0) {
    ++d.box[d.stack[2][--d.stack_size[2]]];
    d.stack[2][d.stack_size[2]] = -1;
  }
  ++d.box[d.face_up[2]];
  d.face_up[2] = -1;
  EXPECT_FALSE(state->IsLegal(PlaceMove(TokenOf(9), kRoom1 + 2)));
}

TEST(MorgenlandPlacement, PlacementPassesToTheNextSeatWithTokens) {
  auto state = Start(3, false);
  Data& d = state->mutable_data();
  d.seats[A].token_space[0] = kInHand;
  d.seats[C].token_space[0] = kInHand;
  Play(*state, PlaceMove(0, kMarket));
  EXPECT_EQ(d.active, C);  // B has no token in hand
  Play(*state, PlaceMove(0, kMarket));
  EXPECT_NE(d.phase, Phase::kPlace);  // every hand is empty: the tally ran
}

TEST(MorgenlandWindows, LampAndSpellHolderIsAlwaysAsked) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, B, kSpy);  // Spy cannot be played in a tally window
  Tally(*state, kMarket);
  ASSERT_EQ(d.phase, Phase::kWindow);
  EXPECT_EQ(d.active, B);
  EXPECT_THAT(Legal(*state), ElementsAre(PassMove()));
  Play(*state, PassMove());
  EXPECT_EQ(d.space, kCaravan);  // A and C were passed automatically
  EXPECT_EQ(d.active, B);
}

// ---------------------------------------------------------------------------
// Decks

TEST(MorgenlandDecks, UsedTreasureCardsAreReshuffled) {
  auto state = Start(3, false);
  Data& d = state->mutable_data();
  d.deck = 0;  // every card used
  state->EndRound(nullptr);
  EXPECT_EQ(d.phase, Phase::kPlace);
  EXPECT_GE(d.card, 0);
  EXPECT_EQ(std::popcount(d.deck), kCardsPerDeck - 1);
  EXPECT_TRUE(Validate(d).ok()) << Validate(d);
}

TEST(MorgenlandDecks, SpellDiscardsAreReshuffledAtTheTent) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.discards = d.spell_deck & ~(1u << kSpy);
  d.spell_deck = 1u << kSpy;  // one card left: the discards are reshuffled for the second
  Put(d, A, 9, kTent);
  Tally(*state, kTent);
  ASSERT_EQ(d.phase, Phase::kTent);
  EXPECT_EQ(d.tent[0], kSpy);
  EXPECT_GE(d.tent[1], 0);
  EXPECT_EQ(d.discards, 0u);
  EXPECT_EQ(std::popcount(d.spell_deck), kSpells - 2);
}

TEST(MorgenlandEvents, RevealAndSpellEventsArePublic) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  Caster(d, B, kTaboo);
  Put(d, A, 7, kMarket);
  EventLog log;
  Data& data = state->mutable_data();
  data.space = kMarket;
  state->RevealSpace(&log);
  ASSERT_EQ(d.active, B);
  ASSERT_TRUE(state->Apply(SpellMove(kTaboo, kRoom1), &log).ok());
  bool revealed = false, played = false, resolved = false;
  for (const auto& event : log.ForSeat(C)) {
    v1::MorgenlandEvent detail;
    ASSERT_TRUE(event.detail().UnpackTo(&detail));
    if (detail.has_revealed()) revealed = detail.revealed().tokens(0).value() == 7;
    if (detail.has_spell()) {
      played |= detail.spell().stage() == "played";
      resolved |= detail.spell().stage() == "resolved";
    }
  }
  EXPECT_TRUE(revealed);
  EXPECT_TRUE(played);
  EXPECT_TRUE(resolved);
}

// ---------------------------------------------------------------------------
// Views, events, options

TEST(MorgenlandViews, OthersFaceDownTokensAndStartingPicksAreHidden) {
  auto created = MorgenlandGame().NewGame(3, 5, {});
  ASSERT_TRUE(created.ok());
  State& state = **created;
  EventLog log;
  ASSERT_TRUE(state.Apply(KindMove(2), &log).ok());
  for (const auto& event : log.ForSeat(B)) {
    v1::MorgenlandEvent detail;
    ASSERT_TRUE(event.detail().UnpackTo(&detail));
    EXPECT_EQ(detail.picked().kind(), -1);
  }
  for (int i = 1; i < 9; ++i) ASSERT_TRUE(state.Apply(KindMove(i % 5)).ok());
  ASSERT_TRUE(state.Apply(PlaceMove(TokenOf(9), kMarket), &log).ok());
  v1::View view;
  state.Observe(B, &view);
  v1::MorgenlandView b_view;
  ASSERT_TRUE(view.view().UnpackTo(&b_view));
  ASSERT_EQ(b_view.seats(A).tokens_size(), 1);
  EXPECT_EQ(b_view.seats(A).tokens(0).value(), 0u);
  EXPECT_EQ(b_view.seats(A).tokens(0).space(), kMarket);
  EXPECT_EQ(b_view.seats(A).start().units_size(), 0);
  EXPECT_EQ(b_view.guard(), 0);
  EXPECT_EQ(b_view.rooms(0).known_size(), 0);
  v1::MorgenlandEvent last;
  ASSERT_TRUE(log.ForSeat(B).back().detail().UnpackTo(&last));
  EXPECT_EQ(last.placed().token().value(), 0u);
  ASSERT_TRUE(log.ForSeat(A).back().detail().UnpackTo(&last));
  EXPECT_EQ(last.placed().token().value(), 9u);
}

// Another seat's tokens in a view run by (shown value, space), the hidden ones (value 0)
// first, so the list's order tells nothing the tokens do not; a seat's own run in token order.
TEST(MorgenlandViews, OthersTokensRunByShownValueThenSpace) {
  auto state = MorgenlandGame().NewGame(5, 4, {});
  ASSERT_TRUE(state.ok()) << state.status();
  Rng rng(3);
  std::vector<Move> legal;
  int hidden_seen = 0, shown_seen = 0;
  for (int step = 0; step < 600 && !(*state)->finished(); ++step) {
    for (Seat viewer = 0; viewer < 5; ++viewer) {
      v1::View view;
      (*state)->Observe(viewer, &view);
      v1::MorgenlandView detail;
      ASSERT_TRUE(view.view().UnpackTo(&detail));
      for (int seat = 0; seat < 5; ++seat) {
        const auto& tokens = detail.seats(seat).tokens();
        for (int i = 0; i < tokens.size(); ++i) {
          if (seat == viewer) {
            EXPECT_EQ(tokens[i].index(), static_cast<uint32_t>(i));
            continue;
          }
          (tokens[i].value() == 0 ? hidden_seen : shown_seen)++;
          if (i == 0) continue;
          EXPECT_LE(std::pair(tokens[i - 1].value(), tokens[i - 1].space()),
                    std::pair(tokens[i].value(), tokens[i].space()))
              << "viewer " << viewer << " seat " << seat << " step " << step;
        }
      }
    }
    (*state)->LegalMoves(legal);
    ASSERT_TRUE((*state)->Apply(legal[rng.Below(static_cast<uint32_t>(legal.size()))], nullptr).ok());
  }
  EXPECT_GT(hidden_seen, 0);
  EXPECT_GT(shown_seen, 0);
}

// A view is written by MessageWriter, its unit lists and seats after its other fields: for
// every viewer at every step, both parts must be the bytes protobuf writes for the same fields,
// and the lists must be the state's.
TEST(MorgenlandViews, ViewIsProtobufsOwnBytesWithUnitListsAndSeatsLast) {
  int negative_treasure = 0, negative_spaces = 0;
  for (const bool pro : {false, true}) {
    auto state = MorgenlandGame().NewGame(4, 17, {{"rules", pro ? "pro" : "basic"}});
    ASSERT_TRUE(state.ok()) << state.status();
    testing::PlayRandomly(**state, 18, [&](const State& at) {
      const Data& data = static_cast<const MorgenlandState&>(at).data();
      for (Seat viewer = kNoSeat; viewer < data.players; ++viewer) {
        const auto [bytes, shown] = testing::Observed<v1::MorgenlandView>(at, viewer);
        v1::MorgenlandView written;  // the fields written last, in the order protobuf writes them
        *written.mutable_shelves() = shown.shelves();
        *written.mutable_bank() = shown.bank();
        *written.mutable_seats() = shown.seats();
        if (shown.has_box()) *written.mutable_box() = shown.box();
        v1::MorgenlandView rest = shown;  // the fields before them, in protobuf's order
        rest.clear_shelves();
        rest.clear_bank();
        rest.clear_seats();
        rest.clear_box();
        EXPECT_EQ(bytes, rest.SerializeAsString() + written.SerializeAsString())
            << "the view's bytes are not protobuf's own, unit lists and seats last";
        for (int kind = 0; kind < kKinds; ++kind)
          EXPECT_THAT(shown.shelves(kind).units(), ElementsAreArray(data.shelves[kind]));
        EXPECT_THAT(shown.bank().units(), ElementsAreArray(data.bank));
        ASSERT_EQ(shown.has_box(), data.pro);
        if (data.pro) {
          EXPECT_THAT(shown.box().units(), ElementsAreArray(data.box));
        }
        for (int seat = 0; seat < data.players; ++seat) {
          const v1::MorgenlandSeatView& seat_view = shown.seats(seat);
          const SeatData& s = data.seats[seat];
          EXPECT_THAT(seat_view.owned().units(), ElementsAreArray(s.owned));
          EXPECT_THAT(seat_view.invoked().units(), ElementsAreArray(s.invoked));
          EXPECT_THAT(seat_view.carpets().units(), ElementsAreArray(s.carpets));
          ASSERT_EQ(seat_view.has_start(), seat == viewer);
          if (seat == viewer) {
            EXPECT_THAT(seat_view.treasure().units(), ElementsAreArray(s.treasure));
            EXPECT_THAT(seat_view.start().units(), ElementsAreArray(s.start));
          } else {  // without the hidden starting picks, once they are all made
            for (int kind = 0; kind < kKinds; ++kind)
              EXPECT_EQ(seat_view.treasure().units(kind), s.treasure[kind] - (data.phase == Phase::kPick ? 0 : s.start[kind]));
          }
          negative_treasure += std::ranges::any_of(seat_view.treasure().units(), [](int n) { return n < 0; });
          negative_spaces += std::ranges::count_if(seat_view.tokens(), [](const auto& t) { return t.space() < 0; });
        }
      }
    });
  }
  EXPECT_GT(negative_treasure, 0) << "no shown treasure was negative: a weak test of ten-byte numbers";
  EXPECT_GT(negative_spaces, 0);
}

TEST(MorgenlandViews, ResampleKeepsWhatMirageShowedToItsCaster) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.seats[A].token_space[0] = kInHand;
  Caster(d, A, kMirage);
  Play(*state, SpellMove(kMirage, kRoom1 + 1));
  Play(*state, PickArtifactMove(0));
  const auto stack = d.stack[1];
  bool other_seat_differs = false;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    v1::View view;
    state->Observe(A, &view);
    auto resampled = MorgenlandGame().Resample(view, seed);
    ASSERT_TRUE(resampled.ok()) << resampled.status();
    EXPECT_EQ(static_cast<const MorgenlandState&>(**resampled).data().stack[1], stack);
    state->Observe(B, &view);
    auto for_b = MorgenlandGame().Resample(view, seed);
    ASSERT_TRUE(for_b.ok()) << for_b.status();
    other_seat_differs |= static_cast<const MorgenlandState&>(**for_b).data().stack[1] != stack;
  }
  EXPECT_TRUE(other_seat_differs);
}

TEST(MorgenlandFeatures, PlacementMovesShowWhatTheyGain) {
  auto state = Start(3);
  Data& d = state->mutable_data();
  d.seats[A].token_space.fill(kInHand);
  d.shelves[2] = {6, 2, 0, 0};
  d.bank[2] -= 8;
  v1::View view;
  state->Observe(A, &view);
  const std::vector<Move> moves = {PlaceMove(TokenOf(9), kCaveR + 2), PlaceMove(TokenOf(1), kMarket)};
  Features features;
  ASSERT_TRUE(MorgenlandGame().Featurize(view, moves, &features).ok());
  ASSERT_EQ(features.moves.size(), 2u * features.move_size);
  const float* cave = features.moves.data();
  const float* market = cave + features.move_size;
  EXPECT_GT(cave[60], 0.f);     // units on the cave's top shelf
  EXPECT_EQ(market[60], 0.f);
  EXPECT_GT(cave[17], market[17]);  // token value
}

TEST(MorgenlandOptions, DeclaredWithDefaults) {
  const GameInfo& info = MorgenlandGame().info();
  EXPECT_EQ(info.min_players, 3);
  EXPECT_EQ(info.max_players, 5);
  ASSERT_EQ(info.options.size(), 4u);
  EXPECT_EQ(info.options[0].default_value, "pro");
  EXPECT_EQ(info.options[1].default_value, "take");
  EXPECT_EQ(info.options[2].default_value, "on");
  EXPECT_EQ(info.options[3].default_value, "40");
  EXPECT_FALSE(MorgenlandGame().NewGame(2, 1, {}).ok());
  EXPECT_FALSE(MorgenlandGame().NewGame(3, 1, {{"max_rounds", "100"}}).ok());
}

TEST(MorgenlandOptions, BasicClosesTentAndDjinnAndDealsStacksOfSix) {
  auto state = Start(4, false);
  const Data& d = state->data();
  EXPECT_FALSE(SpaceOpenFor(d, A, kTent));
  EXPECT_FALSE(SpaceOpenFor(d, A, kDjinn));
  for (int room = 0; room < 4; ++room) EXPECT_EQ(d.stack_size[room], 6);
  auto pro = Start(4);
  for (int room = 0; room < 4; ++room)
    EXPECT_EQ(pro->data().stack_size[room] + (pro->data().face_up[room] >= 0), 5);
  EXPECT_EQ(pro->data().seats[A].owned[kLamp], 1);
}

TEST(MorgenlandOptions, ChooseCaravanseraiNamesAnySeat) {
  auto state = Start(3, false, {{"caravanserai", "choose"}});
  Data& d = state->mutable_data();
  Put(d, B, 5, kCaravan);
  Tally(*state, kCaravan);
  ASSERT_EQ(d.phase, Phase::kCaravan);
  EXPECT_THAT(Legal(*state), ElementsAre(SeatMove(0), SeatMove(1), SeatMove(2)));
  Play(*state, SeatMove(C));
  EXPECT_EQ(d.camel, C);
}

TEST(MorgenlandOptions, MaxRoundsEndsTheGame) {
  auto created = MorgenlandGame().NewGame(3, 3, {{"max_rounds", "1"}, {"rules", "basic"}});
  ASSERT_TRUE(created.ok());
  State& state = **created;
  std::vector<Move> moves;
  int steps = 0;
  while (!state.finished() && steps++ < 2000) {
    state.LegalMoves(moves);
    ASSERT_TRUE(state.Apply(moves[0]).ok());  // pass / decline whenever possible
  }
  EXPECT_TRUE(state.finished());
  EXPECT_EQ(static_cast<const MorgenlandState&>(state).data().round, 1);
}

// States and sealed tokens made before format 5 have the same fields in protobuf's order,
// those before format 4 list each seat's token spaces and copies as numbers, those before
// format 3 the unit lists as messages, and those before format 2 each token as a message: the
// engine still reads them, into the same state, at every step of a random game.
TEST(MorgenlandWire, ReadsFormatsOneToFourIntoTheSameState) {
  auto state = MorgenlandGame().NewGame(4, 3, {});
  ASSERT_TRUE(state.ok()) << state.status();
  testing::PlayRandomly(**state, 2, [](const State& now) {
    size_t newer_size = now.Bytes().size();
    for (int versions_back = 1; versions_back <= 4; ++versions_back) {
      const auto old_form = testing::ExpectEarlierFormatReadsBack<v1::MorgenlandState>(now, versions_back);
      EXPECT_EQ(old_form.seats(0).token_places().empty(), versions_back >= 2);  // format 4's bytes
      EXPECT_EQ(old_form.treasury_units().empty(), versions_back >= 3);  // format 3's bytes
      EXPECT_EQ(old_form.seats(0).tokens_size(), versions_back == 4 ? 8 : 0);  // format 1's messages
      const std::string earlier = now.EarlierFormatBytes(versions_back);
      if (versions_back == 1) {  // the same fields in another order
        EXPECT_EQ(newer_size, earlier.size());
        EXPECT_NE(now.Bytes(), earlier);
      } else {
        EXPECT_LT(newer_size, earlier.size());
      }
      newer_size = earlier.size();
    }
    v1::GameState none;
    EXPECT_FALSE(now.SerializeEarlierFormat(5, &none));
  }, /*max_steps=*/600);
}

// A state is written by MessageWriter, its rooms and seats after its other fields: at every
// step of a random game both parts must be the bytes protobuf writes for the same fields.
TEST(MorgenlandWire, StateIsProtobufsOwnBytesWithRoomsAndSeatsLast) {
  int stacked_rooms = 0;
  for (const bool pro : {false, true}) {
    auto state = MorgenlandGame().NewGame(5, 23, {{"rules", pro ? "pro" : "basic"}});
    ASSERT_TRUE(state.ok()) << state.status();
    testing::PlayRandomly(**state, 24, [&](const State& now) {
      v1::GameState bytes;
      now.Serialize(&bytes);
      v1::MorgenlandState parsed;
      ASSERT_TRUE(bytes.state().UnpackTo(&parsed));
      v1::MorgenlandState written;  // the appended fields, in the order protobuf writes them
      *written.mutable_rooms() = parsed.rooms();
      *written.mutable_seats() = parsed.seats();
      ASSERT_EQ(written.seats_size(), 5);
      v1::MorgenlandState rest = parsed;  // the fields before them, also in protobuf's order
      rest.clear_rooms();
      rest.clear_seats();
      EXPECT_EQ(bytes.state().value(), rest.SerializeAsString() + written.SerializeAsString())
          << "the state's bytes are not protobuf's own, rooms and seats last";
      stacked_rooms += std::ranges::count_if(parsed.rooms(), [](const auto& room) { return room.stack_size() > 0; });
    });
  }
  EXPECT_GT(stacked_rooms, 0);
}

// A seat's tokens in two forms at once, face-up bits beyond its 8 tokens, lists or bytes of
// the wrong length, a place or a copy count out of range: refused.
TEST(MorgenlandWire, RefusesTokensInTwoFormsOrOutOfRange) {
  auto state = MorgenlandGame().NewGame(4, 3, {});
  ASSERT_TRUE(state.ok()) << state.status();
  v1::GameState messages, numbers;
  ASSERT_TRUE((*state)->SerializeEarlierFormat(4, &messages));
  ASSERT_TRUE((*state)->SerializeEarlierFormat(2, &numbers));
  v1::MorgenlandState message_form, number_form;
  ASSERT_TRUE(messages.state().UnpackTo(&message_form));
  ASSERT_TRUE(numbers.state().UnpackTo(&number_form));
  const auto refusal = testing::RefusalOfChange<v1::MorgenlandState>(**state);
  const auto refusal_before_4 = testing::RefusalOfChange<v1::MorgenlandState>(**state, /*versions_back=*/2);
  EXPECT_EQ(refusal([](v1::MorgenlandState&) {}), "");
  EXPECT_THAT(refusal([&](v1::MorgenlandState& proto) {
                *proto.mutable_seats(1)->mutable_tokens() = message_form.seats(1).tokens();
              }),
              ::testing::HasSubstr("seat 1 lists its tokens in more than one form"));
  EXPECT_THAT(refusal([&](v1::MorgenlandState& proto) {
                *proto.mutable_seats(2)->mutable_token_spaces() = number_form.seats(2).token_spaces();
              }),
              ::testing::HasSubstr("seat 2 lists its tokens in more than one form"));
  EXPECT_THAT(refusal_before_4([&](v1::MorgenlandState& proto) {
                *proto.mutable_seats(0)->mutable_tokens() = message_form.seats(0).tokens();
              }),
              ::testing::HasSubstr("seat 0 lists its tokens in more than one form"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { proto.mutable_seats(2)->set_face_up_tokens(1u << 8); }),
              ::testing::HasSubstr("seat 2's face-up tokens name unknown tokens"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { proto.mutable_seats(0)->mutable_token_places()->pop_back(); }),
              ::testing::HasSubstr("seat 0's token places must be 16 bytes, not 15"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { (*proto.mutable_seats(3)->mutable_token_places())[2] = 17; }),
              ::testing::HasSubstr("a token's space is 15, outside -2..14"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { (*proto.mutable_seats(3)->mutable_token_places())[9] = 5; }),
              ::testing::HasSubstr("a token's copies is 5, outside 0..4"));
  EXPECT_THAT(refusal_before_4([](v1::MorgenlandState& proto) { proto.mutable_seats(0)->mutable_token_copies()->RemoveLast(); }),
              ::testing::HasSubstr("seat 0 must list the spaces and copies of its 8 tokens"));
}

// Format 3's unit bytes: listed also as messages, of the wrong length or with a value out of
// range, they are refused.
TEST(MorgenlandWire, RefusesUnitsInBothFormsOrOutOfRange) {
  auto state = MorgenlandGame().NewGame(4, 3, {});
  ASSERT_TRUE(state.ok()) << state.status();
  const auto refusal = testing::RefusalOfChange<v1::MorgenlandState>(**state);
  EXPECT_EQ(refusal([](v1::MorgenlandState&) {}), "");
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { proto.mutable_seats(2)->mutable_carpets(); }),
              ::testing::HasSubstr("a seat's units are listed both as messages and as bytes (format 3)"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { proto.mutable_bank(); }),
              ::testing::HasSubstr("the shelves, bank and box are listed both"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { proto.mutable_seats(0)->mutable_units()->pop_back(); }),
              ::testing::HasSubstr("a seat's units must be 37 bytes, not 36"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { proto.mutable_treasury_units()->push_back(0); }),
              ::testing::HasSubstr("the treasury units must be 31 bytes, not 32"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { (*proto.mutable_seats(1)->mutable_units())[5] = 4; }),
              ::testing::HasSubstr("a seat's starting picks entry 0 is 4, outside 0..3"));
  EXPECT_THAT(refusal([](v1::MorgenlandState& proto) { (*proto.mutable_treasury_units())[26] = 6; }),
              ::testing::HasSubstr("the box entry 1 is 6, outside 0..5"));
}

}  // namespace
}  // namespace gavel::morgenland
