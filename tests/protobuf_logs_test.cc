// Protobuf's own log lines go through spdlog: a peer's bytes that protobuf complains about
// while parsing (a string with invalid UTF-8) leave a debug line, not an ERROR line on stderr
// per call.
#include "service/protobuf_logs.h"

#include <memory>
#include <sstream>

#include "gavel/v1/engine.pb.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/ostream_sink.h"

namespace gavel {
namespace {

// ApplyRequest{state: StateRef{full: GameState{game: "\xff"}}}: one string, not UTF-8.
constexpr char kInvalidUtf8Request[] = "\x0a\x05\x0a\x03\x0a\x01\xff";

class ProtobufLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
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
  }

  // Parses the request with stderr captured; returns what reached stderr.
  std::string ParseInvalidUtf8() {
    v1::ApplyRequest request;
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(request.ParseFromArray(kInvalidUtf8Request, sizeof(kInvalidUtf8Request) - 1));
    return ::testing::internal::GetCapturedStderr();
  }

  std::ostringstream lines_;
  std::shared_ptr<spdlog::logger> previous_;
  google::protobuf::LogHandler* protobuf_handler_ = nullptr;
};

TEST_F(ProtobufLogsTest, WithoutTheRouteAParseErrorReachesStderr) {
  // What the servers avoid: protobuf's own handler writes the line itself.
  EXPECT_NE(ParseInvalidUtf8().find("invalid UTF-8"), std::string::npos);
}

TEST_F(ProtobufLogsTest, AParseErrorIsADebugLineOfSpdlog) {
  service::RouteProtobufLogsToSpdlog();
  EXPECT_EQ(ParseInvalidUtf8(), "");
  EXPECT_EQ(lines_.str().rfind("debug protobuf: String field 'gavel.v1.GameState.game' contains invalid UTF-8", 0), 0u)
      << lines_.str();
}

TEST_F(ProtobufLogsTest, OtherLinesKeepTheirLevel) {
  EXPECT_EQ(service::ProtobufLogLevel(google::protobuf::LOGLEVEL_ERROR, "File already exists in database"),
            spdlog::level::err);
  EXPECT_EQ(service::ProtobufLogLevel(google::protobuf::LOGLEVEL_WARNING, "anything"), spdlog::level::warn);
  EXPECT_EQ(service::ProtobufLogLevel(google::protobuf::LOGLEVEL_ERROR,
                                      "String field 'x' contains invalid UTF-8 data when serializing a "
                                      "protocol buffer."),
            spdlog::level::err);  // the server's own output: its bug, not a peer's
}

}  // namespace
}  // namespace gavel
