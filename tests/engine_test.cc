// The engine core: RNG, options, ranking helpers, registry.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"
#include "engine/core/ranking.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "engine/core/seating.h"
#include "engine/core/status.h"
#include "gavel/v1/engine.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"

namespace gavel {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PartName, NamesThePartOnlyWhenAnErrorIsFormatted) {
  EXPECT_EQ(PartName("the supply").str(), "the supply");
  EXPECT_EQ(PartName(2, "hand").str(), "seat 2's hand");
  EXPECT_EQ(PartName(1, "edge at position", 3).str(), "seat 1's edge at position 3");
  EXPECT_EQ(PartName(0, "hand", 0).str(), "seat 0's hand 0");
  EXPECT_EQ(PartName::Numbered("cushion", 4).str(), "cushion 4");
  EXPECT_EQ(PartName::Numbered("cushion", 0, "'s card").str(), "cushion 0's card");
  EXPECT_EQ(InvalidInput("sultan", PartName(3, "pile"), " holds a card of value ", 12).message(),
            "sultan: seat 3's pile holds a card of value 12");
  EXPECT_EQ(InvalidInput("carat", "the board lists ", 5, " spaces").code(), absl::StatusCode::kInvalidArgument);
}

// A pooled scratch message keeps what a small input grew in it for the next call on the
// thread, but drops one that held a large input, so no request makes a thread keep its size.
TEST(PooledScratch, KeepsWhatSmallInputsGrewAndDropsLargeOnes) {
  const auto packed_moves = [](int count) {
    v1::LegalMovesResponse moves;
    for (int i = 0; i < count; ++i) moves.add_moves()->set_text(std::string(100, 'x'));
    google::protobuf::Any any;
    any.PackFrom(moves);
    return any;
  };
  const google::protobuf::Any small = packed_moves(20), large = packed_moves(400);
  ASSERT_LT(small.value().size(), 16u << 10);
  ASSERT_GT(large.value().size(), 16u << 10);
  size_t fresh = 0;
  {
    PooledScratch<v1::LegalMovesResponse> scratch;
    fresh = scratch->SpaceUsedLong();
    ASSERT_TRUE(scratch.Unpack(small, "moves").ok());
  }
  {
    PooledScratch<v1::LegalMovesResponse> scratch;  // the cleared message, its 20 moves kept
    EXPECT_EQ(scratch->moves_size(), 0);
    EXPECT_GT(scratch->SpaceUsedLong(), fresh + 20 * 100);
    ASSERT_TRUE(scratch.Unpack(large, "moves").ok());
  }
  {
    PooledScratch<v1::LegalMovesResponse> first;  // the large one was dropped: these two are
    PooledScratch<v1::LegalMovesResponse> second;  // the pool's other message and a new one
    EXPECT_LT(std::max(first->SpaceUsedLong(), second->SpaceUsedLong()), fresh + 400 * 100);
  }
}

// TryUnpack is Any::UnpackTo: the message only if the Any holds that type and its bytes parse.
TEST(TryUnpack, TakesOnlyItsOwnTypeAndWellFormedBytes) {
  v1::Move move;
  move.set_id(7);
  move.set_text("seven");
  google::protobuf::Any any;
  any.PackFrom(move);
  v1::Move unpacked;
  ASSERT_TRUE(TryUnpack(any, &unpacked));
  EXPECT_EQ(unpacked.id(), 7u);
  EXPECT_EQ(unpacked.text(), "seven");
  v1::View other_type;
  EXPECT_FALSE(TryUnpack(any, &other_type));
  EXPECT_FALSE(UnpackAny(any, &other_type, "the view").ok());
  google::protobuf::Any empty_move;  // no bytes, which any message parses: only the type differs
  empty_move.PackFrom(v1::Move());
  EXPECT_TRUE(TryUnpack(empty_move, &unpacked));
  EXPECT_FALSE(TryUnpack(empty_move, &other_type));
  any.set_value("\xff");  // a truncated varint
  EXPECT_FALSE(TryUnpack(any, &unpacked));
  EXPECT_FALSE(UnpackAny(any, &unpacked, "the move").ok());
}

TEST(ClearReusedBuffer, KeepsASmallBuffersCapacityAndDropsALargeOne) {
  std::string small(1000, 'x');
  const size_t small_capacity = small.capacity();
  ClearReusedBuffer(&small);
  EXPECT_TRUE(small.empty());
  EXPECT_EQ(small.capacity(), small_capacity);
  std::string large(100 << 10, 'x');
  ClearReusedBuffer(&large);
  EXPECT_TRUE(large.empty());
  EXPECT_LE(large.capacity(), 64u << 10);
}

TEST(EventLog, ClearedForgetsEveryEvent) {
  EventLog log;
  log.Emit(kEveryone, v1::GameStatus(), "before");
  log.Clear();
  log.Emit(OnlySeat(1), v1::GameStatus(), "after");
  ASSERT_EQ(log.size(), 1u);
  const std::vector<v1::Event> all = log.All(2);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].text(), "after");
  EXPECT_TRUE(log.ForSeat(0).empty());
}

// MessageWriter writes what protobuf writes for the same fields in field order: numbers
// negative, zero, of one byte and of several; arrays of bytes with and without high ones;
// strings, signed scalars and nested messages.
TEST(MessageWriter, WritesProtobufsOwnBytes) {
  std::array<uint8_t, 1024> buffer;
  const auto written = [&buffer](const auto& write) {
    MessageWriter writer(buffer.data());
    write(writer);
    return std::string(writer.bytes());
  };
  const auto include = [](const auto& seats) {
    v1::Include out;
    out.set_legal_moves(true);
    for (auto seat : seats) out.add_view_seats(seat);
    out.set_state_hash(true);
    return out.SerializeAsString();
  };
  const auto write_include = [](const auto& seats) {
    return [&seats](MessageWriter& out) {
      out.Bool(v1::Include::kLegalMovesFieldNumber, true);
      out.Bool(v1::Include::kMoverViewFieldNumber, false);
      out.Packed(v1::Include::kViewSeatsFieldNumber, seats);
      out.Bool(v1::Include::kStateHashFieldNumber, true);
    };
  };
  const std::vector<std::vector<int32_t>> lists = {
      {}, {0}, {1, 127, 128, 300, -1, -200}, {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}};
  for (const auto& seats : lists) EXPECT_EQ(written(write_include(seats)), include(seats));
  std::array<uint8_t, 21> bytes;
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(6 * i);  // 0 to 120
  EXPECT_EQ(written(write_include(bytes)), include(bytes));
  for (size_t high : {0, 7, 8, 20}) {
    std::array<uint8_t, 21> with_high = bytes;
    with_high[high] = 200;
    EXPECT_EQ(written(write_include(with_high)), include(with_high)) << high;
  }

  v1::NewGameRequest request;
  request.set_game("carat");
  request.set_players(-3);
  EXPECT_EQ(written([](MessageWriter& out) {
              out.Bytes(v1::NewGameRequest::kGameFieldNumber, "carat");
              out.Int32(v1::NewGameRequest::kPlayersFieldNumber, -3);
            }),
            request.SerializeAsString());

  v1::ApplyRequest apply;
  apply.mutable_include()->add_view_seats(2);
  std::array<uint8_t, 64> inner_buffer;
  MessageWriter inner(inner_buffer.data());
  inner.Packed(v1::Include::kViewSeatsFieldNumber, std::array<int32_t, 1>{2});
  EXPECT_EQ(written([&inner](MessageWriter& out) { out.Message(v1::ApplyRequest::kIncludeFieldNumber, inner); }),
            apply.SerializeAsString());
}

// The service copies an EventLog's bytes into responses as they are: they must be the bytes
// protobuf writes for the same events, with and without a detail's value, a text, a seat in
// the audience, at seat 0 (whose SeatEvents leaves its seat out) and past the table's seats.
TEST(EventLog, WritesProtobufsOwnBytes) {
  struct Emitted {
    SeatMask audience;
    v1::GameStatus detail;
    std::string text;
  };
  std::vector<Emitted> emitted(4);
  emitted[0] = {kEveryone, {}, "everybody sees this"};
  emitted[1].audience = OnlySeat(0) | OnlySeat(2);
  emitted[1].detail.set_to_move(-1);
  emitted[1].detail.add_results()->set_score(300);
  emitted[2] = {OnlySeat(1), {}, std::string(200, 'x')};
  emitted[2].detail.set_seats(7);
  emitted[3] = {OnlySeat(5), {}, ""};
  EventLog log;
  for (const Emitted& event : emitted) log.Emit(event.audience, event.detail, event.text);
  ASSERT_EQ(log.size(), emitted.size());

  const int seats = 3;
  const auto as_message = [&](const Emitted& event, bool visible_to) {
    v1::Event message;
    PackAny(event.detail, message.mutable_detail());
    message.set_text(event.text);
    for (Seat seat = 0; seat < seats && visible_to; ++seat)
      if (event.audience & OnlySeat(seat)) message.add_visible_to(seat);
    return message;
  };
  v1::ApplyResponse expected;
  for (Seat seat = 0; seat < seats; ++seat) {
    v1::SeatEvents* seat_events = expected.add_seat_events();
    seat_events->set_seat(seat);
    for (const Emitted& event : emitted)
      if (event.audience & OnlySeat(seat)) *seat_events->add_events() = as_message(event, false);
  }
  for (const Emitted& event : emitted) *expected.add_events() = as_message(event, true);
  std::string written;
  for (Seat seat = 0; seat < seats; ++seat)
    log.AppendSeatEvents(v1::ApplyResponse::kSeatEventsFieldNumber, seat, &written);
  log.AppendAll(v1::ApplyResponse::kEventsFieldNumber, seats, &written);
  v1::ApplyResponse events_only, seat_events_only;
  *events_only.mutable_events() = expected.events();
  *seat_events_only.mutable_seat_events() = expected.seat_events();
  EXPECT_EQ(written, seat_events_only.SerializeAsString() + events_only.SerializeAsString());

  std::vector<v1::Event> all = log.All(seats);
  ASSERT_EQ(all.size(), emitted.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].SerializeAsString(), expected.events(static_cast<int>(i)).SerializeAsString());
  const std::vector<v1::Event> second_seat = log.ForSeat(1);
  ASSERT_EQ(second_seat.size(), 2u);
  EXPECT_EQ(second_seat[1].text(), emitted[2].text);
  EXPECT_TRUE(log.ForSeat(kMaxSeats).empty());
}

// A spectator sees events for everybody and the public forms of private ones, never those
// for chosen seats, even when they name every seat at the table.
TEST(SeatMask, ASpectatorSeesEverybodysEventsAndPublicForms) {
  EXPECT_TRUE(SpectatorSees(kEveryone));
  SeatMask all_seats = 0;
  for (Seat seat = 0; seat < kMaxSeats; ++seat) {
    EXPECT_TRUE(SpectatorSees(AllBut(seat)));
    EXPECT_FALSE(SpectatorSees(OnlySeat(seat)));
    all_seats |= OnlySeat(seat);
  }
  EXPECT_FALSE(SpectatorSees(all_seats));
}

TEST(Rng, SameStateSameSequence) {
  Rng a(Rng::FromSeed(42)), b(Rng::FromSeed(42)), c(Rng::FromSeed(43));
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    EXPECT_NE(x, c.Next());
  }
}

TEST(Rng, KnownValuesPinTheAlgorithm) {
  // SplitMix64 from state 0: the reference outputs. Changing them breaks every replay.
  Rng rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.Next(), 0x6E789E6AA1B965F4ull);
}

TEST(Rng, BelowCoversTheRangeEvenly) {
  Rng rng(7);
  std::array<int, 6> counts{};
  for (int i = 0; i < 60000; ++i) ++counts[rng.Below(6)];
  for (int count : counts) EXPECT_NEAR(count, 10000, 500);
}

TEST(Rng, PickWeightedFollowsCounts) {
  Rng rng(9);
  const std::array<int, 3> weights = {0, 1, 3};
  std::array<int, 3> counts{};
  for (int i = 0; i < 40000; ++i) ++counts[rng.PickWeighted(weights.data(), 3, 4)];
  EXPECT_EQ(counts[0], 0);
  EXPECT_NEAR(counts[1], 10000, 600);
  EXPECT_NEAR(counts[2], 30000, 600);
}

TEST(Rng, PickMemberDrawsOnlyMembersEvenly) {
  Rng rng(11);
  const uint64_t set = (uint64_t{1} << 3) | (uint64_t{1} << 40) | (uint64_t{1} << 63);
  std::map<int, int> counts;
  for (int i = 0; i < 30000; ++i) ++counts[rng.PickMember(set)];
  ASSERT_EQ(counts.size(), 3u);
  for (int member : {3, 40, 63}) EXPECT_NEAR(counts[member], 10000, 500) << member;
}

TEST(Options, DefaultsUnknownNamesAndBadValues) {
  const std::vector<OptionSpec> specs = {
      {"ranking", "", {"dense", "competition"}, 0, 0, "dense"},
      {"max_rounds", "", {}, 0, 99, "40"},
  };
  auto resolved = Options::Resolve(specs, {{"max_rounds", "12"}});
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->Get("ranking"), "dense");
  EXPECT_EQ(resolved->GetInt("max_rounds"), 12);
  EXPECT_THAT(std::string(Options::Resolve(specs, {{"colour", "x"}}).status().message()),
              HasSubstr("unknown option 'colour'"));
  EXPECT_THAT(std::string(Options::Resolve(specs, {{"ranking", "x"}}).status().message()),
              HasSubstr("dense, competition"));
  EXPECT_FALSE(Options::Resolve(specs, {{"max_rounds", "100"}}).ok());
  EXPECT_FALSE(Options::Resolve(specs, {{"max_rounds", "1x"}}).ok());
}

TEST(Ranking, CompetitionAndDense) {
  const std::vector<int> values = {10, 10, 8, 7};
  EXPECT_THAT(CompetitionRanks(values), ElementsAre(1, 1, 3, 4));
  EXPECT_THAT(DenseRanks(values), ElementsAre(1, 1, 2, 3));
}

// Over (k - 1)! consecutive indices: every cyclic order of k members once, the first member
// first, and so every member directly after every other one (k - 2)! times.
TEST(Seating, CyclicOrdersCoverEveryOrderAndBalanceNeighbours) {
  for (int k = 1; k <= 6; ++k) {
    SCOPED_TRACE(k);
    std::vector<int> members;
    for (int i = 0; i < k; ++i) members.push_back(10 + i);
    const uint64_t count = CyclicOrderCount(k);
    std::set<std::vector<int>> orders;
    std::map<std::pair<int, int>, int> after;  // (member, the one before it) -> times
    for (uint64_t index = 0; index < count; ++index) {
      const std::vector<int> order = CyclicOrder(members, index);
      ASSERT_EQ(order.size(), members.size());
      EXPECT_EQ(order.front(), members.front());
      EXPECT_TRUE(std::is_permutation(order.begin(), order.end(), members.begin()));
      orders.insert(order);
      for (int s = 0; s < k && k > 1; ++s) ++after[{order[s], order[(s + k - 1) % k]}];
      EXPECT_EQ(CyclicOrder(members, index + count), order);  // the index wraps
    }
    EXPECT_EQ(orders.size(), count);
    EXPECT_EQ(CyclicOrder(members, 0), members);
    if (k < 2) continue;
    EXPECT_EQ(after.size(), static_cast<size_t>(k * (k - 1)));  // never after itself
    for (const auto& [pair, times] : after) EXPECT_EQ(times, k == 2 ? 1 : static_cast<int>(CyclicOrderCount(k - 1)));
  }
  EXPECT_EQ(CyclicOrderCount(5), 24u);
}

// Six deals of four members, each in its four rotations: every member holds every seat 6
// times and sits directly after every other member 8 times. (Rotations alone would keep one
// order: member 0 always after member 3.)
TEST(Seating, DealsInTheirRotationsBalanceSeatsAndNeighbours) {
  const std::vector<int> members = {0, 1, 2, 3};
  std::map<std::pair<int, int>, int> at_seat, after;
  for (uint64_t deal = 0; deal < 6; ++deal) {
    for (int rotation = 0; rotation < 4; ++rotation) {
      const std::vector<int> seated = Seated(members, deal, rotation);
      ASSERT_EQ(seated.size(), 4u);
      for (size_t s = 0; s < 4; ++s) {
        ++at_seat[{seated[s], static_cast<int>(s)}];
        ++after[{seated[s], seated[(s + 3) % 4]}];
      }
    }
  }
  EXPECT_EQ(at_seat.size(), 16u);
  for (const auto& [pair, times] : at_seat) EXPECT_EQ(times, 6) << pair.first << " at " << pair.second;
  EXPECT_EQ(after.size(), 12u);
  for (const auto& [pair, times] : after) EXPECT_EQ(times, 8) << pair.first << " after " << pair.second;
}

TEST(Registry, EveryGameHasAUniqueNameAndValidInfo) {
  std::set<std::string> names;
  ASSERT_FALSE(AllGames().empty());
  for (const Game* game : AllGames()) {
    EXPECT_TRUE(names.insert(game->name()).second) << game->name();
    EXPECT_EQ(FindGame(game->name()), game);
    EXPECT_LE(game->info().min_players, game->info().max_players);
    for (const OptionSpec& spec : game->info().options)
      EXPECT_TRUE(Options::Resolve(game->info().options, {{spec.name, spec.default_value}}).ok());
  }
  EXPECT_EQ(FindGame("chess"), nullptr);
}

// A sealed token carries the game's state message without its type URL; the server takes
// the URL from the game's info when it opens one.
TEST(Registry, StateTypeUrlIsTheOneEveryStatePacks) {
  for (const Game* game : AllGames()) {
    auto state = game->NewGame(game->info().min_players, 7, {});
    ASSERT_TRUE(state.ok()) << state.status();
    v1::GameState wire;
    (*state)->Serialize(&wire);
    EXPECT_EQ(wire.state().type_url(), game->info().state_type_url) << game->name();
    EXPECT_TRUE(absl::StartsWith(game->info().state_type_url, "type.googleapis.com/gavel.v1.")) << game->name();
  }
}

// The pooled scratch messages (engine/core/proto_util.h) rely on Clear() keeping singular
// sub-messages, which protobuf's C++ does only for fields declared `optional`; a field
// without it would still work, but allocate on every request again.
void ExpectOptionalSubMessages(const google::protobuf::Descriptor& message, std::vector<std::string>* missing) {
  for (int i = 0; i < message.field_count(); ++i) {
    const google::protobuf::FieldDescriptor& field = *message.field(i);
    if (field.cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE || field.is_repeated() ||
        field.real_containing_oneof() != nullptr)
      continue;
    if (!field.has_optional_keyword()) missing->push_back(field.full_name());
  }
  for (int i = 0; i < message.nested_type_count(); ++i) ExpectOptionalSubMessages(*message.nested_type(i), missing);
}

TEST(Registry, GameMessagesDeclareTheirSingularSubMessagesOptional) {
  for (const Game* game : AllGames()) {
    const std::string type = std::string(absl::StripPrefix(game->info().state_type_url, "type.googleapis.com/"));
    const google::protobuf::Descriptor* state =
        google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(type);
    ASSERT_NE(state, nullptr) << type;
    std::vector<std::string> missing;
    for (int i = 0; i < state->file()->message_type_count(); ++i)
      ExpectOptionalSubMessages(*state->file()->message_type(i), &missing);
    EXPECT_THAT(missing, ::testing::IsEmpty()) << game->name();
  }
}

// So do a legal move's and a view's Any, which play-outs describe and observe at every turn
// into reused messages (policy::Turn, learn::PlayToEnd).
TEST(Registry, MovesAndViewsDeclareTheirGameMessageOptional) {
  std::vector<std::string> missing;
  ExpectOptionalSubMessages(*v1::Move::descriptor(), &missing);
  ExpectOptionalSubMessages(*v1::View::descriptor(), &missing);
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

TEST(Registry, ListsExactlyTheGamesOfTheBuildInItsOrder) {
  // GAVEL_BUILD_GAMES: the games this test was built with (GAVEL_GAMES, comma-separated).
  const std::vector<std::string> built = absl::StrSplit(GAVEL_BUILD_GAMES, ',');
  EXPECT_EQ(GameNames(), built);
}

TEST(Registry, ObserveFillsTheEnvelopeAroundEveryGamesView) {
  for (const Game* game : AllGames()) {
    for (int players = game->info().min_players; players <= game->info().max_players; ++players) {
      auto state = game->NewGame(players, 7, {});
      ASSERT_TRUE(state.ok()) << state.status();
      for (Seat seat = 0; seat < (*state)->seats(); ++seat) {
        v1::View view;
        (*state)->Observe(seat, &view);
        EXPECT_EQ(view.game(), game->name());
        EXPECT_EQ(view.seat(), seat);
        EXPECT_EQ(view.seats(), (*state)->seats()) << game->name() << " " << players;
        EXPECT_FALSE(view.view().type_url().empty());
      }
    }
  }
}

TEST(Registry, NewGameChecksPlayersAndOptions) {
  for (const Game* game : AllGames()) {
    EXPECT_EQ(game->NewGame(game->info().max_players + 1, 1, {}).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(game->NewGame(game->info().min_players, 1, {{"no_such_option", "1"}}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace gavel
