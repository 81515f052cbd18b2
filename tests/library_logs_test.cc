// Protobuf's and gRPC's own log lines go through spdlog: what a peer causes (a string with
// invalid UTF-8 in a request, a failed TLS handshake) leaves a debug line, not an ERROR line on
// stderr per call or connection; other lines keep their level.
#include "service/library_logs.h"

#include <memory>
#include <sstream>

#include "gavel/v1/engine.pb.h"
#include "grpc/grpc.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/ostream_sink.h"

namespace gavel {
namespace {

// ApplyRequest{state: StateRef{full: GameState{game: "\xff"}}}: one string, not UTF-8.
constexpr char kInvalidUtf8Request[] = "\x0a\x05\x0a\x03\x0a\x01\xff";

class LibraryLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc_init();  // as in the servers: gRPC reads its log verbosity there
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(lines_);
    sink->set_pattern("%l %v");
    previous_ = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>("test", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
    // SetLogHandler returns the handler it replaces: protobuf's own, which writes to stderr.
    protobuf_handler_ = google::protobuf::SetLogHandler(nullptr);
    google::protobuf::SetLogHandler(protobuf_handler_);
  }
  void TearDown() override {
    spdlog::set_default_logger(previous_);
    google::protobuf::SetLogHandler(protobuf_handler_);
    gpr_set_log_function(nullptr);  // gRPC's own, to stderr
    grpc_shutdown();
  }

  // Parses the request with stderr captured; returns what reached stderr.
  std::string ParseInvalidUtf8() {
    v1::ApplyRequest request;
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(request.ParseFromArray(kInvalidUtf8Request, sizeof(kInvalidUtf8Request) - 1));
    return ::testing::internal::GetCapturedStderr();
  }
  // Logs what gRPC logs when a TLS handshake fails, with stderr captured.
  std::string LogHandshakeFailure() {
    ::testing::internal::CaptureStderr();
    gpr_log(GPR_ERROR, "Handshake failed with fatal error SSL_ERROR_SSL: error:0A00009C:SSL routines::http request.");
    return ::testing::internal::GetCapturedStderr();
  }

  std::ostringstream lines_;
  std::shared_ptr<spdlog::logger> previous_;
  google::protobuf::LogHandler* protobuf_handler_ = nullptr;
};

TEST_F(LibraryLogsTest, WithoutTheRouteThePeersLinesReachStderr) {
  // What the servers avoid: the libraries' own handlers write the lines themselves.
  EXPECT_NE(ParseInvalidUtf8().find("invalid UTF-8"), std::string::npos);
  EXPECT_NE(LogHandshakeFailure().find("Handshake failed"), std::string::npos);
}

TEST_F(LibraryLogsTest, APeersLinesAreDebugLinesOfSpdlog) {
  service::RouteLibraryLogsToSpdlog();
  EXPECT_EQ(ParseInvalidUtf8(), "");
  EXPECT_EQ(LogHandshakeFailure(), "");
  EXPECT_NE(lines_.str().find("debug protobuf: String field 'gavel.v1.GameState.game' contains invalid UTF-8"),
            std::string::npos)
      << lines_.str();
  EXPECT_NE(lines_.str().find("debug grpc: Handshake failed with fatal error"), std::string::npos) << lines_.str();
}

TEST_F(LibraryLogsTest, OtherLinesKeepTheirLevel) {
  service::RouteLibraryLogsToSpdlog();
  gpr_log(GPR_ERROR, "bind failed");
  EXPECT_NE(lines_.str().find("error grpc: bind failed"), std::string::npos) << lines_.str();
  EXPECT_EQ(service::ProtobufLogLevel(google::protobuf::LOGLEVEL_ERROR, "File already exists in database"),
            spdlog::level::err);
  EXPECT_EQ(service::ProtobufLogLevel(google::protobuf::LOGLEVEL_WARNING, "anything"), spdlog::level::warn);
  EXPECT_EQ(service::ProtobufLogLevel(google::protobuf::LOGLEVEL_ERROR,
                                      "String field 'x' contains invalid UTF-8 data when serializing a "
                                      "protocol buffer."),
            spdlog::level::err);  // the server's own output: its bug, not a peer's
  EXPECT_EQ(service::GrpcLogLevel(GPR_LOG_SEVERITY_INFO, "anything"), spdlog::level::info);
}

}  // namespace
}  // namespace gavel
