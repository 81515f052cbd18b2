// The arena end to end: real arena, engine and bot processes on loopback. Tournaments
// finish with standings that match the stored results; hanging, cheating and vanishing bots
// cannot stop a match and their faults are recorded; the store survives a restart; every
// stored replay verifies; every turn a bot receives is exactly the engine's view for its seat;
// the arena's metrics count what happened; a tournament over three engine replicas survives
// one of them being killed.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "engine/core/hash.h"
#include "engine/core/registry.h"
#include "gavel/v1/arena.grpc.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/arena/engine_backend.h"
#include "service/arena/ratings.h"
#include "service/arena/referee.h"
#include "service/arena/replay.h"
#include "service/arena/store.h"
#include "service/arena/tournament.h"
#include "tests/arena/recorded_match.h"
#include "tests/support/child_process.h"
#include "tests/support/http_get.h"
#include "tests/support/test_games.h"

namespace gavel::arena {
namespace {

using ::gavel::testing::ChildProcess;
using ::gavel::testing::TestGame;
using ::testing::HasSubstr;

// The tournaments here play the test game only (tests/support/test_games.h).
std::string GamesFlag() { return absl::StrCat("--games=", TestGame().name()); }

constexpr int kWaitMs = 120000;  // a bound for a stuck process, not a timing expectation

// A store file in the build tree for one test, removed afterwards.
struct TempDb {
  explicit TempDb(const std::string& name)
      : path(absl::StrCat(::gavel::testing::BuildDir(), "/arena_test_", name, "_", getpid(), ".db")) {
    Remove();
  }
  ~TempDb() { Remove(); }
  void Remove() const {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  }
  const std::string path;
};

std::vector<std::string> AllGameNames() {
  std::vector<std::string> names;
  for (const Game* game : AllGames()) names.push_back(game->name());
  return names;
}

ChildProcess Start(std::vector<std::string> argv) {
  auto process = ChildProcess::Start(argv);
  EXPECT_TRUE(process.ok()) << process.status();
  return std::move(*process);
}

// An arena that runs one tournament once `bots` bots are connected, then exits.
struct Arena {
  ChildProcess process;
  std::string address;
};

Arena StartTournament(const std::string& db, int bots, std::vector<std::string> flags) {
  std::vector<std::string> argv = {GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--db=" + db,
                                   "--tournament", "--exit_after_tournament", "--progress=false",
                                   absl::StrCat("--wait_for_bots=", bots), "--log_level=warn"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  ChildProcess process = Start(argv);
  auto port = process.WaitForPort(kWaitMs);
  EXPECT_TRUE(port.ok()) << port.status();
  return Arena{std::move(process), absl::StrCat("127.0.0.1:", port.value_or(0))};
}

ChildProcess StartBot(const Arena& arena, const std::string& policy, const std::string& name) {
  return Start({GAVEL_BOT_BINARY, "--policy=" + policy, "--name=" + name,
                "--arena=" + arena.address, "--log_level=warn"});
}

ChildProcess StartFaultyBot(const Arena& arena, const std::string& fault, const std::string& name) {
  return Start({GAVEL_FAULTY_BOT_BINARY, "--fault=" + fault, "--name=" + name,
                "--arena=" + arena.address});
}

// Waits for the tournament's summary line and the arena's exit; returns the line.
std::string FinishTournament(Arena& arena) {
  auto line = arena.process.WaitForLine("tournament ", kWaitMs);
  EXPECT_TRUE(line.ok()) << line.status();
  auto code = arena.process.Wait(kWaitMs);
  EXPECT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(code.value_or(-1), 0);
  return line.value_or("");
}

std::vector<MatchRecord> StoredMatches(Store& store, int64_t tournament = 0) {
  std::vector<MatchRecord> matches;
  auto ids = store.FinishedMatches(tournament);
  EXPECT_TRUE(ids.ok()) << ids.status();
  for (int64_t id : ids.value_or(std::vector<int64_t>{})) {
    auto match = store.LoadMatch(id);
    EXPECT_TRUE(match.ok()) << match.status();
    if (match.ok()) matches.push_back(std::move(*match));
  }
  return matches;
}

std::unique_ptr<Store> OpenStore(const std::string& db) {
  auto store = Store::Open(db);
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

void ExpectEveryReplayVerifies(const std::vector<MatchRecord>& matches) {
  for (const MatchRecord& match : matches) {
    auto replay = Replay(match);
    EXPECT_TRUE(replay.ok()) << replay.status();
  }
}

// Move statuses of the seats `bot` held, over all matches.
std::map<v1::MoveStatus, int> StatusesOf(const std::vector<MatchRecord>& matches,
                                         const std::string& bot) {
  std::map<v1::MoveStatus, int> statuses;
  for (const MatchRecord& match : matches)
    for (const MoveRecord& move : match.moves)
      if (match.bots[move.seat] == bot) ++statuses[move.status];
  return statuses;
}

// A match recorded before a game's current state format (Morgenland's formats 1 to 3,
// Moonlight Market's 1 to 3, Carat's 1 and 2, Mercado's and Sultan's format 1) holds hashes of that format's bytes: its replay
// still verifies, and one wrong hash is still found. Every built game, every earlier format.
TEST(Replay, VerifiesRecordsMadeInAGamesEarlierStateFormats) {
  int formats_checked = 0;
  for (const Game* game : AllGames()) {
    for (int versions_back = 1;; ++versions_back) {
      auto state = game->NewGame(4, 5, {});
      ASSERT_TRUE(state.ok()) << state.status();
      if ((*state)->EarlierFormatBytes(versions_back).empty()) break;
      SCOPED_TRACE(absl::StrCat(game->name(), ", ", versions_back, " formats back"));
      ++formats_checked;
      ASSERT_NE((*state)->EarlierFormatBytes(versions_back), (*state)->Bytes());
      MatchRecord match = testing::RecordedRandomMatch(*game, 4, 5, [versions_back](const State& state) {
        return state.EarlierFormatBytes(versions_back);
      });
      ASSERT_TRUE(match.finished);
      const auto visit = [](const ReplayStep&) {};
      EXPECT_TRUE(WalkReplay(match, visit).ok()) << WalkReplay(match, visit);
      match.moves[match.moves.size() / 2].state_hash = match.moves.front().state_hash;
      EXPECT_EQ(WalkReplay(match, visit).code(), absl::StatusCode::kDataLoss);
    }
  }
  int earlier_formats = 0;
#if GAVEL_HAS_GAME_morgenland
  earlier_formats += 4;
#endif
#if GAVEL_HAS_GAME_moonlight_market
  earlier_formats += 3;
#endif
#if GAVEL_HAS_GAME_carat
  earlier_formats += 2;
#endif
#if GAVEL_HAS_GAME_mercado
  earlier_formats += 1;
#endif
#if GAVEL_HAS_GAME_sultan
  earlier_formats += 1;
#endif
  EXPECT_EQ(formats_checked, earlier_formats);
}

// A game's earlier formats go back to its format 1, not before it.
TEST(Replay, NoBytesBeforeAGamesFirstStateFormat) {
  for (const Game* game : AllGames()) {
    auto state = game->NewGame(game->info().max_players, 1, {});
    ASSERT_TRUE(state.ok()) << state.status();
    const int current = (*state)->FormatVersion();
    if (current > 1) {
      EXPECT_NE((*state)->EarlierFormatBytes(current - 1), "") << game->name();
    }
    EXPECT_EQ((*state)->EarlierFormatBytes(current), "") << game->name();
  }
}

// Replays keep the hash of every state's bytes: a game's state format, once written, must
// keep its bytes. These hashes are what engines recorded while the format was current, for a
// game of three seats from seed 3: of the first state and of the state after 40 moves (or the
// last, if the game ends first), each the first legal one. The earlier formats' rows were
// computed by the engines of cde2ac7^ (Moonlight Market 1, Carat 1, Morgenland 1), ef6515d^
// (Moonlight Market 2, Morgenland 2, Carat 2), 15e80d2^ (Sultan 1, Mercado 1, Moonlight
// Market 3, Morgenland 3), each built again from its commit; the others by de7d735 (Sultan 2,
// Moonlight Market 4, Carat 3, Mercado 2, and Morgenland 4, whose bytes a later change altered
// in place) and ccee3a7 (Morgenland 5). A new format adds rows; no row changes.
TEST(Replay, StateFormatsKeepTheHashesEnginesRecorded) {
  struct Recorded {
    const char* game;
    int format;
    uint64_t first, after_40_moves;
  };
  static constexpr Recorded kRecorded[] = {
      {"sultan", 1, 0xbd21a3906580cc62, 0xb69a405765a1bf08},
      {"sultan", 2, 0xa7f60141f1f90d57, 0xc86663b5640011fd},
      {"moonlight_market", 1, 0x5e1a6b9fe6715885, 0x36283ea30085fae1},
      {"moonlight_market", 2, 0x6f2eb78646484580, 0x08903fd4d3b4919c},
      {"moonlight_market", 3, 0x44ff5877fe6fb083, 0x7c111f45a650325b},
      {"moonlight_market", 4, 0xe84a9ca189165846, 0x7637f8db6ee94a56},
      {"carat", 1, 0x6731d49a69b3e1f9, 0x1f5b686b5bf48d33},
      {"carat", 2, 0xe8248006f3603edd, 0xe24982107f13db3b},
      {"carat", 3, 0xe13d5aa523bfc3e9, 0xd48de605a4a6fe8b},
      {"mercado", 1, 0xfc7e4c9014c30754, 0x2bd836a76e58523c},
      {"mercado", 2, 0x553a88ee95cd7ae2, 0xfda57e136b056e4d},
      {"morgenland", 1, 0x6739c3a43ce971b2, 0x83703c1320b3edcd},
      {"morgenland", 2, 0x586914242af43627, 0xb13b0b82fc0326d2},
      {"morgenland", 3, 0x412972bb9027dfaa, 0x28725b765be45ec4},
      {"morgenland", 4, 0x3ae90d4fc9632728, 0xb5c02e7ef1c61178},
      {"morgenland", 5, 0xa0af56f7c4897504, 0x8c974923ef5a0338},
  };
  for (const Game* game : AllGames()) {
    std::set<int> formats;
    for (const Recorded& recorded : kRecorded) {
      if (recorded.game != game->name()) continue;
      SCOPED_TRACE(absl::StrCat(game->name(), " format ", recorded.format));
      auto state = game->NewGame(3, 3, {});
      ASSERT_TRUE(state.ok()) << state.status();
      const int versions_back = (*state)->FormatVersion() - recorded.format;
      formats.insert(recorded.format);
      ASSERT_GE(versions_back, 0);
      const auto hash = [&] {
        return Fnv1a64(versions_back == 0 ? (*state)->Bytes() : (*state)->EarlierFormatBytes(versions_back));
      };
      EXPECT_EQ(hash(), recorded.first);
      std::vector<Move> legal;
      for (int move = 0; move < 40 && !(*state)->finished(); ++move) {
        (*state)->LegalMoves(legal);
        ASSERT_TRUE((*state)->Apply(legal[0]).ok());
      }
      EXPECT_EQ(hash(), recorded.after_40_moves);
    }
    const int current = (*game->NewGame(3, 3, {}))->FormatVersion();
    EXPECT_EQ(formats.size(), static_cast<size_t>(current)) << game->name() << ": every format 1.." << current
                                                           << " needs its recorded hashes";
  }
}

TEST(ArenaTest, DirkAndRandomTournamentFinishesWithStandingsFromTheResults) {
  const TempDb temp_db("standings");
  const std::string& db = temp_db.path;
  // A known seed and one match at a time: the same deals and the same random choices in every
  // run, so whether Dirk tops random is a fixed fact of this tournament, not a run's luck.
  Arena arena = StartTournament(db, 2, {GamesFlag(), "--deals=6", "--duplicate_deals", "--seed=5",
                                        "--concurrency=1"});
  ChildProcess dirk = StartBot(arena, "dirk", "dirk");
  ChildProcess random = StartBot(arena, "random", "random");
  EXPECT_THAT(FinishTournament(arena), HasSubstr("12 matches, 0 not finished"));

  auto store = OpenStore(db);
  const std::vector<MatchRecord> matches = StoredMatches(*store);
  ASSERT_EQ(matches.size(), 12u);  // 6 deals, each played in both seatings with its cards
  std::map<uint64_t, std::vector<std::vector<std::string>>> seatings;
  std::map<std::string, int> wins;
  for (const MatchRecord& match : matches) {
    seatings[match.seed].push_back(match.bots);
    for (size_t seat = 0; seat < match.bots.size(); ++seat) wins[match.bots[seat]] += match.ranks[seat] == 1;
  }
  ASSERT_EQ(seatings.size(), 6u);
  for (const auto& [seed, tables] : seatings) {
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0], (std::vector<std::string>{tables[1][1], tables[1][0]}));
  }
  auto ratings = store->LoadRatings();
  ASSERT_TRUE(ratings.ok());
  const auto standings = ComputeStandings(matches, *ratings).at(TestGame().name());
  ASSERT_EQ(standings.size(), 2u);
  for (const Standing& row : standings) {
    EXPECT_EQ(row.games, 12);
    EXPECT_EQ(row.rating.games, 12);
    EXPECT_DOUBLE_EQ(row.win_rate, wins[row.bot] / 12.0);
    EXPECT_LE(row.win_low, row.win_rate);
    EXPECT_GE(row.win_high, row.win_rate);
    EXPECT_EQ(row.strikes, 0);
  }
  EXPECT_EQ(standings[0].bot, "dirk");
  EXPECT_GT(standings[0].rating.mu, standings[1].rating.mu);
  ExpectEveryReplayVerifies(matches);
  dirk.Signal(SIGTERM);
  random.Signal(SIGTERM);
  EXPECT_EQ(dirk.Wait(kWaitMs).value_or(-1), 0);
  EXPECT_EQ(random.Wait(kWaitMs).value_or(-1), 0);
}

TEST(ArenaTest, HangingCheatingAndVanishingBotsCannotStopTheGames) {
  const TempDb temp_db("faults");
  const std::string& db = temp_db.path;
  Arena arena = StartTournament(db, 4, {GamesFlag(), "--players=4", "--deals=1",
                                        "--move_ms=500", "--bank_ms=500", "--max_strikes=2"});
  ChildProcess steady = StartBot(arena, "random", "steady");
  ChildProcess sleeper = StartFaultyBot(arena, "hang", "sleeper");
  ChildProcess cheat = StartFaultyBot(arena, "illegal", "cheat");
  ChildProcess quitter = StartFaultyBot(arena, "disconnect", "quitter");
  EXPECT_THAT(FinishTournament(arena), HasSubstr("4 matches, 0 not finished"));

  auto store = OpenStore(db);
  const std::vector<MatchRecord> matches = StoredMatches(*store);
  ASSERT_EQ(matches.size(), 4u);
  for (const MatchRecord& match : matches) {
    ASSERT_TRUE(match.finished);
    for (size_t seat = 0; seat < match.bots.size(); ++seat) {
      const bool faulty = match.bots[seat] == "sleeper" || match.bots[seat] == "cheat";
      if (faulty || match.bots[seat] == "steady") {
        EXPECT_EQ(match.strikes[seat], faulty ? 2 : 0) << match.bots[seat];
      }
    }
  }
  auto sleeper_moves = StatusesOf(matches, "sleeper");
  EXPECT_GT(sleeper_moves[v1::MOVE_STATUS_TIMEOUT], 0);
  EXPECT_GT(sleeper_moves[v1::MOVE_STATUS_REPLACED], 0);
  EXPECT_EQ(sleeper_moves[v1::MOVE_STATUS_OK], 0);
  auto cheat_moves = StatusesOf(matches, "cheat");
  EXPECT_EQ(cheat_moves[v1::MOVE_STATUS_INVALID], 8);  // two strikes in each of 4 matches
  EXPECT_EQ(cheat_moves[v1::MOVE_STATUS_OK], 0);
  auto quitter_moves = StatusesOf(matches, "quitter");
  EXPECT_EQ(quitter_moves[v1::MOVE_STATUS_OK], 3);
  EXPECT_GT(quitter_moves[v1::MOVE_STATUS_DISCONNECTED], 0);
  auto steady_moves = StatusesOf(matches, "steady");
  EXPECT_EQ(steady_moves.size(), 1u);
  EXPECT_GT(steady_moves[v1::MOVE_STATUS_OK], 0);
  ExpectEveryReplayVerifies(matches);
}

TEST(ArenaTest, ABotWhosePolicyFailsSaysSoAndIsStruckNotCoveredUp) {
  const TempDb temp_db("failing");
  Arena arena = StartTournament(temp_db.path, 2, {GamesFlag(), "--players=2", "--deals=1",
                                                  "--max_strikes=2"});
  ChildProcess steady = StartBot(arena, "random", "steady");
  ChildProcess failing = StartFaultyBot(arena, "fail", "failing");
  EXPECT_THAT(FinishTournament(arena), HasSubstr("2 matches, 0 not finished"));

  auto store = OpenStore(temp_db.path);
  const std::vector<MatchRecord> matches = StoredMatches(*store);
  ASSERT_EQ(matches.size(), 2u);
  for (const MatchRecord& match : matches)
    for (size_t seat = 0; seat < match.bots.size(); ++seat)
      EXPECT_EQ(match.strikes[seat], match.bots[seat] == "failing" ? 2 : 0) << match.bots[seat];
  // Every answer of the failing bot is recorded as its error, none as a move of its own.
  auto failing_moves = StatusesOf(matches, "failing");
  EXPECT_EQ(failing_moves[v1::MOVE_STATUS_FAILED], 4);  // two strikes in each of 2 matches
  EXPECT_GT(failing_moves[v1::MOVE_STATUS_REPLACED], 0);
  EXPECT_EQ(failing_moves[v1::MOVE_STATUS_OK], 0);
  ExpectEveryReplayVerifies(matches);
}

TEST(ArenaTest, StoreKeepsResultsAndRatingsAcrossArenaRestarts) {
  const TempDb temp_db("restart");
  const std::string& db = temp_db.path;
  for (int run = 0; run < 2; ++run) {
    Arena arena = StartTournament(db, 2, {GamesFlag(), "--deals=1",
                                          absl::StrCat("--seed=", run + 1)});
    ChildProcess dirk = StartBot(arena, "dirk", "dirk");
    ChildProcess random = StartBot(arena, "random", "random");
    EXPECT_THAT(FinishTournament(arena), HasSubstr("2 matches, 0 not finished"));
  }
  auto store = OpenStore(db);
  EXPECT_EQ(store->Tournaments().value_or(std::vector<int64_t>{}).size(), 2u);
  EXPECT_EQ(StoredMatches(*store, 1).size(), 2u);
  EXPECT_EQ(StoredMatches(*store, 2).size(), 2u);
  auto ratings = store->LoadRatings();
  ASSERT_TRUE(ratings.ok());
  EXPECT_EQ((*ratings)[RatingKey(TestGame().name(), "dirk")].games, 4);
  EXPECT_EQ((*ratings)[RatingKey(TestGame().name(), "random")].games, 4);

  ChildProcess verify = Start({GAVEL_ARENA_BINARY, "verify", "--db=" + db});
  auto verified = verify.WaitForLine("verified", kWaitMs);
  EXPECT_THAT(verified.value_or(""), HasSubstr("verified 4 matches, 0 failed"));
  EXPECT_EQ(verify.Wait(kWaitMs).value_or(-1), 0);
  ChildProcess replay = Start({GAVEL_ARENA_BINARY, "replay", "--db=" + db, "--match=1"});
  auto last = replay.WaitForLine("verified:", kWaitMs);
  EXPECT_TRUE(last.ok()) << last.status() << replay.output();
  EXPECT_THAT(replay.output(), HasSubstr("seat 0: "));
  EXPECT_EQ(replay.Wait(kWaitMs).value_or(-1), 0);
}

TEST(ArenaTest, APythonBotWrittenFromTheProtoPlaysAWholeTournament) {
  const TempDb temp_db("python");
  const std::string& db = temp_db.path;
  Arena arena = StartTournament(db, 2, {GamesFlag(), "--deals=1"});
  ChildProcess dirk = StartBot(arena, "dirk", "dirk");
  ChildProcess python = Start({"/usr/bin/python3", GAVEL_PYTHON_BOT, "--arena=" + arena.address,
                               "--name=py-random", GamesFlag(), "--proto=" GAVEL_PROTO_DIR});
  EXPECT_THAT(FinishTournament(arena), HasSubstr("2 matches, 0 not finished"));
  auto store = OpenStore(db);
  const std::vector<MatchRecord> matches = StoredMatches(*store);
  ASSERT_EQ(matches.size(), 2u);
  auto python_moves = StatusesOf(matches, "py-random");
  EXPECT_EQ(python_moves.size(), 1u);
  EXPECT_GT(python_moves[v1::MOVE_STATUS_OK], 0);
  python.Signal(SIGTERM);
  EXPECT_EQ(python.Wait(kWaitMs).value_or(-1), 0);
}

// A bot in this process: records every turn it is sent and answers with `answer`.
class ScriptedBot {
 public:
  using Answer = std::function<v1::BotMessage(const v1::TurnRequest&)>;
  // Plays the first legal move.
  static v1::BotMessage FirstLegal(const v1::TurnRequest& turn) {
    v1::BotMessage reply;
    reply.mutable_move()->set_request_id(turn.request_id());
    reply.mutable_move()->set_move_id(turn.legal_moves(0).id());
    return reply;
  }

  ScriptedBot(const std::string& address, const std::string& name, Answer answer = FirstLegal)
      : stub_(v1::Arena::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))),
        answer_(std::move(answer)),
        thread_([this, name] { Play(name); }) {}
  ~ScriptedBot() {
    context_.TryCancel();
    if (thread_.joinable()) thread_.join();
  }
  // Waits for the arena's welcome; false if the stream ended first.
  bool WaitWelcomed() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return welcomed_ || ended_; });
    return welcomed_;
  }
  // Call after the arena has ended the stream.
  const std::vector<v1::TurnRequest>& turns() {
    if (thread_.joinable()) thread_.join();
    return turns_;
  }

 private:
  void Play(const std::string& name) {
    context_.set_wait_for_ready(true);
    auto stream = stub_->Play(&context_);
    v1::BotMessage hello;
    hello.mutable_hello()->set_name(name);
    for (const std::string& game : AllGameNames()) hello.mutable_hello()->add_games(game);
    stream->Write(hello);
    v1::ArenaMessage message;
    while (stream->Read(&message)) {
      if (message.has_welcome()) {
        std::lock_guard lock(mutex_);
        welcomed_ = true;
        changed_.notify_all();
      }
      if (!message.has_turn()) continue;
      turns_.push_back(message.turn());
      stream->Write(answer_(message.turn()));
    }
    stream->Finish();
    std::lock_guard lock(mutex_);
    ended_ = true;
    changed_.notify_all();
  }

  std::unique_ptr<v1::Arena::Stub> stub_;
  Answer answer_;
  grpc::ClientContext context_;
  std::vector<v1::TurnRequest> turns_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool welcomed_ = false, ended_ = false;
  std::thread thread_;
};

// A message that is not a move while a turn is open counts as an invalid answer, and a
// second connection under a connected bot's name is refused.
TEST(ArenaTest, MalformedAnswersAreInvalidAndBotNamesAreUnique) {
  const TempDb temp_db("malformed");
  const std::string& db = temp_db.path;
  Arena arena = StartTournament(db, 2, {GamesFlag(), "--deals=1", "--max_strikes=2"});
  ScriptedBot garbler(arena.address, "garbler", [](const v1::TurnRequest&) {
    v1::BotMessage hello;
    hello.mutable_hello()->set_name("garbler");
    return hello;
  });
  ASSERT_TRUE(garbler.WaitWelcomed());
  {
    auto stub = v1::Arena::NewStub(
        grpc::CreateChannel(arena.address, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    auto stream = stub->Play(&context);
    v1::BotMessage hello;
    hello.mutable_hello()->set_name("garbler");
    stream->Write(hello);
    v1::ArenaMessage message;
    EXPECT_FALSE(stream->Read(&message));
    EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::ALREADY_EXISTS);
  }
  ChildProcess random = StartBot(arena, "random", "random");
  EXPECT_THAT(FinishTournament(arena), HasSubstr("2 matches, 0 not finished"));
  auto store = OpenStore(db);
  const std::vector<MatchRecord> matches = StoredMatches(*store);
  auto garbler_moves = StatusesOf(matches, "garbler");
  EXPECT_EQ(garbler_moves[v1::MOVE_STATUS_INVALID], 4);  // two strikes in each match
  EXPECT_GT(garbler_moves[v1::MOVE_STATUS_REPLACED], 0);
  EXPECT_EQ(garbler_moves[v1::MOVE_STATUS_OK], 0);
  ExpectEveryReplayVerifies(matches);
}

// The one view filter: a turn carries exactly Observe(state, seat) of the state at that
// move and the legal moves of that state, and only the seat to move gets a turn. Played
// through an engine server, over every game of the build.
TEST(ArenaTest, EveryTurnIsExactlyTheEnginesViewForTheSeatToMove) {
  ChildProcess engine = Start({GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0", "--log_level=warn"});
  auto engine_port = engine.WaitForPort(kWaitMs);
  ASSERT_TRUE(engine_port.ok()) << engine_port.status();
  const TempDb temp_db("views");
  const std::string& db = temp_db.path;
  Arena arena = StartTournament(db, 2, {"--deals=1", "--players=2",
                                        absl::StrCat("--engine=127.0.0.1:", *engine_port)});
  ChildProcess random = StartBot(arena, "random", "random");
  std::vector<v1::TurnRequest> turns;
  {
    ScriptedBot recorder(arena.address, "recorder");
    EXPECT_THAT(FinishTournament(arena), HasSubstr("0 not finished"));
    turns = recorder.turns();
  }
  auto store = OpenStore(db);
  std::map<int64_t, MatchRecord> matches;
  for (MatchRecord& match : StoredMatches(*store)) matches[match.id] = std::move(match);
  ASSERT_FALSE(matches.empty());
  std::set<std::string> games;
  std::map<std::pair<int64_t, uint32_t>, const v1::TurnRequest*> by_move;
  for (const v1::TurnRequest& turn : turns) {
    int64_t id = 0;
    ASSERT_TRUE(absl::SimpleAtoi(turn.match_id(), &id));
    ASSERT_TRUE(by_move.emplace(std::pair(id, turn.ply()), &turn).second) << "two turns for one move";
  }
  for (const auto& [id, match] : matches) {
    games.insert(match.game);
    const Game* game = FindGame(match.game);
    auto state = game->NewGame(match.players, match.seed, match.options);
    ASSERT_TRUE(state.ok());
    for (uint32_t ply = 0; ply < match.moves.size(); ++ply) {
      const int to_move = (*state)->to_move();
      auto turn = by_move.find({id, ply});
      if (match.bots[to_move] != "recorder") {
        EXPECT_EQ(turn, by_move.end()) << "a turn sent to a seat that is not to move";
      } else if (turn != by_move.end()) {
        const v1::TurnRequest& request = *turn->second;
        EXPECT_EQ(request.seat(), to_move);
        EXPECT_EQ(request.game(), match.game);
        v1::View expected;
        (*state)->Observe(to_move, &expected);
        EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(request.view(), expected))
            << match.game << " move " << ply;
        std::vector<Move> legal;
        (*state)->LegalMoves(legal);
        ASSERT_EQ(request.legal_moves_size(), static_cast<int>(legal.size()));
        for (size_t i = 0; i < legal.size(); ++i) {
          EXPECT_EQ(request.legal_moves(i).id(), legal[i].id);
          EXPECT_EQ(request.legal_moves(i).text(), (*state)->MoveText(legal[i]));
        }
        by_move.erase(turn);
      }
      ASSERT_TRUE((*state)->Apply(Move{match.moves[ply].move_id}).ok());
    }
  }
  EXPECT_TRUE(by_move.empty()) << "turns that match no stored move";
  const std::vector<std::string> all_games = AllGameNames();
  EXPECT_EQ(games, std::set<std::string>(all_games.begin(), all_games.end()));
  ExpectEveryReplayVerifies([&] {
    std::vector<MatchRecord> all;
    for (const auto& [id, match] : matches) all.push_back(match);
    return all;
  }());
}

// "metrics on port N" (printed before the readiness line); returns N.
int MetricsPort(ChildProcess& process) {
  auto line = process.WaitForLine("metrics on port ", kWaitMs);
  EXPECT_TRUE(line.ok()) << line.status();
  int port = 0;
  if (line.ok()) {
    EXPECT_TRUE(absl::SimpleAtoi(line->substr(std::string("metrics on port ").size()), &port));
  }
  return port;
}

std::string Metrics(int port) {
  auto body = ::gavel::testing::HttpGet(port, "/metrics");
  EXPECT_TRUE(body.ok()) << body.status();
  return body.value_or("");
}

// The sum of the samples of metric `name` whose labels include every one of `labels`
// (each written as in the exposition format, e.g. "game=\"sultan\""); 0 if there are none.
double MetricSum(const std::string& body, const std::string& name,
                 const std::vector<std::string>& labels = {}) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(body, '\n')) {
    if (!absl::StartsWith(line, name)) continue;
    const absl::string_view rest = line.substr(name.size());
    if (rest.empty() || (rest[0] != '{' && rest[0] != ' ')) continue;
    const size_t space = line.rfind(' ');
    const absl::string_view series = line.substr(0, space);
    bool wanted = true;
    for (const std::string& label : labels) wanted = wanted && absl::StrContains(series, label);
    double value = 0;
    if (wanted && absl::SimpleAtod(line.substr(space + 1), &value)) sum += value;
  }
  return sum;
}

ChildProcess StartEngine(int* grpc_port, int* metrics_port) {
  ChildProcess engine = Start({GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0",
                               "--metrics_listen=127.0.0.1:0", "--log_level=warn"});
  *metrics_port = MetricsPort(engine);
  auto port = engine.WaitForPort(kWaitMs);
  EXPECT_TRUE(port.ok()) << port.status();
  *grpc_port = port.value_or(0);
  return engine;
}

// The arena on the engine service: its /metrics counts the engine calls it made (the same
// number the engine counted), matches started, in progress and finished, and bot faults by
// status.
TEST(ArenaTest, MetricsCountEngineCallsMatchesAndBotFaults) {
  int engine_port = 0, engine_metrics = 0;
  ChildProcess engine = StartEngine(&engine_port, &engine_metrics);
  const TempDb temp_db("metrics");
  ChildProcess arena = Start({GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--db=" + temp_db.path,
                              "--metrics_listen=127.0.0.1:0",
                              absl::StrCat("--engine=127.0.0.1:", engine_port), "--tournament",
                              GamesFlag(), "--deals=1", "--max_strikes=2",
                              "--wait_for_bots=3", "--progress=false", "--log_level=warn"});
  const int metrics_port = MetricsPort(arena);
  auto port = arena.WaitForPort(kWaitMs);
  ASSERT_TRUE(port.ok()) << port.status();
  Arena running{std::move(arena), absl::StrCat("127.0.0.1:", *port)};
  ChildProcess dirk = StartBot(running, "dirk", "dirk");
  ChildProcess random = StartBot(running, "random", "random");
  ChildProcess cheat = StartFaultyBot(running, "illegal", "cheat");
  auto line = running.process.WaitForLine("tournament ", kWaitMs);
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_THAT(*line, HasSubstr("3 matches, 0 not finished"));  // 1 deal x 3 seatings

  const std::string body = Metrics(metrics_port);
  const std::string sultan = absl::StrCat("game=\"", TestGame().name(), "\"");
  EXPECT_EQ(MetricSum(body, "gavel_arena_games_started_total", {sultan}), 3);
  EXPECT_EQ(MetricSum(body, "gavel_arena_games_finished_total", {sultan}), 3);
  EXPECT_EQ(MetricSum(body, "gavel_arena_games_in_progress", {sultan}), 0);
  EXPECT_EQ(MetricSum(body, "gavel_arena_games_restarted_total"), 0);
  // The cheat answers illegally until its 2 strikes are used up, in each of the 3 matches.
  EXPECT_EQ(MetricSum(body, "gavel_arena_bot_faults_total", {sultan, "status=\"INVALID\""}), 6);
  EXPECT_EQ(MetricSum(body, "gavel_arena_bot_faults_total"), 6);
  EXPECT_EQ(MetricSum(body, "gavel_arena_calls_total", {"rpc=\"NewGame\"", "code=\"OK\""}), 3);
  // One engine call per move: Apply returns the next mover's legal moves, view and the
  // state's hash, so the referee never calls LegalMoves or Observe.
  EXPECT_EQ(MetricSum(body, "gavel_arena_calls_total", {"rpc=\"LegalMoves\""}), 0);
  EXPECT_EQ(MetricSum(body, "gavel_arena_calls_total", {"rpc=\"Observe\""}), 0);
  EXPECT_EQ(MetricSum(body, "gavel_arena_calls_total"),
            MetricSum(body, "gavel_arena_calls_total", {"code=\"OK\""}));
  EXPECT_EQ(MetricSum(body, "gavel_arena_call_seconds_count"), MetricSum(body, "gavel_arena_calls_total"));
  // The arena is the engine's only client: both sides counted the same calls.
  EXPECT_EQ(MetricSum(Metrics(engine_metrics), "gavel_engine_calls_total"),
            MetricSum(body, "gavel_arena_calls_total"));

  auto store = OpenStore(temp_db.path);
  const std::vector<MatchRecord> matches = StoredMatches(*store);
  EXPECT_EQ(StatusesOf(matches, "cheat")[v1::MOVE_STATUS_INVALID], 6);
  size_t moves = 0;
  for (const MatchRecord& match : matches) moves += match.moves.size();
  EXPECT_EQ(MetricSum(body, "gavel_arena_calls_total", {"rpc=\"Apply\"", sultan}), static_cast<double>(moves));
  EXPECT_EQ(MetricSum(body, "gavel_arena_calls_total"), static_cast<double>(moves + 3));
  running.process.Signal(SIGTERM);
  EXPECT_EQ(running.process.Wait(kWaitMs).value_or(-1), 0);
}

// Three engine replicas behind the arena's round_robin channel; one is killed (SIGKILL)
// once some matches have finished. The tournament completes, every match finishes, no bot
// is charged a fault, every replay verifies, and each replica served calls.
TEST(ArenaTest, TournamentSurvivesAnEngineReplicaKilledMidway) {
  constexpr int kReplicas = 3;
  constexpr int kDeals = 20;                 // x 2 seatings
  constexpr int kKillAfterFinished = 8;
  std::vector<ChildProcess> replicas;
  std::vector<int> metrics_ports(kReplicas);
  std::string target = "ipv4:";
  for (int i = 0; i < kReplicas; ++i) {
    int port = 0;
    replicas.push_back(StartEngine(&port, &metrics_ports[i]));
    absl::StrAppend(&target, i ? "," : "", "127.0.0.1:", port);
  }
  const TempDb temp_db("replica_killed");
  ChildProcess arena_process = Start(
      {GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--db=" + temp_db.path,
       "--metrics_listen=127.0.0.1:0", "--engine=" + target, "--tournament",
       "--exit_after_tournament", GamesFlag(), absl::StrCat("--deals=", kDeals),
       "--wait_for_bots=2", "--progress=false", "--log_level=warn"});
  const int arena_metrics = MetricsPort(arena_process);
  auto port = arena_process.WaitForPort(kWaitMs);
  ASSERT_TRUE(port.ok()) << port.status();
  Arena arena{std::move(arena_process), absl::StrCat("127.0.0.1:", *port)};
  ChildProcess dirk = StartBot(arena, "dirk", "dirk");
  ChildProcess random = StartBot(arena, "random", "random");

  // Kill the last replica once the arena reports enough finished matches. (Polling the
  // arena's counter: the trigger is an observed state, not elapsed time.)
  double finished = 0;
  while (finished < kKillAfterFinished) {
    auto body = ::gavel::testing::HttpGet(arena_metrics, "/metrics");
    ASSERT_TRUE(body.ok()) << "the arena stopped before " << kKillAfterFinished
                           << " matches finished: " << body.status();
    finished = MetricSum(*body, "gavel_arena_games_finished_total");
    if (finished < kKillAfterFinished) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<double> calls(kReplicas);
  calls[kReplicas - 1] = MetricSum(Metrics(metrics_ports[kReplicas - 1]), "gavel_engine_calls_total");
  replicas[kReplicas - 1].Signal(SIGKILL);
  EXPECT_EQ(replicas[kReplicas - 1].Wait(kWaitMs).value_or(-1), 128 + SIGKILL);
  std::printf("killed replica %d after %.0f matches had finished\n", kReplicas - 1, finished);

  const std::string line = FinishTournament(arena);
  EXPECT_THAT(line, HasSubstr(absl::StrCat(2 * kDeals, " matches, 0 not finished")));
  std::printf("%s\n", line.c_str());
  for (int i = 0; i + 1 < kReplicas; ++i)
    calls[i] = MetricSum(Metrics(metrics_ports[i]), "gavel_engine_calls_total");

  std::string report;
  for (int i = 0; i < kReplicas; ++i) {
    absl::StrAppend(&report, i ? " " : "", "replica", i, "=", calls[i], i + 1 == kReplicas ? "(killed)" : "");
    EXPECT_GT(calls[i], 0) << "replica " << i << " served no calls";
  }
  std::printf("engine calls per replica: %s\n", report.c_str());
  ::testing::Test::RecordProperty("engine_calls_per_replica", report);

  auto store = OpenStore(temp_db.path);
  const std::vector<MatchRecord> matches = StoredMatches(*store);
  EXPECT_EQ(matches.size(), static_cast<size_t>(2 * kDeals));
  for (const MatchRecord& match : matches) EXPECT_TRUE(match.finished);
  for (const std::string bot : {"dirk", "random"}) {
    const auto statuses = StatusesOf(matches, bot);
    EXPECT_EQ(statuses.size(), 1u) << bot << " was charged a fault";
    EXPECT_GT(statuses.count(v1::MOVE_STATUS_OK) ? statuses.at(v1::MOVE_STATUS_OK) : 0, 0) << bot;
    for (v1::MoveStatus fault : {v1::MOVE_STATUS_TIMEOUT, v1::MOVE_STATUS_INVALID,
                                 v1::MOVE_STATUS_DISCONNECTED})
      EXPECT_EQ(statuses.count(fault), 0u) << bot << " " << v1::MoveStatus_Name(fault);
  }
  ExpectEveryReplayVerifies(matches);
}

// The engine library, with chosen Apply calls (by their number) failing once
// with UNAVAILABLE: what the arena sees when an engine call still fails after the
// channel's retries.
class FlakyEngine final : public EngineBackend {
 public:
  explicit FlakyEngine(std::set<int> failing_applies) : failing_(std::move(failing_applies)) {}
  absl::Status NewGame(const v1::NewGameRequest& request, v1::NewGameResponse* response) override {
    return engine_->NewGame(request, response);
  }
  absl::Status LegalMoves(const v1::LegalMovesRequest& request,
                          v1::LegalMovesResponse* response) override {
    return engine_->LegalMoves(request, response);
  }
  absl::Status Apply(const v1::ApplyRequest& request, v1::ApplyResponse* response) override {
    if (failing_.count(++applies_)) return absl::UnavailableError("engine replica went away");
    return engine_->Apply(request, response);
  }
  absl::Status Observe(const v1::ObserveRequest& request, v1::ObserveResponse* response) override {
    return engine_->Observe(request, response);
  }

 private:
  std::unique_ptr<EngineBackend> engine_ = MakeEngineBackend("inprocess");
  const std::set<int> failing_;
  std::atomic<int> applies_{0};
};

// A backup taken while a tournament writes to the store is a consistent store: it opens,
// every match in it replays, and it holds the matches finished before it was taken. The
// command-line tool makes the same copy, and `verify` passes on it.
TEST(ArenaTest, BackupIsAConsistentCopyWhileTheStoreIsInUse) {
  const TempDb temp_db("backup_source"), backup_db("backup_copy"), tool_db("backup_tool");
  auto store = OpenStore(temp_db.path);
  auto engine = MakeEngineBackend("inprocess");
  BotHub hub(BotHubOptions{});
  // No bot connects and no strikes are allowed: the fallback plays every seat.
  Referee referee(engine.get(), &hub, store.get(), RefereeOptions{1000, 10000, 0});
  std::vector<v1::Hello> bots(2);
  bots[0].set_name("a");
  bots[1].set_name("b");
  for (v1::Hello& bot : bots) bot.add_games(TestGame().name());
  TournamentOptions options;
  options.games = {TestGame().name()};
  options.deals = 20;
  options.concurrency = 2;
  options.progress = false;
  const std::atomic<bool> stop{false};
  std::atomic<bool> finished{false};
  std::thread tournament([&] {
    EXPECT_TRUE(RunTournament(options, bots, referee, *store, stop).ok());
    finished = true;
  });
  // Back up once some matches are stored, while the others are still being played.
  const auto stored = [&] { return store->FinishedMatches().value_or(std::vector<int64_t>{}).size(); };
  while (!finished && stored() < 4) std::this_thread::yield();
  ASSERT_TRUE(store->Backup(backup_db.path).ok());
  tournament.join();

  auto copy = OpenStore(backup_db.path);
  const std::vector<MatchRecord> copied = StoredMatches(*copy);
  const std::vector<MatchRecord> all = StoredMatches(*store);
  EXPECT_GE(copied.size(), 4u);
  EXPECT_LE(copied.size(), all.size());
  ExpectEveryReplayVerifies(copied);
  // Matches finish out of order when two are played at once, so compare by id: every copied
  // match is the same finished match in the live store.
  std::map<int64_t, size_t> moves_by_id;
  for (const MatchRecord& match : all) moves_by_id[match.id] = match.moves.size();
  for (const MatchRecord& match : copied) {
    ASSERT_TRUE(moves_by_id.count(match.id)) << "match " << match.id;
    EXPECT_EQ(match.moves.size(), moves_by_id[match.id]) << "match " << match.id;
  }

  ChildProcess backup = Start({GAVEL_ARENA_BINARY, "backup", "--db=" + temp_db.path, "--to=" + tool_db.path});
  EXPECT_EQ(backup.Wait(kWaitMs).value_or(-1), 0);
  ChildProcess verify = Start({GAVEL_ARENA_BINARY, "verify", "--db=" + tool_db.path});
  auto verified = verify.WaitForLine("verified ", kWaitMs);
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_EQ(*verified, absl::StrCat("verified ", all.size(), " matches, 0 failed"));
  EXPECT_EQ(verify.Wait(kWaitMs).value_or(-1), 0);
}

// An engine failure during a match is no bot's fault: the match is abandoned and played
// again from the start, and the tournament still finishes every match.
TEST(ArenaTest, AMatchTheEngineFailsDuringIsPlayedAgainFromTheStart) {
  const TempDb temp_db("flaky_engine");
  auto store = OpenStore(temp_db.path);
  FlakyEngine engine({10, 50});
  BotHub hub(BotHubOptions{});
  // Bots that never connect and no strikes allowed: the fallback plays every seat, so the
  // referee asks no bot and only the engine can fail.
  Referee referee(&engine, &hub, store.get(), RefereeOptions{1000, 10000, 0});
  std::vector<v1::Hello> bots(2);
  bots[0].set_name("a");
  bots[1].set_name("b");
  for (v1::Hello& bot : bots) bot.add_games(TestGame().name());
  TournamentOptions options;
  options.games = {TestGame().name()};
  options.deals = 2;
  options.concurrency = 1;
  options.progress = false;
  const std::atomic<bool> stop{false};
  auto report = RunTournament(options, bots, referee, *store, stop);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->matches, 4);
  EXPECT_EQ(report->failed, 0);
  EXPECT_EQ(report->restarted, 2);
  const std::vector<MatchRecord> matches = StoredMatches(*store, report->id);
  ASSERT_EQ(matches.size(), 4u);
  for (const std::string bot : {"a", "b"}) {
    const auto statuses = StatusesOf(matches, bot);
    EXPECT_EQ(statuses.size(), 1u) << bot;
    EXPECT_GT(statuses.count(v1::MOVE_STATUS_REPLACED), 0u) << bot;
  }
  ExpectEveryReplayVerifies(matches);
}

// The engine fails while connected bots are playing (the call that would bring the next
// bot its view): the match is played again, and no bot is charged.
TEST(ArenaTest, AnEngineFailureWhileAskingABotIsNotTheBotsFault) {
  const TempDb temp_db("flaky_apply");
  auto store = OpenStore(temp_db.path);
  FlakyEngine engine({5});
  BotHubOptions hub_options;
  for (const std::string& game : AllGameNames()) hub_options.games.insert(game);
  BotHub hub(hub_options);
  ArenaService service(&hub);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server && port > 0);
  const std::string address = absl::StrCat("127.0.0.1:", port);
  std::vector<v1::Hello> bots(2);
  {
    ScriptedBot first(address, "first"), second(address, "second");
    ASSERT_TRUE(first.WaitWelcomed());
    ASSERT_TRUE(second.WaitWelcomed());
    bots[0].set_name("first");
    bots[1].set_name("second");
    for (v1::Hello& bot : bots) bot.add_games(TestGame().name());
    Referee referee(&engine, &hub, store.get(), RefereeOptions{});
    TournamentOptions options;
    options.games = {TestGame().name()};
    options.deals = 1;
    options.concurrency = 1;
    options.progress = false;
    const std::atomic<bool> stop{false};
    auto report = RunTournament(options, bots, referee, *store, stop);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->matches, 2);
    EXPECT_EQ(report->failed, 0);
    EXPECT_EQ(report->restarted, 1);
    const std::vector<MatchRecord> matches = StoredMatches(*store, report->id);
    ASSERT_EQ(matches.size(), 2u);
    for (const std::string bot : {"first", "second"}) {
      const auto statuses = StatusesOf(matches, bot);
      EXPECT_EQ(statuses.size(), 1u) << bot << " was charged a fault";
      EXPECT_GT(statuses.count(v1::MOVE_STATUS_OK), 0u) << bot;
    }
    ExpectEveryReplayVerifies(matches);
  }  // the bots cancel their streams
  server->Shutdown();
}

// The schedule changes the bots' cyclic order from deal to deal: with four bots at four
// seats, over 6 deals in their rotations every bot holds every seat 6 times and sits
// directly after every other bot 8 times; with five bots, each group of four comes round
// in turn and over 30 deals every bot sits after every other one 24 times.
TEST(ArenaTest, ScheduleBalancesSeatsAndNeighbours) {
  const auto count = [](int bots, int deals) {
    std::vector<v1::Hello> hellos(static_cast<size_t>(bots));
    for (int i = 0; i < bots; ++i) {
      hellos[static_cast<size_t>(i)].set_name(std::string(1, static_cast<char>('a' + i)));
      hellos[static_cast<size_t>(i)].add_games(TestGame().name());
    }
    TournamentOptions options;
    options.games = {TestGame().name()};
    options.players = 4;
    options.deals = deals;
    std::map<std::pair<std::string, int>, int> at_seat;
    std::map<std::pair<std::string, std::string>, int> after;
    const std::vector<MatchPlan> plans = Schedule(options, hellos);
    EXPECT_EQ(plans.size(), static_cast<size_t>(deals * 4));
    for (const MatchPlan& plan : plans) {
      EXPECT_EQ(plan.bots.size(), 4u);
      for (size_t s = 0; s < plan.bots.size(); ++s) {
        ++at_seat[{plan.bots[s], static_cast<int>(s)}];
        ++after[{plan.bots[s], plan.bots[(s + 3) % 4]}];
      }
    }
    return std::pair(at_seat, after);
  };
  const auto [four_seats, four_after] = count(4, 6);
  EXPECT_EQ(four_seats.size(), 16u);
  for (const auto& [bot_seat, times] : four_seats) EXPECT_EQ(times, 6) << bot_seat.first << bot_seat.second;
  EXPECT_EQ(four_after.size(), 12u);
  for (const auto& [pair, times] : four_after) EXPECT_EQ(times, 8) << pair.first << " after " << pair.second;
  const auto [five_seats, five_after] = count(5, 30);
  EXPECT_EQ(five_after.size(), 20u);
  for (const auto& [pair, times] : five_after) EXPECT_EQ(times, 24) << pair.first << " after " << pair.second;
}

// Each seat rotation gets its own deal unless the host asks for duplicate deals (a bot that
// held a seat of a deal would know that seat's cards when it comes round again); the deals
// follow from the tournament's seed alone, and a host who gives none gets a random one.
TEST(ArenaTest, EveryRotationIsItsOwnDealUnlessDuplicated) {
  std::vector<v1::Hello> hellos(3);
  for (size_t i = 0; i < hellos.size(); ++i) {
    hellos[i].set_name(std::string(1, static_cast<char>('a' + i)));
    hellos[i].add_games(TestGame().name());
  }
  TournamentOptions options;
  options.games = {TestGame().name()};
  options.players = 3;
  options.deals = 4;
  const auto seeds = [&hellos](const TournamentOptions& options) {
    std::vector<uint64_t> out;
    for (const MatchPlan& plan : Schedule(options, hellos)) out.push_back(plan.seed);
    return out;
  };
  const std::vector<uint64_t> own = seeds(options);
  ASSERT_EQ(own.size(), 12u);
  EXPECT_EQ(std::set<uint64_t>(own.begin(), own.end()).size(), 12u);
  EXPECT_EQ(seeds(options), own) << "the same seed, the same deals";
  options.duplicate_deals = true;
  const std::vector<uint64_t> duplicated = seeds(options);
  ASSERT_EQ(duplicated.size(), 12u);
  for (size_t match = 0; match < duplicated.size(); ++match)
    EXPECT_EQ(duplicated[match], duplicated[match / 3 * 3]) << "match " << match;
  EXPECT_EQ(std::set<uint64_t>(duplicated.begin(), duplicated.end()).size(), 4u);
  options.duplicate_deals = false;
  options.seed = 2;
  const std::vector<uint64_t> other = seeds(options);
  EXPECT_TRUE(std::none_of(other.begin(), other.end(), [&own](uint64_t seed) {
    return std::find(own.begin(), own.end(), seed) != own.end();
  }));
  EXPECT_NE(SecretSeed(), SecretSeed());
  EXPECT_NE(SecretSeed(), 0u);
}

}  // namespace
}  // namespace gavel::arena
