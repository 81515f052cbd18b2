// The handlers' response tail and state cache (service/engine_handler.h): the legal moves and
// events a handler encodes behind the response, as the server sends them, parse to exactly
// the response the handler builds without a tail; and a handler that takes its state from the
// cache answers exactly as one that decodes it, as do Apply and LegalMoves on the requests the
// server reads, with the state as bytes (gavel/service/wire_requests.proto). For every game at
// every table size and every step of a random game.
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "gtest/gtest.h"
#include "service/engine_handler.h"
#include "tests/support/test_games.h"

namespace gavel::service {
namespace {

// What a client receives for `response` and `tail`, parsed back.
template <typename Response>
std::string Received(const Response& response, const ResponseTail& tail) {
  std::string bytes(SizeWithTail(response, tail), '\0');
  WriteWithTail(response, tail, reinterpret_cast<uint8_t*>(bytes.data()));
  Response parsed;
  EXPECT_TRUE(parsed.ParseFromString(bytes));
  return parsed.SerializeAsString();
}

// The legal moves and events a response holds as messages.
int Listed(const v1::LegalMovesResponse& response) { return response.moves_size(); }
template <typename Response>
int Listed(const Response& response) {
  return response.legal_moves_size() + response.events_size() + response.seat_events_size();
}

// Runs `handler` on `request` without a tail, with one, and with one and `states`; expects
// the same message received each time, the status, state, moves and events in the tail only,
// the status and the state as protobuf writes them, and returns the response built without a
// tail or cache.
template <typename Response, typename Request, typename Handler>
Response ExpectTailAndCacheChangeNothing(const Handler& handler, const Request& request, StateCache& states) {
  Response with_message, with_tail, with_cache;
  ResponseTail tail, cached_tail;
  EXPECT_TRUE(handler(request, &with_message, nullptr, nullptr, nullptr).ok());
  EXPECT_TRUE(handler(request, &with_tail, nullptr, &tail, nullptr).ok());
  EXPECT_TRUE(handler(request, &with_cache, nullptr, &cached_tail, &states).ok());
  EXPECT_EQ(Received(with_tail, tail), with_message.SerializeAsString());
  EXPECT_EQ(Received(with_cache, cached_tail), with_message.SerializeAsString());
  EXPECT_EQ(Listed(with_tail), 0) << "the moves and events travel in the tail";
  EXPECT_FALSE(with_tail.has_status()) << "the status travels in the tail";
  Response status_only;
  *status_only.mutable_status() = with_message.status();
  EXPECT_TRUE(absl::StrContains(tail.bytes, status_only.SerializeAsString())) << "the status as protobuf writes it";
  if constexpr (requires { with_message.state(); }) {
    EXPECT_TRUE(with_message.has_state());
    EXPECT_FALSE(with_tail.has_state()) << "the state travels in the tail";
    Response state_only;
    *state_only.mutable_state() = with_message.state();
    EXPECT_TRUE(absl::StrContains(tail.bytes, state_only.SerializeAsString())) << "the state as protobuf writes it";
  }
  return with_message;
}

// `request` read as the server reads it, with its state as bytes (`Wire`), and answered by
// `handler` with `states`: expects what a client receives to be `expected`, and the game of
// the state it opened reported.
template <typename Wire, typename Request, typename Response, typename Handler>
void ExpectTheSameFromTheWire(const Handler& handler, const Request& request, const Response& expected,
                              StateCache& states) {
  Wire wire;
  ASSERT_TRUE(wire.ParseFromString(request.SerializeAsString()));
  Response response;
  ResponseTail tail;
  ASSERT_TRUE(handler(wire, &response, nullptr, &tail, &states).ok());
  EXPECT_EQ(Received(response, tail), expected.SerializeAsString());
  EXPECT_EQ(tail.game, request.state().full().game());
}

TEST(ResponseTailAndStateCache, ChangeNothingThatIsReceived) {
  const auto apply = [](const auto& request, auto* response, const Sealer* sealer, ResponseTail* tail,
                        StateCache* states) { return Apply(request, response, sealer, tail, states); };
  const auto legal_moves = [](const auto& request, auto* response, const Sealer* sealer, ResponseTail* tail,
                              StateCache* states) { return LegalMoves(request, response, sealer, tail, states); };
  std::mt19937 random(11);
  v1::Include include;
  include.set_legal_moves(true);
  include.set_mover_view(true);
  for (const auto& [game, players] : testing::EveryTableSize()) {
    SCOPED_TRACE(absl::StrCat(game->name(), " with ", players));
    v1::NewGameRequest request = testing::NewGameRequestFor(*game, players, players * 17);
    *request.mutable_include() = include;
    StateCache states(64);
    const auto created = ExpectTailAndCacheChangeNothing<v1::NewGameResponse>(NewGame, request, states);
    v1::GameState state = created.state();
    std::vector<v1::Move> legal(created.legal_moves().begin(), created.legal_moves().end());
    while (!legal.empty()) {
      v1::ApplyRequest request_to_apply;
      *request_to_apply.mutable_state()->mutable_full() = state;
      *request_to_apply.mutable_move() = legal[random() % legal.size()];
      *request_to_apply.mutable_include() = include;
      request_to_apply.set_per_seat_events(random() % 2 == 0);
      const auto applied = ExpectTailAndCacheChangeNothing<v1::ApplyResponse>(apply, request_to_apply, states);
      ExpectTheSameFromTheWire<ApplyRequestWire>(apply, request_to_apply, applied, states);
      if (applied.status().finished()) break;
      v1::LegalMovesRequest listed;
      *listed.mutable_state()->mutable_full() = applied.state();
      listed.set_seat(applied.status().to_move());
      const auto listed_moves = ExpectTailAndCacheChangeNothing<v1::LegalMovesResponse>(legal_moves, listed, states);
      ExpectTheSameFromTheWire<LegalMovesRequestWire>(legal_moves, listed, listed_moves, states);
      state = applied.state();
      legal.assign(applied.legal_moves().begin(), applied.legal_moves().end());
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(states.misses(), 0) << "every state sent was one a handler had written, found from either form of request";
    EXPECT_GT(states.hits(), 0);
  }
}

}  // namespace
}  // namespace gavel::service
