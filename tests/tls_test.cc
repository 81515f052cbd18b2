// TLS on the engine's listener, with a CA and certificates made here with openssl: TLS
// clients that trust the CA are served, plaintext and untrusting clients are not; mutual TLS
// refuses clients without a certificate from the client CA; a certificate replaced on disk
// is served without a restart; plaintext beyond loopback needs --insecure; the plaintext
// probe listener answers health checks and nothing else.
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gavel/v1/engine.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpc/grpc_security_constants.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/health_service.h"
#include "service/tls.h"
#include "tests/support/child_process.h"
#include "tests/support/pki.h"

namespace gavel {
namespace {

using testing::ChildProcess;
using testing::Pki;

ChildProcess StartEngine(std::vector<std::string> flags, int* port) {
  std::vector<std::string> argv = {GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0", "--log_level=warn"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  auto process = ChildProcess::Start(argv);
  EXPECT_TRUE(process.ok()) << process.status();
  auto listening = process->WaitForPort();
  EXPECT_TRUE(listening.ok()) << listening.status();
  *port = listening.value_or(0);
  return std::move(*process);
}

std::shared_ptr<grpc::ChannelCredentials> Credentials(const service::ClientTls& tls) {
  auto credentials = service::ChannelCredentials(tls);
  EXPECT_TRUE(credentials.ok()) << credentials.status();
  return *credentials;
}

// ListGames over a fresh connection; the peer's certificate common name through `common_name`.
grpc::Status ListGames(int port, std::shared_ptr<grpc::ChannelCredentials> credentials,
                       std::string* common_name = nullptr) {
  static std::atomic<int> connection{0};
  grpc::ChannelArguments args;
  args.SetInt("gavel.test_connection", ++connection);  // a new connection, a new handshake
  auto stub = v1::Engine::NewStub(
      grpc::CreateCustomChannel(absl::StrCat("localhost:", port), credentials, args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::ListGamesResponse response;
  const grpc::Status status = stub->ListGames(&context, v1::ListGamesRequest(), &response);
  if (status.ok() && common_name != nullptr) {
    const auto names = context.auth_context()->FindPropertyValues(GRPC_X509_CN_PROPERTY_NAME);
    *common_name = names.empty() ? "" : std::string(names.front().data(), names.front().size());
  }
  return status;
}

TEST(Tls, ServesTrustingClientsAndNoOtherClients) {
  Pki pki("serves");
  pki.MakeCa("ca");
  pki.MakeCa("other_ca");
  pki.MakeCert("server", "engine", "ca");
  int port = 0;
  ChildProcess engine = StartEngine({"--tls_cert=" + pki.Path("server.pem"),
                                     "--tls_key=" + pki.Path("server.key")}, &port);
  std::string common_name;
  EXPECT_TRUE(ListGames(port, Credentials({.ca_file = pki.Path("ca.pem")}), &common_name).ok());
  EXPECT_EQ(common_name, "engine");
  EXPECT_EQ(ListGames(port, grpc::InsecureChannelCredentials()).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ListGames(port, Credentials({.ca_file = pki.Path("other_ca.pem")})).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST(Tls, MutualTlsRefusesClientsWithoutACertificateFromTheClientCa) {
  Pki pki("mutual");
  pki.MakeCa("ca");
  pki.MakeCa("other_ca");
  pki.MakeCert("server", "engine", "ca");
  pki.MakeCert("arena", "arena", "ca");
  pki.MakeCert("stranger", "stranger", "other_ca");
  int port = 0;
  ChildProcess engine = StartEngine({"--tls_cert=" + pki.Path("server.pem"),
                                     "--tls_key=" + pki.Path("server.key"),
                                     "--tls_client_ca=" + pki.Path("ca.pem")}, &port);
  const std::string ca = pki.Path("ca.pem");
  EXPECT_TRUE(ListGames(port, Credentials({.ca_file = ca, .cert_file = pki.Path("arena.pem"),
                                           .key_file = pki.Path("arena.key")})).ok());
  EXPECT_FALSE(ListGames(port, Credentials({.ca_file = ca})).ok());
  EXPECT_FALSE(ListGames(port, Credentials({.ca_file = ca, .cert_file = pki.Path("stranger.pem"),
                                            .key_file = pki.Path("stranger.key")})).ok());
}

// The files are replaced the way a Kubernetes Secret volume does it (a new file renamed into
// place); the engine serves the new certificate on new connections, without a restart.
TEST(Tls, ACertificateReplacedOnDiskIsServedWithoutARestart) {
  Pki pki("rotation");
  pki.MakeCa("ca");
  pki.MakeCert("first", "first", "ca");
  pki.MakeCert("second", "second", "ca");
  std::filesystem::copy_file(pki.Path("first.pem"), pki.Path("tls.crt"));
  std::filesystem::copy_file(pki.Path("first.key"), pki.Path("tls.key"));
  int port = 0;
  ChildProcess engine = StartEngine({"--tls_cert=" + pki.Path("tls.crt"), "--tls_key=" + pki.Path("tls.key"),
                                     "--tls_refresh_s=1"}, &port);
  const auto trusting = Credentials({.ca_file = pki.Path("ca.pem")});
  std::string common_name;
  ASSERT_TRUE(ListGames(port, trusting, &common_name).ok());
  EXPECT_EQ(common_name, "first");

  std::filesystem::copy_file(pki.Path("second.key"), pki.Path("tls.key.new"));
  std::filesystem::copy_file(pki.Path("second.pem"), pki.Path("tls.crt.new"));
  std::filesystem::rename(pki.Path("tls.key.new"), pki.Path("tls.key"));
  std::filesystem::rename(pki.Path("tls.crt.new"), pki.Path("tls.crt"));
  // The provider re-reads the files every second: wait for the new name, within a deadline.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (common_name != "second" && absl::Now() < deadline)
    ASSERT_TRUE(ListGames(port, trusting, &common_name).ok());
  EXPECT_EQ(common_name, "second");
  EXPECT_EQ(kill(engine.pid(), 0), 0) << "the engine restarted";
}

// The arena reaches an engine that requires mutual TLS with its own client certificate, and
// a tournament over it finishes.
TEST(Tls, TheArenaPlaysOverMutualTlsToTheEngine) {
  Pki pki("arena");
  pki.MakeCa("ca");
  pki.MakeCert("engine", "engine", "ca");
  pki.MakeCert("arena", "arena", "ca");
  int engine_port = 0;
  ChildProcess engine = StartEngine({"--tls_cert=" + pki.Path("engine.pem"),
                                     "--tls_key=" + pki.Path("engine.key"),
                                     "--tls_client_ca=" + pki.Path("ca.pem")}, &engine_port);
  auto arena = ChildProcess::Start(
      {GAVEL_ARENA_BINARY, "--listen=127.0.0.1:0", "--log_level=warn",
       "--db=" + pki.Path("arena.db"), absl::StrCat("--engine=localhost:", engine_port),
       "--engine_tls_ca=" + pki.Path("ca.pem"), "--engine_tls_cert=" + pki.Path("arena.pem"),
       "--engine_tls_key=" + pki.Path("arena.key"), "--tournament", "--exit_after_tournament",
       "--deals=1", "--wait_for_bots=2", "--progress=false"});
  ASSERT_TRUE(arena.ok()) << arena.status();
  auto arena_port = arena->WaitForPort();
  ASSERT_TRUE(arena_port.ok()) << arena_port.status();
  std::vector<ChildProcess> bots;
  for (const char* name : {"first", "second"}) {
    auto bot = ChildProcess::Start({GAVEL_BOT_BINARY, "--policy=random", std::string("--name=") + name,
                                    absl::StrCat("--arena=127.0.0.1:", *arena_port), "--log_level=warn"});
    ASSERT_TRUE(bot.ok());
    bots.push_back(std::move(*bot));
  }
  auto summary = arena->WaitForLine("tournament ", 120000);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(*summary, ::testing::HasSubstr(" 0 not finished, 0 restarted"));
  EXPECT_EQ(arena->Wait(60000).value_or(-1), 0);
}

TEST(Tls, PlaintextBeyondLoopbackNeedsInsecure) {
  auto refused = ChildProcess::Start({GAVEL_ENGINE_BINARY, "--listen=0.0.0.0:0", "--log_level=off"});
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->Wait().value_or(-1), 1);
  auto allowed = ChildProcess::Start({GAVEL_ENGINE_BINARY, "--listen=0.0.0.0:0", "--insecure",
                                      "--log_level=off"});
  ASSERT_TRUE(allowed.ok());
  EXPECT_TRUE(allowed->WaitForPort().ok());
}

TEST(Tls, LoopbackAddresses) {
  for (const char* address : {"127.0.0.1:1", "127.8.9.10:0", "localhost:50051", "[::1]:7", "::1"})
    EXPECT_TRUE(service::IsLoopback(address)) << address;
  for (const char* address : {"0.0.0.0:1", "10.0.0.1:5", "[::]:7", "example.org:443", "128.0.0.1:1"})
    EXPECT_FALSE(service::IsLoopback(address)) << address;
}

// Kubernetes' gRPC probes speak no TLS: a plaintext listener serves the health service and
// nothing else.
TEST(Tls, TheProbeListenerAnswersHealthChecksAndNothingElse) {
  Pki pki("probe");
  pki.MakeCa("ca");
  pki.MakeCert("server", "engine", "ca");
  auto process = ChildProcess::Start({GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0", "--log_level=warn",
                                      "--tls_cert=" + pki.Path("server.pem"),
                                      "--tls_key=" + pki.Path("server.key"),
                                      "--health_listen=127.0.0.1:0"});
  ASSERT_TRUE(process.ok());
  auto line = process->WaitForLine("health on port ");
  ASSERT_TRUE(line.ok()) << line.status();
  const int health_port = std::stoi(line->substr(line->rfind(' ') + 1));
  ASSERT_TRUE(process->WaitForPort().ok());
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", health_port), grpc::InsecureChannelCredentials());
  auto health = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext check_context;
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(health->Check(&check_context, request, &response).ok());
  EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  grpc::ClientContext games_context;
  v1::ListGamesResponse games;
  EXPECT_EQ(v1::Engine::NewStub(channel)->ListGames(&games_context, v1::ListGamesRequest(), &games).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

}  // namespace
}  // namespace gavel
