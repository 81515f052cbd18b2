// The engine server end to end: a real server process on loopback, clients that play
// whole games through the RPCs, every kind of bad input, health and graceful shutdown.
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <random>

#include "engine/core/hash.h"
#include "engine/core/registry.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "gavel/v1/engine.grpc.pb.h"
#if GAVEL_HAS_GAME_sultan
#include "gavel/v1/sultan.pb.h"
#endif
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "tests/support/child_process.h"
#include "tests/support/http_get.h"
#include "tests/support/test_games.h"

namespace gavel {
namespace {

using ::gavel::testing::ChildProcess;
using ::gavel::testing::TestGame;
using ::gavel::testing::TestPlayers;
using ::testing::HasSubstr;

struct Server {
  ChildProcess process;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::Engine::Stub> stub;
  int metrics_port = 0;  // with kMetricsFlag
};

constexpr char kMetricsFlag[] = "--metrics_listen=127.0.0.1:0";

Server StartServer(std::vector<std::string> extra_flags = {}) {
  std::vector<std::string> argv = {GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0",
                                   "--max_message_bytes=65536", "--log_level=warn"};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  auto process = ChildProcess::Start(argv);
  EXPECT_TRUE(process.ok()) << process.status();
  int metrics_port = 0;
  if (std::find(extra_flags.begin(), extra_flags.end(), kMetricsFlag) != extra_flags.end()) {
    constexpr absl::string_view kLine = "metrics on port ";
    auto line = process->WaitForLine(std::string(kLine));
    EXPECT_TRUE(line.ok()) << line.status();
    metrics_port = std::atoi(line->c_str() + kLine.size());
  }
  auto port = process->WaitForPort();
  EXPECT_TRUE(port.ok()) << port.status();
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", *port),
                                     grpc::InsecureChannelCredentials());
  return Server{std::move(*process), channel, v1::Engine::NewStub(channel), metrics_port};
}

class EngineServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new Server(StartServer()); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  v1::Engine::Stub& stub() { return *server_->stub; }

  // A new game of TestGame() with `players` players, or the nearest count it allows.
  v1::GameState NewTestGame(int players, uint64_t seed) {
    v1::NewGameRequest request;
    request.set_game(TestGame().name());
    request.set_players(TestPlayers(players));
    request.set_seed(seed);
    v1::NewGameResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(stub().NewGame(&context, request, &response).ok());
    return response.state();
  }

  grpc::Status Apply(const v1::GameState& state, const v1::Move& move, v1::ApplyResponse* out,
                     std::optional<int> seat = std::nullopt, bool per_seat_events = false,
                     const v1::Include* include = nullptr) {
    v1::ApplyRequest request;
    *request.mutable_state()->mutable_full() = state;
    *request.mutable_move() = move;
    if (seat) request.set_seat(*seat);
    request.set_per_seat_events(per_seat_events);
    if (include) *request.mutable_include() = *include;
    grpc::ClientContext context;
    return stub().Apply(&context, request, out);
  }

  std::vector<v1::Move> Legal(const v1::GameState& state, int seat, grpc::Status* status = nullptr) {
    v1::LegalMovesRequest request;
    *request.mutable_state()->mutable_full() = state;
    request.set_seat(seat);
    v1::LegalMovesResponse response;
    grpc::ClientContext context;
    grpc::Status result = stub().LegalMoves(&context, request, &response);
    if (status) *status = result;
    return {response.moves().begin(), response.moves().end()};
  }

  v1::View View(const v1::GameState& state, int seat) {
    v1::ObserveRequest request;
    *request.mutable_state()->mutable_full() = state;
    request.set_seat(seat);
    v1::ObserveResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(stub().Observe(&context, request, &response).ok());
    return response.view();
  }

  // A response that included legal moves, every view and the hash against LegalMoves,
  // Observe and the hash of the state's deterministic bytes.
  template <typename Response>
  void ExpectIncludedEqualsSeparateCalls(const Response& response) {
    const v1::GameState& state = response.state();
    const v1::GameStatus& status = response.status();
    std::vector<v1::Move> expected_moves;
    if (!status.finished()) expected_moves = Legal(state, status.to_move());
    ASSERT_EQ(response.legal_moves_size(), static_cast<int>(expected_moves.size()));
    for (size_t i = 0; i < expected_moves.size(); ++i)
      EXPECT_EQ(response.legal_moves(static_cast<int>(i)).SerializeAsString(),
                expected_moves[i].SerializeAsString());
    ASSERT_EQ(response.views_size(), status.seats());
    for (int seat = 0; seat < status.seats(); ++seat)
      EXPECT_EQ(response.views(seat).SerializeAsString(), View(state, seat).SerializeAsString())
          << "seat " << seat;
    std::string bytes;
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    state.SerializeToCodedStream(&coded);
    coded.Trim();
    EXPECT_EQ(response.state_hash(), Fnv1a64(bytes));
  }

  static Server* server_;
};

Server* EngineServerTest::server_ = nullptr;

TEST_F(EngineServerTest, ListsEveryGameWithPlayersAndOptions) {
  v1::ListGamesResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(stub().ListGames(&context, {}, &response).ok());
  ASSERT_EQ(response.games_size(), static_cast<int>(AllGames().size()));
  const GameInfo& first = AllGames().front()->info();
  EXPECT_EQ(response.games(0).name(), first.name);
  EXPECT_EQ(response.games(0).min_players(), first.min_players);
  EXPECT_EQ(response.games(0).max_players(), first.max_players);
}

// Plays complete games of every game through the RPCs: the two smallest tables (for
// Moonlight Market, solo and two humans) and the largest.
TEST_F(EngineServerTest, PlaysWholeGamesOfEveryGameThroughTheRpcs) {
  std::mt19937 random(3);
  for (const Game* game : AllGames()) {
    const GameInfo& info = game->info();
    for (int players : {info.min_players, info.min_players + 1, info.max_players}) {
      SCOPED_TRACE(absl::StrCat(game->name(), " with ", players));
      v1::NewGameRequest request;
      request.set_game(game->name());
      request.set_players(players);
      request.set_seed(77);
      request.set_per_seat_events(true);
      v1::NewGameResponse created;
      grpc::ClientContext context;
      ASSERT_TRUE(stub().NewGame(&context, request, &created).ok());
      v1::GameState state = created.state();
      v1::GameStatus status = created.status();
      int moves = 0;
      while (!status.finished()) {
        ASSERT_LT(++moves, 50000);
        const int seat = status.to_move();
        const int other = (seat + 1) % status.seats();
        if (!created.status().results(other).automaton() && other != seat) {
          EXPECT_TRUE(Legal(state, other).empty()) << "only the seat to move has moves";
        }
        std::vector<v1::Move> legal = Legal(state, seat);
        ASSERT_FALSE(legal.empty());
        v1::Move chosen = legal[random() % legal.size()];
        if (moves % 3 == 0) chosen.clear_detail();  // the id alone is enough
        else if (moves % 5 == 0) chosen.set_id(0);  // and so is the detail alone
        v1::ApplyResponse applied;
        grpc::Status result = Apply(state, chosen, &applied, seat);
        ASSERT_TRUE(result.ok()) << result.error_message();
        state = applied.state();
        status = applied.status();
        if (moves % 7 == 0) {
          v1::ObserveRequest observe;
          *observe.mutable_state()->mutable_full() = state;
          observe.set_seat(seat);
          v1::ObserveResponse view;
          grpc::ClientContext observe_context;
          ASSERT_TRUE(stub().Observe(&observe_context, observe, &view).ok());
          EXPECT_EQ(view.view().seat(), seat);
        }
      }
      int winners = 0;
      for (const auto& result : status.results()) winners += result.rank() == 1;
      EXPECT_GE(winners, 1);
      v1::ApplyResponse after;
      EXPECT_EQ(Apply(state, Legal(created.state(), created.status().to_move())[0], &after).error_code(),
                grpc::StatusCode::FAILED_PRECONDITION);
    }
  }
}

// The one-call turn: what NewGame and Apply include about the new state is exactly what the
// separate calls answer, at every step of a random game of every game at every table size.
TEST_F(EngineServerTest, IncludedMovesViewsEventsAndHashEqualTheSeparateCalls) {
  std::mt19937 random(5);
  v1::Include include;
  include.set_legal_moves(true);
  include.set_all_views(true);
  include.set_state_hash(true);
  for (const auto& [game, players] : testing::EveryTableSize()) {
    SCOPED_TRACE(absl::StrCat(game->name(), " with ", players));
    v1::NewGameRequest request = testing::NewGameRequestFor(*game, players, players * 31);
    request.set_per_seat_events(true);
    *request.mutable_include() = include;
    v1::NewGameResponse created;
    grpc::ClientContext context;
    ASSERT_TRUE(stub().NewGame(&context, request, &created).ok());
    ExpectIncludedEqualsSeparateCalls(created);
    v1::GameState state = created.state();
    v1::GameStatus status = created.status();
    std::vector<v1::Move> legal(created.legal_moves().begin(), created.legal_moves().end());
    while (!status.finished()) {
      const v1::Move move = legal[random() % legal.size()];
      v1::ApplyResponse plain, combined;
      ASSERT_TRUE(Apply(state, move, &plain, std::nullopt, /*per_seat_events=*/true).ok());
      ASSERT_TRUE(Apply(state, move, &combined, std::nullopt, true, &include).ok());
      ExpectIncludedEqualsSeparateCalls(combined);
      EXPECT_EQ(combined.state().SerializeAsString(), plain.state().SerializeAsString());
      ASSERT_EQ(combined.seat_events_size(), plain.seat_events_size());
      for (int i = 0; i < plain.seat_events_size(); ++i)
        EXPECT_EQ(combined.seat_events(i).SerializeAsString(),
                  plain.seat_events(i).SerializeAsString());
      state = combined.state();
      status = combined.status();
      legal.assign(combined.legal_moves().begin(), combined.legal_moves().end());
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_TRUE(legal.empty());
  }
}

TEST_F(EngineServerTest, IncludeAsksOnlyForWhatItNamesAndChecksItsSeats) {
  const v1::GameState state = NewTestGame(3, 2);
  const v1::Move move = Legal(state, 0)[0];
  v1::ApplyResponse response;
  ASSERT_TRUE(Apply(state, move, &response).ok());
  EXPECT_EQ(response.legal_moves_size(), 0);
  EXPECT_EQ(response.views_size(), 0);
  EXPECT_EQ(response.state_hash(), 0u);

  v1::Include include;
  include.set_mover_view(true);
  include.add_view_seats(response.status().to_move());  // asked twice, sent once
  ASSERT_TRUE(Apply(state, move, &response, std::nullopt, false, &include).ok());
  ASSERT_EQ(response.views_size(), 1);
  EXPECT_EQ(response.views(0).seat(), response.status().to_move());

  include.add_view_seats(99);
  const grpc::Status status = Apply(state, move, &response, std::nullopt, false, &include);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("seat 99 is out of range"));
}

TEST_F(EngineServerTest, ResampleGivesAStateConsistentWithTheView) {
  const v1::GameState state = NewTestGame(4, 5);
  v1::ObserveRequest observe;
  *observe.mutable_state()->mutable_full() = state;
  observe.set_seat(2);
  v1::ObserveResponse view;
  grpc::ClientContext context;
  ASSERT_TRUE(stub().Observe(&context, observe, &view).ok());
  v1::ResampleRequest resample;
  *resample.mutable_view() = view.view();
  resample.set_seed(9);
  v1::ResampleResponse resampled;
  grpc::ClientContext resample_context;
  ASSERT_TRUE(stub().Resample(&resample_context, resample, &resampled).ok());
  *observe.mutable_state()->mutable_full() = resampled.state();
  v1::ObserveResponse again;
  grpc::ClientContext again_context;
  ASSERT_TRUE(stub().Observe(&again_context, observe, &again).ok());
  EXPECT_EQ(again.view().SerializeAsString(), view.view().SerializeAsString());
}

// An Apply of exactly `bytes`; the response's bytes to `out`.
grpc::Status RawApply(grpc::Channel& channel, const std::string& bytes, std::string* out = nullptr) {
  grpc::GenericStub generic(channel.shared_from_this());
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::ClientContext context;
  std::promise<grpc::Status> done;
  generic.UnaryCall(&context, "/gavel.v1.Engine/Apply", grpc::StubOptions(), &request, &response,
                    [&](grpc::Status status) { done.set_value(status); });
  const grpc::Status status = done.get_future().get();
  if (out != nullptr && status.ok()) {
    std::vector<grpc::Slice> parts;
    EXPECT_TRUE(response.Dump(&parts).ok());
    out->clear();
    for (const grpc::Slice& part : parts) out->append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  return status;
}

// Every bad input gets its status code and a message that says what is wrong.
TEST_F(EngineServerTest, GarbageBytesAreInvalidArgument) {
  const grpc::Status status = RawApply(*server_->channel, "\xff\xff\xff\x01not a protobuf");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("not a well-formed gavel.v1.ApplyRequest"));
}

// The server parses a request straight from its bytes when gRPC hands them over in one slice
// and through a reader when in several (a request larger than an HTTP/2 frame, checked to
// fail with the reader's path broken): the same answer.
TEST_F(EngineServerTest, ARequestInManySlicesIsReadAsInOne) {
  v1::NewGameRequest new_game;
  new_game.set_game(TestGame().name());
  new_game.set_players(TestPlayers(3));
  new_game.set_seed(5);
  new_game.mutable_include()->set_legal_moves(true);
  v1::NewGameResponse created;
  grpc::ClientContext context;
  ASSERT_TRUE(stub().NewGame(&context, new_game, &created).ok());
  ASSERT_GT(created.legal_moves_size(), 0);
  v1::ApplyRequest request;
  *request.mutable_state()->mutable_full() = created.state();
  request.mutable_move()->set_id(created.legal_moves(0).id());
  std::string in_one;
  ASSERT_TRUE(RawApply(*server_->channel, request.SerializeAsString(), &in_one).ok());
  // An unknown field of 50,000 bytes (the server ignores it) makes the request span frames.
  std::string padded = request.SerializeAsString();
  google::protobuf::io::StringOutputStream stream(&padded);
  {
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(google::protobuf::internal::WireFormatLite::MakeTag(
        1000, google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    coded.WriteVarint32(50000);
    coded.WriteString(std::string(50000, 'p'));
  }
  std::string in_many;
  ASSERT_TRUE(RawApply(*server_->channel, padded, &in_many).ok());
  EXPECT_EQ(in_many, in_one);
}

TEST_F(EngineServerTest, TruncatedAndForeignStatesAreInvalidArgument) {
  const v1::GameState state = NewTestGame(3, 1);
  std::vector<v1::Move> legal = Legal(state, 0);
  ASSERT_FALSE(legal.empty());
  v1::ApplyResponse response;

  v1::GameState truncated = state;
  truncated.mutable_state()->set_value(state.state().value().substr(0, state.state().value().size() / 3));
  grpc::Status status = Apply(truncated, legal[0], &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();

  v1::GameState foreign = state;
  foreign.mutable_state()->PackFrom(v1::GameInfo());
  status = Apply(foreign, legal[0], &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("must be a " + gavel::testing::TypeName(state.state())));

  v1::GameState unknown = state;
  unknown.set_game("chess");
  status = Apply(unknown, legal[0], &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("unknown game 'chess'"));

  v1::ApplyRequest empty;
  grpc::ClientContext context;
  status = stub().Apply(&context, empty, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("no state"));
}

#if GAVEL_HAS_GAME_sultan
TEST_F(EngineServerTest, StateBreakingTheRulesIsInvalidArgument) {
  const v1::GameState state = NewTestGame(3, 1);
  v1::SultanState sultan;
  ASSERT_TRUE(state.state().UnpackTo(&sultan));
  sultan.mutable_bag()->set_blue(sultan.bag().blue() - 1);  // a jewel vanished
  v1::GameState broken = state;
  broken.mutable_state()->PackFrom(sultan);
  grpc::Status status;
  Legal(broken, 0, &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("jewels of colour 5"));

  ASSERT_TRUE(state.state().UnpackTo(&sultan));
  sultan.set_start_player(2);  // not whose turn it can be
  broken.mutable_state()->PackFrom(sultan);
  Legal(broken, 0, &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}
#endif

TEST_F(EngineServerTest, IllegalMovesWrongSeatsAndBadRequests) {
  const v1::GameState state = NewTestGame(3, 1);
  v1::ApplyResponse response;
  const std::vector<v1::Move> legal_moves = Legal(state, 0);
  v1::Move illegal;
  while (std::any_of(legal_moves.begin(), legal_moves.end(),
                     [&](const v1::Move& move) { return move.id() == illegal.id(); }))
    illegal.set_id(illegal.id() + 1);
  grpc::Status status = Apply(state, illegal, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("not legal"));

  const v1::Move legal = Legal(state, 0)[0];
  status = Apply(state, legal, &response, /*seat=*/1);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("seat 0's turn"));
  status = Apply(state, legal, &response, /*seat=*/9);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("out of range"));

  Legal(state, -1, &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  v1::Move mismatched = legal;
  mismatched.set_id(legal.id() + 1);
  status = Apply(state, mismatched, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("does not match"));

  v1::Move wrong_type;
  wrong_type.mutable_detail()->PackFrom(v1::GameInfo());
  status = Apply(state, wrong_type, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  const GameInfo& info = TestGame().info();
  v1::NewGameRequest request;
  request.set_game(info.name);
  request.set_players(info.max_players + 1);
  v1::NewGameResponse created;
  grpc::ClientContext context;
  status = stub().NewGame(&context, request, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr(absl::StrCat(info.min_players, " to ", info.max_players, " players")));
  request.set_players(info.min_players);
  (*request.mutable_options())["speed"] = "fast";
  grpc::ClientContext option_context;
  status = stub().NewGame(&option_context, request, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("unknown option 'speed'"));

  v1::ApplyRequest sealed;
  sealed.mutable_state()->mutable_sealed()->set_token("opaque");
  grpc::ClientContext sealed_context;
  status = stub().Apply(&sealed_context, sealed, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);

  v1::ApplyRequest huge;
  *huge.mutable_state()->mutable_full() = state;
  huge.mutable_move()->set_text(std::string(100000, 'x'));
  grpc::ClientContext huge_context;
  status = stub().Apply(&huge_context, huge, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

#if GAVEL_HAS_GAME_sultan
TEST_F(EngineServerTest, EventsAreFilteredPerSeat) {
  v1::NewGameRequest request;
  request.set_game("sultan");
  request.set_players(3);
  request.set_seed(4);
  request.set_per_seat_events(true);
  v1::NewGameResponse created;
  grpc::ClientContext context;
  ASSERT_TRUE(stub().NewGame(&context, request, &created).ok());
  ASSERT_EQ(created.seat_events_size(), 3);
  for (const v1::SeatEvents& seat_events : created.seat_events()) {
    for (const v1::Event& event : seat_events.events()) {
      v1::SultanEvent detail;
      ASSERT_TRUE(event.detail().UnpackTo(&detail));
      if (detail.has_hand_drawn() && detail.hand_drawn().seat() != seat_events.seat()) {
        EXPECT_EQ(detail.hand_drawn().cards_size(), 0) << "another seat's cards leaked";
      }
    }
  }
}
#endif

// The metrics endpoint serves the Prometheus text format with calls by RPC, game and status
// code; game labels stay bounded whatever names clients send.
TEST(EngineServerMetrics, CountsCallsErrorsAndLatencyPerRpcAndGame) {
  Server server = StartServer({kMetricsFlag});
  const int metrics_port = server.metrics_port;
  v1::Engine::Stub* stub = server.stub.get();
  const std::string game_name = TestGame().name();
  v1::NewGameRequest request;
  request.set_players(TestPlayers(3));
  v1::NewGameResponse response;
  for (const std::string& game : {game_name, game_name, std::string("no-such-game-1"),
                                 std::string("no-such-game-2")}) {
    request.set_game(game);
    grpc::ClientContext context;
    stub->NewGame(&context, request, &response);
  }
  {  // refused for a known game: counted apart from that game's successful calls
    request.set_game(game_name);
    request.set_players(99);
    grpc::ClientContext context;
    EXPECT_EQ(stub->NewGame(&context, request, &response).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  auto body = gavel::testing::HttpGet(metrics_port, "/metrics");
  ASSERT_TRUE(body.ok()) << body.status();
  const std::string game_label = absl::StrCat("game=\"", game_name, "\"");
  EXPECT_THAT(*body, HasSubstr(absl::StrCat("gavel_engine_calls_total{code=\"OK\",", game_label,
                                            ",rpc=\"NewGame\"} 2")));
  EXPECT_THAT(*body, HasSubstr("gavel_engine_calls_total{code=\"INVALID_ARGUMENT\",game=\"other\",rpc=\"NewGame\"} 2"));
  EXPECT_THAT(*body, HasSubstr(absl::StrCat("gavel_engine_calls_total{code=\"INVALID_ARGUMENT\",", game_label,
                                            ",rpc=\"NewGame\"} 1")));
  EXPECT_THAT(*body, HasSubstr(absl::StrCat("gavel_engine_call_seconds_bucket{", game_label,
                                            ",rpc=\"NewGame\"")));
  EXPECT_THAT(*body, HasSubstr(absl::StrCat("gavel_engine_games_started_total{", game_label, "} 2")));
  EXPECT_THAT(*body, ::testing::Not(HasSubstr("no-such-game")));
}

// Each Apply of a table played through the server finds the state the previous call wrote
// in the server's cache, as its metrics count; a cache size out of range stops the server.
TEST(EngineServerStateCache, ATablesNextCallFindsItsStateAndBadSizesAreRefused) {
  Server server = StartServer({kMetricsFlag});
  const int metrics_port = server.metrics_port;
  v1::Engine::Stub* stub = server.stub.get();
  v1::NewGameRequest request = gavel::testing::NewGameRequestFor(TestGame(), TestPlayers(3), 5);
  request.mutable_include()->set_legal_moves(true);
  v1::NewGameResponse created;
  grpc::ClientContext context;
  ASSERT_TRUE(stub->NewGame(&context, request, &created).ok());
  v1::GameState state = created.state();
  v1::Move move = created.legal_moves(0);
  constexpr int kMoves = 5;
  for (int i = 0; i < kMoves; ++i) {
    v1::ApplyRequest apply;
    *apply.mutable_state()->mutable_full() = state;
    *apply.mutable_move() = move;
    apply.mutable_include()->set_legal_moves(true);
    v1::ApplyResponse applied;
    grpc::ClientContext apply_context;
    ASSERT_TRUE(stub->Apply(&apply_context, apply, &applied).ok());
    ASSERT_FALSE(applied.status().finished());
    state = applied.state();
    move = applied.legal_moves(0);
  }
  auto body = gavel::testing::HttpGet(metrics_port, "/metrics");
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_THAT(*body, HasSubstr(absl::StrCat("gavel_engine_state_cache_lookups_total{result=\"hit\"} ", kMoves)));
  EXPECT_THAT(*body, HasSubstr("gavel_engine_state_cache_lookups_total{result=\"miss\"} 0"));

  for (const char* size : {"--state_cache_entries=-1", "--state_cache_entries=1048577"}) {
    auto refused = ChildProcess::Start({GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0", size});
    ASSERT_TRUE(refused.ok());
    auto exit_code = refused->Wait();
    ASSERT_TRUE(exit_code.ok()) << exit_code.status();
    EXPECT_EQ(*exit_code, 2) << size;
  }
}

// A server with a key file (made by gavel-engine itself) serves sealed tables over gRPC:
// each seat plays with its own capability, and metrics name the game the token carries.
TEST(EngineServerSealing, PlaysASealedTableWithAKeyFileFromTheServer) {
  auto keygen = ChildProcess::Start({GAVEL_ENGINE_BINARY, "--new_sealing_key=9"});
  ASSERT_TRUE(keygen.ok());
  auto key_line = keygen->WaitForLine("9 ");
  ASSERT_TRUE(key_line.ok()) << key_line.status();
  EXPECT_THAT(*key_line, ::testing::EndsWith(" primary"));
  const std::string key_file = ::testing::TempDir() + "/engine_sealing_keys";
  std::ofstream(key_file) << *key_line << "\n";

  Server server = StartServer({kMetricsFlag, "--sealing_keys=" + key_file});
  const int metrics_port = server.metrics_port;
  v1::Engine::Stub* stub = server.stub.get();
  v1::NewGameRequest request;
  request.set_game(TestGame().name());
  request.set_players(TestPlayers(3));
  request.set_seal(true);
  request.mutable_include()->set_legal_moves(true);
  v1::NewGameResponse created;
  grpc::ClientContext context;
  ASSERT_TRUE(stub->NewGame(&context, request, &created).ok());
  ASSERT_EQ(created.sealed().seat_capabilities_size(), created.status().seats());
  std::string token = created.sealed().token();
  v1::GameStatus status = created.status();
  std::vector<v1::Move> legal(created.legal_moves().begin(), created.legal_moves().end());
  int moves = 0;
  while (!status.finished()) {
    v1::ApplyRequest apply;
    apply.mutable_state()->mutable_sealed()->set_token(token);
    apply.mutable_state()->mutable_sealed()->set_seat_capability(
        created.sealed().seat_capabilities(status.to_move()));
    *apply.mutable_move() = legal.front();
    apply.mutable_include()->set_legal_moves(true);
    v1::ApplyResponse applied;
    grpc::ClientContext apply_context;
    ASSERT_TRUE(stub->Apply(&apply_context, apply, &applied).ok());
    ASSERT_FALSE(applied.has_state());
    token = applied.token();
    status = applied.status();
    ++moves;
    if (!status.finished() && applied.legal_moves_size() == 0) {
      // The next mover is another seat: it asks with its own capability.
      v1::LegalMovesRequest ask;
      ask.mutable_state()->mutable_sealed()->set_token(token);
      ask.mutable_state()->mutable_sealed()->set_seat_capability(
          created.sealed().seat_capabilities(status.to_move()));
      ask.set_seat(status.to_move());
      v1::LegalMovesResponse answer;
      grpc::ClientContext ask_context;
      ASSERT_TRUE(stub->LegalMoves(&ask_context, ask, &answer).ok());
      legal.assign(answer.moves().begin(), answer.moves().end());
    } else {
      legal.assign(applied.legal_moves().begin(), applied.legal_moves().end());
    }
  }
  auto body = gavel::testing::HttpGet(metrics_port, "/metrics");
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_THAT(*body, HasSubstr(absl::StrCat("gavel_engine_calls_total{code=\"OK\",game=\"",
                                            TestGame().name(), "\",rpc=\"Apply\"} ", moves)));
  EXPECT_THAT(*body, ::testing::Not(HasSubstr(key_line->substr(2, 12))));
}

// A key file that does not parse stops the server at start, without quoting the key.
TEST(EngineServerSealing, RefusesToStartWithABrokenKeyFile) {
  const std::string key_file = ::testing::TempDir() + "/broken_sealing_keys";
  std::ofstream(key_file) << "1 c2VjcmV0LWJ1dC10b28tc2hvcnQ= primary\n";
  auto process = ChildProcess::Start({GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0",
                                      "--sealing_keys=" + key_file});
  ASSERT_TRUE(process.ok());
  auto exit_code = process->Wait();
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 1);
}

// SIGTERM: health turns NOT_SERVING, calls in flight finish, the process exits 0.
// A peer's bytes that the libraries complain about (protobuf: a string that is not UTF-8)
// leave no line in the engine's log at its default level: the server routes protobuf's and
// gRPC's lines through its own log (service/library_logs.h).
TEST(EngineServerLogs, APeersBadBytesLeaveNoLineAtTheDefaultLevel) {
  // The engine with its stderr (the log) on the stdout the test reads.
  auto process = ChildProcess::Start({"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", GAVEL_ENGINE_BINARY,
                                      "--listen=127.0.0.1:0"});
  ASSERT_TRUE(process.ok()) << process.status();
  auto port = process->WaitForPort();
  ASSERT_TRUE(port.ok()) << port.status();
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", *port), grpc::InsecureChannelCredentials());
  // ApplyRequest{state: StateRef{full: GameState{game: "\xff"}}}.
  const std::string not_utf8("\x0a\x05\x0a\x03\x0a\x01\xff", 7);
  for (int call = 0; call < 3; ++call) {
    const grpc::Status status = RawApply(*channel, not_utf8);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  process->Signal(SIGTERM);
  EXPECT_FALSE(process->WaitForLine("\x01 not a line").ok());  // reads the log to its end
  EXPECT_THAT(process->output(), HasSubstr("gavel engine serving on port"));  // the log was read
  EXPECT_THAT(process->output(), ::testing::Not(HasSubstr("UTF-8"))) << process->output();
}

TEST(EngineServerShutdown, SigtermReportsNotServingDrainsAndExitsZero) {
  Server server = StartServer({"--shutdown_delay_s=1", "--drain_s=3"});
  auto health = grpc::health::v1::Health::NewStub(server.channel);
  grpc::ClientContext watch_context;
  grpc::health::v1::HealthCheckRequest watch_request;
  auto watch = health->Watch(&watch_context, watch_request);
  grpc::health::v1::HealthCheckResponse health_status;
  ASSERT_TRUE(watch->Read(&health_status));
  EXPECT_EQ(health_status.status(), grpc::health::v1::HealthCheckResponse::SERVING);

  // Calls in flight while the signal arrives.
  grpc::CompletionQueue queue;
  constexpr int kCalls = 64;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<v1::NewGameResponse> responses(kCalls);
  std::vector<grpc::Status> statuses(kCalls);
  v1::NewGameRequest request;
  request.set_game(TestGame().name());
  request.set_players(TestPlayers(5));
  for (int i = 0; i < kCalls; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    auto call = server.stub->AsyncNewGame(contexts.back().get(), request, &queue);
    call->Finish(&responses[i], &statuses[i], reinterpret_cast<void*>(static_cast<intptr_t>(i)));
  }
  server.process.Signal(SIGTERM);
  ASSERT_TRUE(watch->Read(&health_status));
  EXPECT_EQ(health_status.status(), grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  watch_context.TryCancel();
  for (int i = 0; i < kCalls; ++i) {
    void* tag;
    bool ok;
    ASSERT_TRUE(queue.Next(&tag, &ok));
  }
  for (const grpc::Status& status : statuses)
    EXPECT_TRUE(status.ok() || status.error_code() == grpc::StatusCode::UNAVAILABLE)
        << status.error_code() << " " << status.error_message();
  auto exit_code = server.process.Wait(20000);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);
  queue.Shutdown();
}

}  // namespace
}  // namespace gavel
