// The decoded-state cache (service/state_cache.h): found only by exactly the bytes it was
// kept under, bounded, and behind the handlers it turns nothing unvalidated into a state.
#include "service/state_cache.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/engine_handler.h"
#include "tests/support/random_play.h"
#include "tests/support/test_games.h"

namespace gavel::service {
namespace {

// The bytes the cache keys `state` by: its state message's.
std::string Bytes(const State& state) {
  v1::GameState proto;
  state.Serialize(&proto);
  return proto.state().value();
}

// The first `count` states of random games of `game`, each with its bytes.
std::vector<std::pair<std::string, std::unique_ptr<State>>> States(const Game& game, size_t count) {
  std::vector<std::pair<std::string, std::unique_ptr<State>>> out;
  for (uint64_t seed = 1; out.size() < count; ++seed) {
    auto state = *game.NewGame(game.info().min_players, seed, {});
    testing::PlayRandomly(*state, seed, [&out, count](const State& now) {
      if (out.size() < count) out.emplace_back(Bytes(now), now.Clone());
    });
  }
  return out;
}

TEST(StateCache, FindsACopyByExactlyTheBytesItWasKeptUnder) {
  const Game& game = testing::TestGame();
  auto states = States(game, 2);
  StateCache cache(64);
  EXPECT_EQ(cache.Find(game, KeptAs::kFullState, states[0].first), nullptr);
  cache.Add(KeptAs::kFullState, states[0].first, states[0].second->Clone());
  const auto found = cache.Find(game, KeptAs::kFullState, states[0].first);
  ASSERT_NE(found, nullptr);
  EXPECT_NE(found.get(), states[0].second.get());
  EXPECT_EQ(Bytes(*found), states[0].first);
  std::string changed = states[0].first;
  changed.back() ^= 1;
  EXPECT_EQ(cache.Find(game, KeptAs::kFullState, changed), nullptr);
  EXPECT_EQ(cache.Find(game, KeptAs::kFullState, states[0].first + '\0'), nullptr);
  EXPECT_EQ(cache.Find(game, KeptAs::kFullState, states[1].first), nullptr);
  EXPECT_EQ(cache.Find(game, KeptAs::kSealedToken, states[0].first), nullptr) << "the same bytes, another kind";
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 5);
}

TEST(StateCache, AnotherGamesStateIsNotFound) {
  const Game& game = testing::TestGame();
  const Game* other = nullptr;
  for (const Game* candidate : AllGames())
    if (candidate != &game) other = candidate;
  ASSERT_NE(other, nullptr);
  auto states = States(game, 1);
  StateCache cache(64);
  cache.Add(KeptAs::kFullState, states[0].first, std::move(states[0].second));
  EXPECT_EQ(cache.Find(*other, KeptAs::kFullState, states[0].first), nullptr);
  EXPECT_NE(cache.Find(game, KeptAs::kFullState, states[0].first), nullptr);
}

TEST(StateCache, HoldsAtMostItsCapacityTheNewestKept) {
  const Game& game = testing::TestGame();
  constexpr size_t kCapacity = 32;
  auto states = States(game, 10 * kCapacity);
  StateCache cache(kCapacity);
  for (auto& [bytes, state] : states) cache.Add(KeptAs::kFullState, bytes, state->Clone());
  size_t held = 0;
  for (const auto& [bytes, state] : states) held += cache.Find(game, KeptAs::kFullState, bytes) != nullptr;
  EXPECT_LE(held, kCapacity);
  EXPECT_GE(held, kCapacity / 4) << "each shard keeps its newest";
  EXPECT_NE(cache.Find(game, KeptAs::kFullState, states.back().first), nullptr) << "the newest is held";
  EXPECT_EQ(cache.Find(game, KeptAs::kFullState, states.front().first), nullptr) << "the oldest went";
}

TEST(StateCache, OfCapacityZeroHoldsNothing) {
  const Game& game = testing::TestGame();
  auto states = States(game, 1);
  StateCache cache(0);
  cache.Add(KeptAs::kFullState, states[0].first, std::move(states[0].second));
  EXPECT_EQ(cache.Find(game, KeptAs::kFullState, states[0].first), nullptr);
}

// Handler threads share one cache: whatever a thread finds is the state of the bytes it
// asked for, while others keep adding and replacing.
TEST(StateCache, ThreadsFindOnlyTheStateOfTheirBytes) {
  const Game& game = testing::TestGame();
  const auto states = States(game, 256);
  StateCache cache(64);  // small: entries are replaced all the time
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0}, found{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      for (int i = 0; i < 4000; ++i) {
        const auto& [bytes, state] = states[random() % states.size()];
        if (random() % 2 == 0) {
          cache.Add(KeptAs::kFullState, bytes, state->Clone());
        } else if (const auto copy = cache.Find(game, KeptAs::kFullState, bytes)) {
          ++found;
          if (Bytes(*copy) != bytes) ++wrong;
        }
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(found, 0);
}

// A request whose state is not exactly a kept one is decoded and validated as without a
// cache: the same error, and nothing kept from it.
TEST(StateCache, BytesNotKeptAreValidatedAsWithoutACache) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    StateCache states(64);
    v1::NewGameResponse created;
    ASSERT_TRUE(NewGame(testing::NewGameRequestFor(*game, game->info().min_players, 7), &created, nullptr, nullptr,
                        &states).ok());
    std::vector<v1::Move> moves;
    {
      v1::LegalMovesRequest listed;
      *listed.mutable_state()->mutable_full() = created.state();
      listed.set_seat(created.status().to_move());
      v1::LegalMovesResponse response;
      ASSERT_TRUE(LegalMoves(listed, &response).ok());
      moves.assign(response.moves().begin(), response.moves().end());
    }
    for (const std::string& garbage : {std::string("\xff"), std::string("\x08\x80", 2)}) {
      v1::ApplyRequest apply;
      *apply.mutable_state()->mutable_full() = created.state();
      apply.mutable_state()->mutable_full()->mutable_state()->mutable_value()->append(garbage);
      *apply.mutable_move() = moves.front();
      v1::ApplyResponse without, with;
      const absl::Status expected = Apply(apply, &without);
      EXPECT_FALSE(expected.ok());
      EXPECT_EQ(Apply(apply, &with, nullptr, nullptr, &states), expected);
    }
    // The same bytes under another message type are not the kept state either.
    v1::ApplyRequest apply;
    *apply.mutable_state()->mutable_full() = created.state();
    apply.mutable_state()->mutable_full()->mutable_state()->set_type_url("type.googleapis.com/gavel.v1.Nothing");
    *apply.mutable_move() = moves.front();
    v1::ApplyResponse without, with;
    const absl::Status expected = Apply(apply, &without);
    EXPECT_FALSE(expected.ok());
    EXPECT_EQ(Apply(apply, &with, nullptr, nullptr, &states), expected);
    EXPECT_EQ(states.hits(), 0);
  }
}

// A new sealed table of the test game, its state kept in `states`, with the first legal moves.
v1::NewGameResponse NewSealedTable(const Sealer& sealer, StateCache& states) {
  const Game& game = testing::TestGame();
  v1::NewGameRequest request = testing::NewGameRequestFor(game, game.info().min_players, 9);
  request.set_seal(true);
  request.mutable_include()->set_legal_moves(true);
  v1::NewGameResponse created;
  EXPECT_TRUE(NewGame(request, &created, &sealer, nullptr, &states).ok());
  return created;
}

// The owner's Apply of `move` at the sealed table in `token`, asking for the next legal moves.
v1::ApplyRequest SealedApply(const std::string& token, const v1::NewGameResponse& created, const v1::Move& move) {
  v1::ApplyRequest apply;
  apply.mutable_state()->mutable_sealed()->set_token(token);
  apply.mutable_state()->mutable_sealed()->set_seat_capability(created.sealed().owner_capability());
  *apply.mutable_move() = move;
  apply.mutable_include()->set_legal_moves(true);
  return apply;
}

// A sealed table's next call finds the state its last one wrote, by the token it returned.
TEST(StateCache, ASealedTablesNextCallFindsItsState) {
  const Sealer sealer(*KeyRing::Parse(KeyRing::NewKeyLine(1, true)));
  StateCache states(64);
  const v1::NewGameResponse created = NewSealedTable(sealer, states);
  ASSERT_GT(created.legal_moves_size(), 0);
  std::string token = created.sealed().token();
  v1::Move move = created.legal_moves(0);
  for (int turn = 0; turn < 5; ++turn) {
    const v1::ApplyRequest apply = SealedApply(token, created, move);
    v1::ApplyResponse cached, decoded;
    ASSERT_TRUE(Apply(apply, &cached, &sealer, nullptr, &states).ok());
    ASSERT_TRUE(Apply(apply, &decoded, &sealer).ok());
    EXPECT_EQ(cached.status().SerializeAsString(), decoded.status().SerializeAsString());
    EXPECT_EQ(cached.legal_moves_size(), decoded.legal_moves_size());
    if (cached.status().finished()) break;
    token = cached.token();
    move = cached.legal_moves(0);
  }
  EXPECT_EQ(states.misses(), 0);
  EXPECT_GE(states.hits(), 5);
}

// A sealed Apply through `states` and without a cache: the same status, and the same new
// token when it succeeds.
absl::Status ExpectTheSameWithoutTheCache(const v1::ApplyRequest& apply, const Sealer& sealer, StateCache& states) {
  v1::ApplyResponse cached, decoded;
  const absl::Status status = Apply(apply, &cached, &sealer, nullptr, &states);
  EXPECT_EQ(status, Apply(apply, &decoded, &sealer));
  EXPECT_EQ(cached.token(), decoded.token());
  return status;
}

// A token is found only by its exact bytes and only under the key ring that sealed it:
// one changed byte misses, and once the key file changes the token is opened again, and
// refused once its key is retired, though the cache still holds its state.
TEST(StateCache, ATokenIsFoundOnlyAsWrittenUnderTheKeysThatSealedIt) {
  const std::string path = ::testing::TempDir() + "/state_cache_keys";
  const auto write = [&path](const std::string& text) {
    std::ofstream(path + ".new") << text;
    std::filesystem::rename(path + ".new", path);
  };
  const std::string key1 = KeyRing::NewKeyLine(1, true), key2 = KeyRing::NewKeyLine(2, true);
  write(key1);
  auto sealer = Sealer::FromFile(path, /*poll_ms=*/0);
  ASSERT_TRUE(sealer.ok()) << sealer.status();
  StateCache states(64);
  const v1::NewGameResponse created = NewSealedTable(**sealer, states);
  ASSERT_GT(created.legal_moves_size(), 0);
  const v1::ApplyRequest apply = SealedApply(created.sealed().token(), created, created.legal_moves(0));

  v1::ApplyRequest changed = apply;
  changed.mutable_state()->mutable_sealed()->mutable_token()->back() ^= 1;
  EXPECT_EQ(ExpectTheSameWithoutTheCache(changed, **sealer, states).code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(states.hits(), 0);
  ASSERT_TRUE(ExpectTheSameWithoutTheCache(apply, **sealer, states).ok());
  EXPECT_EQ(states.hits(), 1);

  // A new primary beside key 1: the token under key 1 is opened again, not found.
  write(absl::StrCat(key1.substr(0, key1.rfind(" primary")), "\n", key2, "\n"));
  ASSERT_TRUE((*sealer)->ReloadIfChanged());
  ASSERT_TRUE(ExpectTheSameWithoutTheCache(apply, **sealer, states).ok());
  EXPECT_EQ(states.hits(), 1);

  // Key 1 retired: refused as without a cache.
  write(key2);
  ASSERT_TRUE((*sealer)->ReloadIfChanged());
  const absl::Status refused = ExpectTheSameWithoutTheCache(apply, **sealer, states);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(refused.message()), ::testing::HasSubstr("key 1, which this server does not hold"));
  EXPECT_EQ(states.hits(), 1);
}

// A sealed table's state is found only through its token: a full state whose bytes equal
// the key it is kept under (the token and the key ring's version, both known to any seat)
// is decoded as any other, and so refused, never handed out as the owner's.
TEST(StateCache, ASealedTablesKeyIsNoFullState) {
  const Sealer sealer(*KeyRing::Parse(KeyRing::NewKeyLine(1, true)));
  StateCache states(64);
  const v1::NewGameResponse created = NewSealedTable(sealer, states);
  const Game& game = testing::TestGame();
  v1::ObserveRequest observe;
  v1::GameState* full = observe.mutable_state()->mutable_full();
  full->set_game(game.name());
  full->mutable_state()->set_type_url(game.info().state_type_url);
  full->mutable_state()->set_value(SealedStateKey(created.sealed().token(), sealer.KeyRingVersion()));
  observe.set_seat(1);
  v1::ObserveResponse response;
  const absl::Status status = Observe(observe, &response, &sealer, &states);
  EXPECT_FALSE(status.ok()) << "a seat's hidden view: " << response.ShortDebugString();
  EXPECT_EQ(states.hits(), 0);
}

}  // namespace
}  // namespace gavel::service
