// Bot accounts: tokens are random and stored only as hashes; the arena admits a bot with
// its account's current token under that account's name only; wrong, revoked and
// rotated-away tokens are refused; failed attempts are throttled per address; a newer
// connection of an account replaces the older one; a flooding bot is cut off. End to end: a
// tournament over TLS between token-holding bot processes, with impostors trying an honest
// bot's name while it is connected and while it is away.
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/arena/accounts.h"
#include "service/arena/bot_hub.h"
#include "service/arena/store.h"
#include "service/arena/tournament.h"
#include "service/tls.h"
#include "tests/support/child_process.h"
#include "tests/support/pki.h"
#include "tests/support/test_games.h"

namespace gavel::arena {
namespace {

using ::gavel::testing::ChildProcess;
using ::gavel::testing::Pki;
using ::testing::HasSubstr;
using Stream = grpc::ClientReaderWriter<v1::BotMessage, v1::ArenaMessage>;

constexpr int kWaitMs = 120000;  // a bound for a stuck process, not a timing expectation

struct TempDb {
  explicit TempDb(const std::string& name)
      : path(absl::StrCat(::gavel::testing::BuildDir(), "/accounts_test_", name, "_", getpid(), ".db")) {
    Remove();
  }
  ~TempDb() { Remove(); }
  void Remove() const {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  }
  const std::string path;
};

std::unique_ptr<Store> OpenStore(const std::string& path) {
  auto store = Store::Open(path);
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

// An arena's bot listener in this process, on a loopback port.
class Arena {
 public:
  explicit Arena(BotHubOptions options, const std::string& db_name = "arena")
      : db_(db_name), store_(OpenStore(db_.path)), accounts_(store_.get()) {
    options.accounts = &accounts_;
    options.games = {::gavel::testing::TestGame().name()};
    hub_ = std::make_unique<BotHub>(options);
    service_ = std::make_unique<ArenaService>(hub_.get());
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
  }
  ~Arena() { server_->Shutdown(std::chrono::system_clock::now()); }

  AccountBook& accounts() { return accounts_; }
  BotHub& hub() { return *hub_; }
  Store& store() { return *store_; }

  // A new stream that sends `token` (if any) and a hello for `name`; returns the stream's
  // status once it is refused, or OK once it is welcomed (then `kept` holds it open).
  grpc::Status Connect(const std::string& token, const std::string& name,
                       std::unique_ptr<Stream>* kept = nullptr,
                       std::unique_ptr<grpc::ClientContext>* kept_context = nullptr) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    auto stub = v1::Arena::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", port_),
                                                       grpc::InsecureChannelCredentials()));
    std::unique_ptr<Stream> stream = stub->Play(context.get());
    v1::BotMessage hello;
    hello.mutable_hello()->set_name(name);
    hello.mutable_hello()->add_games(::gavel::testing::TestGame().name());
    stream->Write(hello);
    v1::ArenaMessage message;
    if (stream->Read(&message) && message.has_welcome()) {
      if (kept) *kept = std::move(stream);
      if (kept_context) *kept_context = std::move(context);
      return grpc::Status::OK;
    }
    stream->WritesDone();
    return stream->Finish();
  }

 private:
  TempDb db_;
  std::unique_ptr<Store> store_;
  AccountBook accounts_;
  std::unique_ptr<BotHub> hub_;
  std::unique_ptr<ArenaService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

BotHubOptions ClosedArena() {
  BotHubOptions options;
  options.open_registration = false;
  options.failed_logins.burst = 1000;  // these tests are not about throttling
  return options;
}

TEST(Accounts, TokensAreLongRandomAndStoredOnlyAsTheirHashes) {
  TempDb db("tokens");
  auto store = OpenStore(db.path);
  AccountBook accounts(store.get());
  auto alice = accounts.Add("alice");
  auto bob = accounts.Add("bob");
  ASSERT_TRUE(alice.ok() && bob.ok());
  EXPECT_NE(*alice, *bob);
  // "gavel_" and 43 base64url characters: 256 bits.
  EXPECT_THAT(*alice, ::testing::MatchesRegex("gavel_[A-Za-z0-9_-]{43}"));
  EXPECT_EQ(accounts.Add("alice").status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(accounts.Add("not a name").status().code(), absl::StatusCode::kInvalidArgument);
  auto list = accounts.List();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].token_hash, HashToken(*alice));
  EXPECT_THAT((*list)[0].token_hash, ::testing::Not(HasSubstr(alice->substr(6, 8))));
  // Nothing in the file holds the token.
  store.reset();
  std::ifstream file(db.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_THAT(bytes, ::testing::Not(HasSubstr(*alice)));
}

TEST(Accounts, OnlyTheCurrentTokenOfAnActiveAccountIsAdmitted) {
  Arena arena(ClosedArena());
  const std::string token = *arena.accounts().Add("alice");
  EXPECT_TRUE(arena.Connect(token, "alice").ok());
  EXPECT_EQ(arena.Connect(token + "x", "alice").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(arena.Connect("", "alice").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(arena.Connect("gavel_guess", "alice").error_code(), grpc::StatusCode::UNAUTHENTICATED);

  const std::string rotated = *arena.accounts().Rotate("alice");
  EXPECT_EQ(arena.Connect(token, "alice").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(arena.Connect(rotated, "alice").ok());

  ASSERT_TRUE(arena.accounts().Revoke("alice").ok());
  const grpc::Status revoked = arena.Connect(rotated, "alice");
  EXPECT_EQ(revoked.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(revoked.error_message(), ::testing::Not(HasSubstr(rotated)));
}

// Revoking or rotating a token ends the stream of a bot connected with it.
TEST(Accounts, RevokingOrRotatingDisconnectsTheBotsUsingTheToken) {
  Arena arena(ClosedArena());
  const std::string alice = *arena.accounts().Add("alice");
  const std::string bob = *arena.accounts().Add("bob");
  std::unique_ptr<Stream> alice_stream, bob_stream;
  std::unique_ptr<grpc::ClientContext> alice_context, bob_context;
  ASSERT_TRUE(arena.Connect(alice, "alice", &alice_stream, &alice_context).ok());
  ASSERT_TRUE(arena.Connect(bob, "bob", &bob_stream, &bob_context).ok());
  EXPECT_EQ(arena.hub().RecheckAccounts(), 0);
  ASSERT_TRUE(arena.accounts().Revoke("alice").ok());
  ASSERT_TRUE(arena.accounts().Rotate("bob").ok());
  EXPECT_EQ(arena.hub().RecheckAccounts(), 2);
  for (Stream* stream : {alice_stream.get(), bob_stream.get()}) {
    v1::ArenaMessage message;
    EXPECT_FALSE(stream->Read(&message));
    EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  EXPECT_TRUE(arena.hub().Connected().empty());
}

// House bots' tokens come from files (a mounted Secret), named by the bot.
TEST(Accounts, HouseAccountsComeFromAFolderOfTokenFiles) {
  Arena arena(ClosedArena());
  const std::string dir = ::gavel::testing::BuildDir() + "/accounts_test_house_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/..data");
  std::ofstream(dir + "/dirk") << "house-token-of-dirk-0123456789\n";
  std::ofstream(dir + "/..data/ignored") << "whatever";
  ASSERT_TRUE(arena.accounts().EnsureFromDirectory(dir).ok());
  EXPECT_TRUE(arena.Connect("house-token-of-dirk-0123456789", "dirk").ok());
  // A new token in the file replaces the old one; a revocation stays.
  std::ofstream(dir + "/dirk") << "house-token-of-dirk-abcdefghij\n";
  ASSERT_TRUE(arena.accounts().EnsureFromDirectory(dir).ok());
  EXPECT_EQ(arena.Connect("house-token-of-dirk-0123456789", "dirk").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(arena.Connect("house-token-of-dirk-abcdefghij", "dirk").ok());
  ASSERT_TRUE(arena.accounts().Revoke("dirk").ok());
  ASSERT_TRUE(arena.accounts().EnsureFromDirectory(dir).ok());
  EXPECT_EQ(arena.Connect("house-token-of-dirk-abcdefghij", "dirk").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  std::ofstream(dir + "/no such name!") << "house-token-0123456789";
  EXPECT_FALSE(arena.accounts().EnsureFromDirectory(dir).ok());
  std::filesystem::remove_all(dir);
}

TEST(Accounts, ANameBelongsToItsAccountAlone) {
  BotHubOptions open = ClosedArena();
  open.open_registration = true;
  Arena arena(open);
  const std::string alice = *arena.accounts().Add("alice");
  const std::string bob = *arena.accounts().Add("bob");
  // Another account's token, or no token, cannot take an account's name ...
  EXPECT_EQ(arena.Connect(bob, "alice").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(arena.Connect("", "alice").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // ... not even after the account was revoked: its name and results stay its own.
  ASSERT_TRUE(arena.accounts().Revoke("alice").ok());
  EXPECT_EQ(arena.Connect("", "alice").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // Open registration admits a bot without a token under a free name.
  EXPECT_TRUE(arena.Connect("", "newcomer").ok());
  EXPECT_TRUE(arena.Connect(bob, "bob").ok());
}

TEST(Accounts, FailedAttemptsAreThrottledPerAddress) {
  BotHubOptions options = ClosedArena();
  options.failed_logins = {.per_second = 1e-6, .burst = 5, .max_peers = 100};
  Arena arena(options);
  const std::string token = *arena.accounts().Add("alice");
  for (int attempt = 0; attempt < 5; ++attempt)
    EXPECT_EQ(arena.Connect("gavel_guess" + std::to_string(attempt), "alice").error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  // The address is now refused before any token is looked at, the right one included.
  EXPECT_EQ(arena.Connect("gavel_guess", "alice").error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(arena.Connect(token, "alice").error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST(Accounts, TheThrottleRefillsAndRemembersBoundedlyManyAddresses) {
  auto now = std::chrono::steady_clock::time_point();
  FailureThrottle throttle({.per_second = 0.5, .burst = 2, .max_peers = 3}, [&] { return now; });
  throttle.Failed("a");
  EXPECT_TRUE(throttle.Allowed("a"));
  throttle.Failed("a");
  EXPECT_FALSE(throttle.Allowed("a"));
  now += std::chrono::seconds(2);  // one attempt back
  EXPECT_TRUE(throttle.Allowed("a"));
  throttle.Failed("a");
  EXPECT_FALSE(throttle.Allowed("a"));
  // Three failing addresses fill the table; a fourth is throttled until one has refilled.
  throttle.Failed("b");
  throttle.Failed("c");
  EXPECT_FALSE(throttle.Allowed("d"));
  now += std::chrono::seconds(10);
  throttle.Failed("d");  // b and c have refilled and are forgotten
  EXPECT_TRUE(throttle.Allowed("d"));
  EXPECT_TRUE(throttle.Allowed("b"));
}

TEST(Accounts, ANewConnectionOfAnAccountReplacesTheOldOne) {
  Arena arena(ClosedArena());
  const std::string token = *arena.accounts().Add("alice");
  std::unique_ptr<Stream> first;
  std::unique_ptr<grpc::ClientContext> first_context;
  ASSERT_TRUE(arena.Connect(token, "alice", &first, &first_context).ok());
  std::unique_ptr<Stream> second;
  std::unique_ptr<grpc::ClientContext> second_context;
  ASSERT_TRUE(arena.Connect(token, "alice", &second, &second_context).ok());
  v1::ArenaMessage message;
  EXPECT_FALSE(first->Read(&message));
  const grpc::Status replaced = first->Finish();
  EXPECT_EQ(replaced.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_THAT(replaced.error_message(), HasSubstr("replaced"));
  ASSERT_EQ(arena.hub().Connected().size(), 1u);
  EXPECT_TRUE(arena.hub().Find("alice") != nullptr);
  // Without accounts a connected name stays first come, first served.
  BotHubOptions open = ClosedArena();
  open.open_registration = true;
  Arena open_arena(open, "open");
  std::unique_ptr<Stream> kept;
  std::unique_ptr<grpc::ClientContext> kept_context;
  ASSERT_TRUE(open_arena.Connect("", "carol", &kept, &kept_context).ok());
  EXPECT_EQ(open_arena.Connect("", "carol").error_code(), grpc::StatusCode::ALREADY_EXISTS);
}

TEST(Accounts, ABotSendingTooManyMessagesIsCutOff) {
  BotHubOptions options = ClosedArena();
  options.messages_per_s = 1;
  options.message_burst = 20;
  Arena arena(options);
  const std::string token = *arena.accounts().Add("alice");
  std::unique_ptr<Stream> stream;
  std::unique_ptr<grpc::ClientContext> context;
  ASSERT_TRUE(arena.Connect(token, "alice", &stream, &context).ok());
  v1::BotMessage reply;
  reply.mutable_move()->set_request_id(12345);
  for (int i = 0; i < 100 && stream->Write(reply); ++i) {
  }
  v1::ArenaMessage message;
  while (stream->Read(&message)) {
  }
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
}

TEST(Accounts, ABotSitsInAtMostItsShareOfMatchesAtOnce) {
  MatchSlots slots(1);
  EXPECT_TRUE(slots.TryAcquire({"a", "b"}));
  EXPECT_FALSE(slots.TryAcquire({"a", "c"}));  // a is busy: c is not taken either
  EXPECT_TRUE(slots.TryAcquire({"c", "d"}));
  slots.Release({"a", "b"});
  EXPECT_TRUE(slots.TryAcquire({"a", "b"}));
  MatchSlots unlimited(0);
  EXPECT_TRUE(unlimited.TryAcquire({"a"}));
  EXPECT_TRUE(unlimited.TryAcquire({"a"}));
}

TEST(Accounts, BearerTokensAndPeerAddresses) {
  EXPECT_EQ(BearerToken("Bearer gavel_x"), "gavel_x");
  EXPECT_EQ(BearerToken("bearer gavel_x"), "gavel_x");
  EXPECT_EQ(BearerToken("Basic gavel_x"), "");
  EXPECT_EQ(BearerToken("Bearer "), "");
  EXPECT_EQ(PeerAddress("ipv4:10.0.0.7:51234"), "ipv4:10.0.0.7");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:51234"), "ipv6:[::1]");
}

// The arena's tool writes a token to stdout alone.
std::string AddAccount(const std::string& db, const std::string& name, const std::string& file) {
  auto tool = ChildProcess::Start({GAVEL_ARENA_BINARY, "accounts", "add", name, "--db=" + db});
  EXPECT_TRUE(tool.ok());
  auto token = tool->WaitForLine("gavel_", kWaitMs);
  EXPECT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(tool->Wait(kWaitMs).value_or(-1), 0);
  std::ofstream(file) << token.value_or("") << "\n";
  return token.value_or("");
}

ChildProcess StartBot(int port, const std::string& name, const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {GAVEL_BOT_BINARY, "--policy=random", "--name=" + name,
                                   absl::StrCat("--arena=localhost:", port), "--log_level=error"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  auto bot = ChildProcess::Start(argv);
  EXPECT_TRUE(bot.ok()) << bot.status();
  return std::move(*bot);
}

size_t FinishedMatches(const std::string& db) {
  return OpenStore(db)->FinishedMatches().value_or(std::vector<int64_t>{}).size();
}

// Waits until the store holds `count` finished matches (the arena writes them as it goes).
void WaitForFinishedMatches(const std::string& db, size_t count) {
  while (FinishedMatches(db) < count) std::this_thread::yield();
}

TEST(Accounts, ATlsTournamentBetweenTokenHoldersAdmitsNoImpostor) {
  Pki pki("accounts");
  pki.MakeCa("ca");
  pki.MakeCert("arena", "arena", "ca");
  TempDb db("tournament");
  AddAccount(db.path, "honest", pki.Path("honest.token"));
  AddAccount(db.path, "other", pki.Path("other.token"));
  auto arena = ChildProcess::Start(
      {GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--log_level=warn", "--db=" + db.path,
       "--tls_cert=" + pki.Path("arena.pem"), "--tls_key=" + pki.Path("arena.key"),
       "--open_registration=false", "--games=" + ::gavel::testing::TestGame().name(), "--deals=6", "--tournament",
       "--exit_after_tournament", "--wait_for_bots=2", "--progress=false", "--concurrency=3",
       "--max_matches_per_bot=1"});
  ASSERT_TRUE(arena.ok()) << arena.status();
  auto port = arena->WaitForPort();
  ASSERT_TRUE(port.ok()) << port.status();

  // Plaintext against the TLS port gets nowhere.
  {
    auto stub = v1::Arena::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", *port),
                                                       grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    auto stream = stub->Play(&context);
    v1::ArenaMessage message;
    EXPECT_FALSE(stream->Read(&message));
    EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  }
  const std::vector<std::string> tls = {"--tls_ca=" + pki.Path("ca.pem")};
  auto with = [&](std::vector<std::string> flags) {
    flags.insert(flags.begin(), tls.begin(), tls.end());
    return flags;
  };
  ChildProcess honest = StartBot(*port, "honest", with({"--token_file=" + pki.Path("honest.token")}));
  // The other bot thinks for a while on each move, so the tournament lasts long enough.
  ChildProcess other = StartBot(*port, "other", with({"--token_file=" + pki.Path("other.token"),
                                                      "--policy=ismcts", "--time_ms=10"}));

  // Impostors while the honest bot is connected: no token, and another account's token.
  ChildProcess no_token = StartBot(*port, "honest", tls);
  EXPECT_EQ(no_token.Wait(kWaitMs).value_or(-1), 1);
  ChildProcess wrong_account = StartBot(*port, "honest", with({"--token_file=" + pki.Path("other.token")}));
  EXPECT_EQ(wrong_account.Wait(kWaitMs).value_or(-1), 1);

  // The honest bot goes away in the middle of the tournament; impostors try again.
  WaitForFinishedMatches(db.path, 2);
  honest.Signal(SIGKILL);
  ASSERT_TRUE(honest.Wait(kWaitMs).ok());
  ChildProcess no_token_again = StartBot(*port, "honest", tls);
  EXPECT_EQ(no_token_again.Wait(kWaitMs).value_or(-1), 1);
  ChildProcess wrong_again = StartBot(*port, "honest", with({"--token_file=" + pki.Path("other.token")}));
  EXPECT_EQ(wrong_again.Wait(kWaitMs).value_or(-1), 1);
  const size_t finished_when_back = FinishedMatches(db.path);
  ChildProcess back = StartBot(*port, "honest", with({"--token_file=" + pki.Path("honest.token")}));

  auto summary = arena->WaitForLine("tournament ", kWaitMs);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(*summary, HasSubstr(" 0 not finished"));
  EXPECT_EQ(arena->Wait(kWaitMs).value_or(-1), 0);

  // Every seat of every match belongs to one of the two accounts.
  auto store = OpenStore(db.path);
  auto ids = store->FinishedMatches();
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->size(), 6u * ::gavel::testing::TestPlayers(2));  // deals x seat rotations
  EXPECT_LT(finished_when_back, ids->size());  // the impostors came during the tournament
  std::set<std::string> seated;
  for (int64_t id : *ids) {
    auto match = store->LoadMatch(id);
    ASSERT_TRUE(match.ok());
    for (const std::string& bot : match->bots)
      if (!bot.empty()) seated.insert(bot);  // empty: a seat of the game's automata
    // The honest bot's seats were played by it or, while it was away (and once it had run
    // out of strikes), by the fallback: never by anyone else.
    for (const MoveRecord& move : match->moves) {
      if (match->bots[move.seat] != "honest") continue;
      EXPECT_THAT(move.status, ::testing::AnyOf(v1::MOVE_STATUS_OK, v1::MOVE_STATUS_DISCONNECTED,
                                                v1::MOVE_STATUS_REPLACED));
    }
  }
  EXPECT_EQ(seated, (std::set<std::string>{"honest", "other"}));
}

// A bot written in Python from the proto alone plays with its token over TLS too.
TEST(Accounts, APythonBotPlaysWithItsTokenOverTls) {
  Pki pki("accounts_python");
  pki.MakeCa("ca");
  pki.MakeCert("arena", "arena", "ca");
  TempDb db("python");
  AddAccount(db.path, "py", pki.Path("py.token"));
  AddAccount(db.path, "cc", pki.Path("cc.token"));
  auto arena = ChildProcess::Start(
      {GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--log_level=warn", "--db=" + db.path,
       "--tls_cert=" + pki.Path("arena.pem"), "--tls_key=" + pki.Path("arena.key"),
       "--open_registration=false", "--games=" + ::gavel::testing::TestGame().name(), "--deals=1",
       "--tournament", "--exit_after_tournament", "--wait_for_bots=2", "--progress=false"});
  ASSERT_TRUE(arena.ok()) << arena.status();
  auto port = arena->WaitForPort();
  ASSERT_TRUE(port.ok()) << port.status();
  auto python = ChildProcess::Start(
      {"/usr/bin/python3", GAVEL_PYTHON_BOT, absl::StrCat("--arena=localhost:", *port), "--name=py",
       "--games=" + ::gavel::testing::TestGame().name(), "--tls-ca=" + pki.Path("ca.pem"),
       "--token-file=" + pki.Path("py.token"), std::string("--proto=") + GAVEL_PROTO_DIR});
  ASSERT_TRUE(python.ok()) << python.status();
  ChildProcess cc = StartBot(*port, "cc", {"--tls_ca=" + pki.Path("ca.pem"), "--token_file=" + pki.Path("cc.token")});
  auto summary = arena->WaitForLine("tournament ", kWaitMs);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(*summary, HasSubstr(" 0 not finished"));
  EXPECT_THAT(arena->output(), HasSubstr("py "));
  EXPECT_EQ(arena->Wait(kWaitMs).value_or(-1), 0);
  // A wrong token ends the Python bot with an error instead of retrying forever.
  std::ofstream(pki.Path("bad.token")) << "gavel_wrong\n";
  auto arena2 = ChildProcess::Start(
      {GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--log_level=warn", "--db=" + db.path,
       "--tls_cert=" + pki.Path("arena.pem"), "--tls_key=" + pki.Path("arena.key"),
       "--open_registration=false"});
  ASSERT_TRUE(arena2.ok());
  auto port2 = arena2->WaitForPort();
  ASSERT_TRUE(port2.ok());
  auto refused = ChildProcess::Start(
      {"/usr/bin/python3", GAVEL_PYTHON_BOT, absl::StrCat("--arena=localhost:", *port2), "--name=py",
       "--tls-ca=" + pki.Path("ca.pem"), "--token-file=" + pki.Path("bad.token"),
       std::string("--proto=") + GAVEL_PROTO_DIR});
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->Wait(kWaitMs).value_or(-1), 1);
}

}  // namespace
}  // namespace gavel::arena
