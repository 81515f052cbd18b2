// The requests the server reads LegalMoves, Apply and Observe into
// (gavel/service/wire_requests.proto): the same fields as their gavel.v1 requests, the full
// state kept as bytes; and the handlers answer them as they answer the public messages, bad
// states included.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/core/registry.h"
#include "gtest/gtest.h"
#include "service/engine_handler.h"
#include "tests/support/test_games.h"

namespace gavel::service {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Expects `wire` to have exactly `public_message`'s fields, number, name, label, presence and
// oneof alike: the field `full` as bytes where the public message has a message, the field
// `state` as a StateRefWire where it has a v1::StateRef, every other field of the same type.
void ExpectTheSameFields(const Descriptor& wire, const Descriptor& public_message) {
  SCOPED_TRACE(public_message.full_name());
  ASSERT_EQ(wire.field_count(), public_message.field_count());
  for (int i = 0; i < public_message.field_count(); ++i) {
    const FieldDescriptor& field = *public_message.field(i);
    const FieldDescriptor* mirror = wire.FindFieldByNumber(field.number());
    ASSERT_NE(mirror, nullptr) << field.name();
    EXPECT_EQ(mirror->name(), field.name());
    EXPECT_EQ(mirror->label(), field.label()) << field.name();
    EXPECT_EQ(mirror->has_presence(), field.has_presence()) << field.name();
    EXPECT_EQ(mirror->real_containing_oneof() == nullptr, field.real_containing_oneof() == nullptr) << field.name();
    if (field.message_type() == v1::StateRef::descriptor()) {
      EXPECT_EQ(mirror->message_type(), StateRefWire::descriptor()) << field.name();
    } else if (field.name() == "full") {
      EXPECT_EQ(field.message_type(), v1::GameState::descriptor());
      EXPECT_EQ(mirror->type(), FieldDescriptor::TYPE_BYTES);
    } else {
      EXPECT_EQ(mirror->type(), field.type()) << field.name();
      EXPECT_EQ(mirror->message_type(), field.message_type()) << field.name();
    }
  }
}

TEST(WireRequests, HaveThePublicRequestsFieldsWithTheFullStateAsBytes) {
  ExpectTheSameFields(*StateRefWire::descriptor(), *v1::StateRef::descriptor());
  ExpectTheSameFields(*LegalMovesRequestWire::descriptor(), *v1::LegalMovesRequest::descriptor());
  ExpectTheSameFields(*ApplyRequestWire::descriptor(), *v1::ApplyRequest::descriptor());
  ExpectTheSameFields(*ObserveRequestWire::descriptor(), *v1::ObserveRequest::descriptor());
}

// The bytes of a request of type `Wire` carrying `state`'s bytes as its full state, `seat`
// and, for Apply, `move`.
template <typename Wire>
std::string RequestBytes(const std::string& state, Seat seat, const v1::Move& move) {
  Wire wire;
  wire.mutable_state()->set_full(state);
  wire.set_seat(seat);
  if constexpr (std::is_same_v<Wire, ApplyRequestWire>) *wire.mutable_move() = move;
  return wire.SerializeAsString();
}

// `bytes` read both ways and answered by `handler`: from the wire form with the cache `states`
// (as the server does), from the public message without one. Bytes whose public message does
// not parse must be refused; otherwise the status, the response and the tail are the same.
template <typename Wire, typename Request, typename Response, typename Handler>
void ExpectTheSameBothWays(const std::string& bytes, const Handler& handler, StateCache& states) {
  SCOPED_TRACE(Request::descriptor()->name());
  Wire wire;
  ASSERT_TRUE(wire.ParseFromString(bytes));
  Response from_wire, expected;
  ResponseTail tail, expected_tail;
  const absl::Status status = handler(wire, &from_wire, &tail, &states);
  Request request;
  if (!request.ParseFromString(bytes)) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_TRUE(tail.bytes.empty());
    return;
  }
  EXPECT_EQ(status, handler(request, &expected, &expected_tail, nullptr));
  if (!status.ok()) return;
  EXPECT_EQ(from_wire.SerializeAsString() + tail.bytes, expected.SerializeAsString() + expected_tail.bytes);
  EXPECT_EQ(tail.game, request.state().full().game());
}

// LegalMoves, Apply and Observe on a request carrying `state`'s bytes, each answered both ways.
void ExpectEveryCallTheSameBothWays(const std::string& state, Seat seat, const v1::Move& move, StateCache& states) {
  const auto legal_moves = [](const auto& in, auto* out, ResponseTail* tail, StateCache* cache) {
    return LegalMoves(in, out, nullptr, tail, cache);
  };
  const auto apply = [](const auto& in, auto* out, ResponseTail* tail, StateCache* cache) {
    return Apply(in, out, nullptr, tail, cache);
  };
  const auto observe = [](const auto& in, auto* out, ResponseTail* tail, StateCache* cache) {
    if constexpr (std::is_same_v<std::decay_t<decltype(in)>, v1::ObserveRequest>) return Observe(in, out, nullptr, cache);
    else return Observe(in, out, nullptr, tail, cache);
  };
  ExpectTheSameBothWays<LegalMovesRequestWire, v1::LegalMovesRequest, v1::LegalMovesResponse>(
      RequestBytes<LegalMovesRequestWire>(state, seat, move), legal_moves, states);
  ExpectTheSameBothWays<ApplyRequestWire, v1::ApplyRequest, v1::ApplyResponse>(
      RequestBytes<ApplyRequestWire>(state, seat, move), apply, states);
  ExpectTheSameBothWays<ObserveRequestWire, v1::ObserveRequest, v1::ObserveResponse>(
      RequestBytes<ObserveRequestWire>(state, seat, move), observe, states);
}

TEST(WireRequests, EveryChangedByteOfAKeptStateIsReadAsWithoutACache) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    StateCache states(64);
    v1::NewGameRequest create = testing::NewGameRequestFor(*game, game->info().min_players, 5);
    create.mutable_include()->set_legal_moves(true);
    v1::NewGameResponse created;
    ASSERT_TRUE(NewGame(create, &created, nullptr, nullptr, &states).ok());
    ASSERT_GT(created.legal_moves_size(), 0);
    const std::string kept = created.state().SerializeAsString();
    const Seat mover = created.status().to_move();
    ExpectEveryCallTheSameBothWays(kept, mover, created.legal_moves(0), states);
    EXPECT_EQ(states.hits(), 3) << "each call finds the state NewGame wrote by its bytes";
    for (size_t at = 0; at < kept.size(); ++at) {
      SCOPED_TRACE(at);
      std::string changed = kept;
      changed[at] = static_cast<char>(changed[at] ^ 0x41);
      ExpectEveryCallTheSameBothWays(changed, mover, created.legal_moves(0), states);
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(states.hits(), 3) << "no changed byte finds the kept state";
  }
}

TEST(WireRequests, AStateThatIsNoGameStateIsRefusedAndNothingKept) {
  StateCache states(64);
  ApplyRequestWire wire;
  wire.mutable_state()->set_full(std::string("\x0a\xff", 2));  // a field longer than the bytes
  wire.mutable_move()->set_id(0);
  v1::ApplyResponse response;
  ResponseTail tail;
  const absl::Status status = Apply(wire, &response, nullptr, &tail, &states);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "the request's state is not a well-formed gavel.v1.GameState");
  EXPECT_TRUE(tail.bytes.empty());
  EXPECT_TRUE(tail.game.empty());
  EXPECT_EQ(states.hits() + states.misses(), 1);
  EXPECT_EQ(Apply(ApplyRequestWire(), &response, nullptr, &tail, &states).message(), "the request carries no state");
}

}  // namespace
}  // namespace gavel::service
