// The arena's pages: the JSON under /api/ after a tournament over every game of the build,
// bad requests, a live match, and the pages in a real browser (headless Chromium): the
// leaderboard and a replay of each game at a middle step, checked in the DOM, with a
// screenshot of each board written beside the test binary.
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "gavel/v1/arena_web.pb.h"
#include "service/arena/live_matches.h"
#include "service/arena/referee.h"
#include "service/arena/replay.h"
#include "service/arena/web_server.h"
#include "tests/arena/recorded_match.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/support/child_process.h"
#include "tests/support/http_get.h"
#include "tests/support/pki.h"

namespace gavel::arena {
namespace {

using ::gavel::testing::ChildProcess;
using ::gavel::testing::HttpGet;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kWaitMs = 180000;  // a bound for a stuck process, not a timing expectation

ChildProcess MustStart(const std::vector<std::string>& argv) {
  auto process = ChildProcess::Start(argv);
  EXPECT_TRUE(process.ok()) << process.status();
  return std::move(*process);
}

template <typename Message>
Message Get(int port, const std::string& path) {
  Message message;
  auto body = HttpGet(port, path);
  EXPECT_TRUE(body.ok()) << path << ": " << body.status();
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(body.value_or("{}"), &message).ok()) << path;
  return message;
}

// What a browser shows: the DOM after the page's scripts ran (Chromium's virtual time
// budget lets the page's requests finish first).
std::string BrowserDom(int port, const std::string& path, const std::string& screenshot = "",
                       const std::string& scheme = "http") {
  std::string command = absl::StrCat(
      "chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 --window-size=1280,1100 ",
      scheme == "https" ? "--ignore-certificate-errors " : "",
      screenshot.empty() ? "--dump-dom" : "--screenshot=" + screenshot, " '", scheme, "://127.0.0.1:", port,
      path, "' 2>/dev/null");
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[65536];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    pclose(pipe);
  }
  return out;
}

// An arena with its pages, a tournament of one deal per game between two random bots.
class WebTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The games' messages (the views inside the JSON) come with the games: link them in.
    ASSERT_FALSE(AllGames().empty());
    db_ = new std::string(absl::StrCat(::gavel::testing::BuildDir(), "/web_test_", getpid(), ".db"));
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((*db_ + suffix).c_str());
    arena_ = new ChildProcess(MustStart({GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                                         "--db=" + *db_, "--tournament", "--deals=1", "--wait_for_bots=2",
                                         "--progress=false", "--log_level=warn"}));
    auto http = arena_->WaitForLine("http on port ", kWaitMs);
    ASSERT_TRUE(http.ok()) << http.status();
    http_port_ = std::stoi(http->substr(std::string("http on port ").size()));
    auto port = arena_->WaitForPort(kWaitMs);
    ASSERT_TRUE(port.ok()) << port.status();
    for (const char* name : {"alpha", "beta"})
      bots_.push_back(MustStart({GAVEL_BOT_BINARY, "--policy=random", std::string("--name=") + name,
                                 absl::StrCat("--arena=127.0.0.1:", *port), "--log_level=error"}));
    ASSERT_TRUE(arena_->WaitForLine("tournament ", kWaitMs).ok());
  }
  static void TearDownTestSuite() {
    bots_.clear();
    delete arena_;
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((*db_ + suffix).c_str());
    delete db_;
  }

  static std::string* db_;
  static ChildProcess* arena_;
  static std::vector<ChildProcess> bots_;
  static int http_port_;
};

std::string* WebTest::db_ = nullptr;
ChildProcess* WebTest::arena_ = nullptr;
std::vector<ChildProcess> WebTest::bots_;
int WebTest::http_port_ = 0;

TEST_F(WebTest, TheApiGivesStandingsMatchesAndVerifiedReplays) {
  const auto standings = Get<v1::WebStandings>(http_port_, "/api/standings");
  EXPECT_GT(standings.matches(), 0);
  ASSERT_GT(standings.games_size(), 0);
  for (const v1::WebGameStandings& game : standings.games()) {
    ASSERT_EQ(game.rows_size(), 2) << game.game();
    EXPECT_GE(game.rows(0).conservative(), game.rows(1).conservative());  // the table's order
  }
  const auto tournaments = Get<v1::WebTournaments>(http_port_, "/api/tournaments");
  ASSERT_EQ(tournaments.tournaments_size(), 1);
  EXPECT_EQ(tournaments.tournaments(0).matches(), standings.matches());

  const auto matches = Get<v1::WebMatches>(http_port_, "/api/matches");
  ASSERT_EQ(matches.matches_size(), standings.matches());
  for (const v1::WebMatch& match : matches.matches()) {
    const auto replay = Get<v1::WebReplay>(http_port_, absl::StrCat("/api/match/", match.id()));
    EXPECT_EQ(replay.steps_size(), match.moves() + 1) << match.game();
    EXPECT_FALSE(replay.revealed());
    ASSERT_GT(replay.steps_size(), 1) << match.game();
    EXPECT_TRUE(replay.steps(replay.steps_size() - 1).move().empty()) << "unrevealed, the events tell the moves";
    EXPECT_GT(replay.steps(replay.steps_size() - 1).events_size(), 0);
    for (const int index : {0, replay.steps_size() / 2, replay.steps_size() - 1}) {
      const auto step = Get<v1::WebStep>(http_port_, absl::StrCat("/api/match/", match.id(), "/step/", index));
      EXPECT_EQ(step.view().seat(), -1) << "a spectator's view";
      EXPECT_EQ(step.view().game(), match.game());
      EXPECT_EQ(step.seat_views_size(), 0) << "hands are hidden unless the host reveals them";
      EXPECT_EQ(replay.steps(index).scores_size(), index == replay.steps_size() - 1 ? step.view().seats() : 0)
          << "scores at the end only";
    }
  }
  const std::string first_game = matches.matches(0).game();
  const auto filtered = Get<v1::WebMatches>(http_port_, "/api/matches?game=" + first_game + "&bot=alpha");
  ASSERT_GT(filtered.matches_size(), 0);
  for (const v1::WebMatch& match : filtered.matches()) EXPECT_EQ(match.game(), first_game);
}

TEST_F(WebTest, BadRequestsGetClearErrors) {
  EXPECT_THAT(HttpGet(http_port_, "/api/match/abc").status().message(), HasSubstr(" 400 "));
  EXPECT_THAT(HttpGet(http_port_, "/api/match/999999").status().message(), HasSubstr(" 404 "));
  EXPECT_THAT(HttpGet(http_port_, "/api/nothing").status().message(), HasSubstr(" 404 "));
  EXPECT_THAT(HttpGet(http_port_, "/api/match/1/step/999999").status().message(), HasSubstr(" 404 "));
  EXPECT_THAT(HttpGet(http_port_, "/api/match/1/step/-1").status().message(), HasSubstr(" 400 "));
  EXPECT_THAT(HttpGet(http_port_, "/api/match/1/view/2").status().message(), HasSubstr(" 400 "));
  EXPECT_THAT(HttpGet(http_port_, "/../../etc/passwd").status().message(), HasSubstr(" 404 "));
  EXPECT_THAT(HttpGet(http_port_, "/api/standings?tournament=-5").value_or(""), HasSubstr("\"games\""));
}

TEST_F(WebTest, ABrowserShowsTheLeaderboardAndEveryGamesBoard) {
  const std::string leaderboard = BrowserDom(http_port_, "/");
  EXPECT_THAT(leaderboard, HasSubstr("class=\"standing\""));
  EXPECT_THAT(leaderboard, HasSubstr("alpha"));
  EXPECT_THAT(leaderboard, HasSubstr("beta"));

  const auto matches = Get<v1::WebMatches>(http_port_, "/api/matches");
  std::set<std::string> shown;
  for (const v1::WebMatch& match : matches.matches()) {
    if (!shown.insert(match.game()).second) continue;
    const int middle = match.moves() / 2;
    const auto replay = Get<v1::WebReplay>(http_port_, absl::StrCat("/api/match/", match.id()));
    const std::string path = absl::StrCat("/match.html?id=", match.id(), "&step=", middle);
    const std::string dom = BrowserDom(http_port_, path);
    EXPECT_THAT(dom, HasSubstr("board-" + match.game())) << match.game();
    EXPECT_THAT(dom, HasSubstr(absl::StrCat("step ", middle, " of ", match.moves()))) << match.game();
    // Unrevealed: the mover and the public events, no move text, no scores before the end.
    const v1::WebStep& step = replay.steps(middle);
    const std::string& mover = match.bots(step.seat());
    if (!mover.empty()) {
      EXPECT_THAT(dom, HasSubstr(absl::StrCat(middle, ". ", mover, " (seat ", step.seat(), ")<")));
    }
    for (const std::string& event : step.events()) EXPECT_THAT(dom, HasSubstr(event)) << match.game();
    EXPECT_THAT(dom, HasSubstr("Scores are shown at the end.")) << match.game();
    // A spectator's page holds no seat's view: revealed views would appear under "hands".
    EXPECT_THAT(dom, Not(HasSubstr("Every seat's view"))) << match.game();
    const std::string screenshot = absl::StrCat(::gavel::testing::BuildDir(), "/web_test_", match.game(), ".png");
    BrowserDom(http_port_, path, screenshot);
    FILE* file = std::fopen(screenshot.c_str(), "rb");
    EXPECT_NE(file, nullptr) << "no screenshot of " << match.game();
    if (file) std::fclose(file);
    ::testing::Test::RecordProperty("screenshot_" + match.game(), screenshot);
  }
  EXPECT_GE(shown.size(), 1u);
}

// Sultan's hands: on a spectator page no hand appears, with --reveal_finished every seat's
// view does (the host's choice for finished matches).
TEST(WebReveal, FinishedMatchesShowEverySeatOnlyWhenTheHostRevealsThem) {
  ASSERT_FALSE(AllGames().empty());  // links the games' messages in, for the JSON's views
  const std::string db = absl::StrCat(::gavel::testing::BuildDir(), "/web_reveal_", getpid(), ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
  ChildProcess arena = MustStart({GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                                  "--db=" + db, "--tournament", "--deals=1", "--wait_for_bots=2",
                                  "--progress=false", "--log_level=warn", "--reveal_finished"});
  auto http = arena.WaitForLine("http on port ", kWaitMs);
  ASSERT_TRUE(http.ok());
  const int http_port = std::stoi(http->substr(std::string("http on port ").size()));
  auto port = arena.WaitForPort(kWaitMs);
  ASSERT_TRUE(port.ok());
  std::vector<ChildProcess> bots;
  for (const char* name : {"alpha", "beta"})
    bots.push_back(MustStart({GAVEL_BOT_BINARY, "--policy=random", std::string("--name=") + name,
                              absl::StrCat("--arena=127.0.0.1:", *port), "--log_level=error"}));
  ASSERT_TRUE(arena.WaitForLine("tournament ", kWaitMs).ok());
  const auto matches = Get<v1::WebMatches>(http_port, "/api/matches");
  ASSERT_GT(matches.matches_size(), 0);
  const auto replay = Get<v1::WebReplay>(http_port, absl::StrCat("/api/match/", matches.matches(0).id()));
  EXPECT_TRUE(replay.revealed());
  ASSERT_GT(replay.steps_size(), 1);
  const auto step = Get<v1::WebStep>(http_port, absl::StrCat("/api/match/", matches.matches(0).id(), "/step/1"));
  EXPECT_EQ(step.seat_views_size(), step.view().seats());
  ASSERT_GT(step.seat_views_size(), 0);
  EXPECT_EQ(step.seat_views(0).seat(), 0);
  const std::string dom = BrowserDom(http_port, absl::StrCat("/match.html?id=", matches.matches(0).id(), "&step=1"));
  EXPECT_THAT(dom, HasSubstr("Every seat's view"));
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
}

// What the pages show of a match before its host reveals it, during play and after, holds
// nothing a seat keeps to itself: no seed, no move's text (Sultan's names a face-down bid's
// card; the step's public events tell the move) and no scores before the end (some games
// keep them hidden); a revealed finished match shows them all. Every move, a pass included,
// tells the spectator something.
TEST(WebReplay, ShowsMovesAndScoresOnlyWhenTheHostRevealsTheFinishedMatch) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    const MatchRecord finished = testing::RecordedRandomMatch(*game, game->info().max_players, 11,
                                                              [](const State& state) { return state.Bytes(); });
    ASSERT_TRUE(finished.finished);
    std::vector<int> told;  // per step, the events a spectator may see
    ASSERT_TRUE(WalkReplay(finished, [&told](const ReplayStep& step) {
      const auto public_event = [](const auto& event) { return SpectatorSees(event.first); };
      told.push_back(static_cast<int>(std::count_if(step.events.begin(), step.events.end(), public_event)));
      EXPECT_TRUE(step.ply == 0 || told.back() > 0) << "step " << step.ply << " tells a spectator nothing";
    }).ok());
    MatchRecord playing = finished;
    playing.id += 1000;
    playing.moves.resize(finished.moves.size() / 2);
    playing.finished = false;
    playing.scores.clear();
    playing.ranks.clear();
    LiveMatches live;
    live.Begin(finished);  // the data reads a finished match's record alike from either
    live.Begin(playing);
    for (const bool reveal : {false, true}) {
      WebOptions options;
      options.reveal_finished = reveal;
      WebData data(nullptr, &live, options);
      for (const MatchRecord* match : std::initializer_list<const MatchRecord*>{&playing, &finished}) {
        auto replay = data.Replay(match->id);
        ASSERT_TRUE(replay.ok()) << replay.status();
        const bool shown = reveal && match->finished;
        EXPECT_EQ(replay->revealed(), shown);
        EXPECT_EQ(replay->match().seed(), shown ? match->seed : 0) << "a seed gives away every card";
        ASSERT_EQ(replay->steps_size(), static_cast<int>(match->moves.size()) + 1);
        for (const v1::WebStep& step : replay->steps()) {
          const bool last = step.ply() == replay->steps_size() - 1;
          EXPECT_EQ(step.move().empty(), !shown || step.ply() == 0) << "step " << step.ply();
          EXPECT_EQ(step.scores_size(), shown || (last && match->finished) ? match->bots.size() : 0)
              << "step " << step.ply();
          EXPECT_EQ(step.events_size(), told[step.ply()]) << "step " << step.ply();
        }
      }
    }
  }
}

// A match in play shows in the list as live, and its replay so far.
TEST(WebLive, AMatchInPlayIsShownAsItGoes) {
  const std::string db = absl::StrCat(::gavel::testing::BuildDir(), "/web_live_", getpid(), ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
  ChildProcess arena = MustStart({GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                                  "--db=" + db, "--tournament", "--deals=3", "--wait_for_bots=2",
                                  "--progress=false", "--log_level=warn", "--concurrency=1"});
  auto http = arena.WaitForLine("http on port ", kWaitMs);
  ASSERT_TRUE(http.ok());
  const int http_port = std::stoi(http->substr(std::string("http on port ").size()));
  auto port = arena.WaitForPort(kWaitMs);
  ASSERT_TRUE(port.ok());
  std::vector<ChildProcess> bots;
  // A bot that thinks for a while on every move keeps a match in play long enough to watch.
  bots.push_back(MustStart({GAVEL_BOT_BINARY, "--policy=ismcts", "--time_ms=100", "--name=thinker",
                            absl::StrCat("--arena=127.0.0.1:", *port), "--log_level=error"}));
  bots.push_back(MustStart({GAVEL_BOT_BINARY, "--policy=random", "--name=quick",
                            absl::StrCat("--arena=127.0.0.1:", *port), "--log_level=error"}));
  v1::WebMatch live;
  for (int poll = 0; poll < 200000 && (live.id() == 0 || live.moves() < 2); ++poll) {  // an observed state
    const auto matches = Get<v1::WebMatches>(http_port, "/api/matches");
    for (const v1::WebMatch& match : matches.matches())
      if (match.live()) live = match;
    std::this_thread::yield();
  }
  ASSERT_NE(live.id(), 0) << "no match was seen in play";
  const auto replay = Get<v1::WebReplay>(http_port, absl::StrCat("/api/match/", live.id()));
  EXPECT_TRUE(replay.match().live());
  EXPECT_FALSE(replay.match().finished());
  EXPECT_GE(replay.steps_size(), 3);
  const std::string dom = BrowserDom(http_port, absl::StrCat("/match.html?id=", live.id()));
  EXPECT_THAT(dom, HasSubstr(absl::StrCat("Match ", live.id())));
  // The page marks the match live while it is in play (it may have ended meanwhile).
  const bool still_live = Get<v1::WebReplay>(http_port, absl::StrCat("/api/match/", live.id())).match().live();
  if (still_live) {
    EXPECT_THAT(dom, HasSubstr("class=\"live\""));
  }
  arena.Signal(SIGTERM);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
}

// GET https://127.0.0.1:port/path trusting only `ca_file`: the body, or empty on any failure
// (the handshake included).
std::string HttpsGet(int port, const std::string& path, const std::string& ca_file) {
  httplib::SSLClient client("127.0.0.1", port);
  client.set_ca_cert_path(ca_file.c_str());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(std::chrono::seconds(10));
  auto response = client.Get(path.c_str());
  return response && response->status == 200 ? response->body : "";
}

// The pages speak TLS with the arena's certificate and key, and serve a new pair written
// over the files without a restart.
TEST(WebTls, ThePagesServeTheArenasCertificateAndItsRotation) {
  ::gavel::testing::Pki pki("web");
  pki.MakeCa("first_ca");
  pki.MakeCert("first", "localhost", "first_ca");
  pki.MakeCa("second_ca");
  pki.MakeCert("second", "localhost", "second_ca");
  auto install = [&](const std::string& name) {
    for (const char* ext : {".key", ".pem"})
      std::filesystem::copy_file(pki.Path(name + ext), pki.Path(std::string("serving") + ext),
                                 std::filesystem::copy_options::overwrite_existing);
  };
  install("first");
  const std::string db = absl::StrCat(::gavel::testing::BuildDir(), "/web_tls_", getpid(), ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
  ChildProcess arena = MustStart({GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                                  "--tls_cert=" + pki.Path("serving.pem"), "--tls_key=" + pki.Path("serving.key"),
                                  "--tls_refresh_s=1", "--db=" + db, "--tournament", "--wait_for_bots=2",
                                  "--progress=false", "--log_level=warn"});
  auto https = arena.WaitForLine("https on port ", kWaitMs);
  ASSERT_TRUE(https.ok()) << https.status();
  const int port = std::stoi(https->substr(std::string("https on port ").size()));

  EXPECT_THAT(HttpsGet(port, "/api/standings", pki.Path("first_ca.pem")), HasSubstr("\"games\""));
  EXPECT_EQ(HttpsGet(port, "/api/standings", pki.Path("second_ca.pem")), "");  // not its CA
  auto plain = HttpGet(port, "/api/standings");
  EXPECT_THAT(plain.value_or(""), Not(HasSubstr("\"games\"")));  // no plain HTTP on the TLS port
  EXPECT_THAT(BrowserDom(port, "/", "", "https"), HasSubstr("<main"));

  install("second");
  std::string rotated;
  for (int attempt = 0; attempt < 100000 && rotated.empty(); ++attempt)  // until the arena looks again
    rotated = HttpsGet(port, "/api/standings", pki.Path("second_ca.pem"));
  EXPECT_THAT(rotated, HasSubstr("\"games\""));
  EXPECT_EQ(HttpsGet(port, "/api/standings", pki.Path("first_ca.pem")), "");
  arena.Signal(SIGTERM);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
}

// Plain HTTP beyond loopback is refused at start, as for the arena's gRPC port.
TEST(WebTls, PlainPagesBeyondLoopbackNeedInsecure) {
  ChildProcess arena = MustStart({GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--http_listen=0.0.0.0:0",
                                  "--db=:memory:", "--tournament", "--wait_for_bots=2", "--progress=false"});
  EXPECT_EQ(arena.Wait(kWaitMs).value_or(-1), 1);
}

}  // namespace
}  // namespace gavel::arena
