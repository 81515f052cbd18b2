#pragma once
// Protobuf writes log lines of its own to stderr, among them one for every string field with
// invalid UTF-8 in a message it parses: a peer sending such requests wrote an ERROR line of
// about 150 bytes to a server's log per call of 7 bytes. The servers and bots send protobuf's
// lines through spdlog instead: those about bytes being parsed at debug (the refused call is
// logged there too), every other at its own level, protobuf's FATAL still aborting after it.
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "spdlog/spdlog.h"

namespace gavel::service {

inline spdlog::level::level_enum ProtobufLogLevel(google::protobuf::LogLevel level, const std::string& message) {
  if (message.find("when parsing a protocol buffer") != std::string::npos) return spdlog::level::debug;
  switch (level) {
    case google::protobuf::LOGLEVEL_INFO: return spdlog::level::info;
    case google::protobuf::LOGLEVEL_WARNING: return spdlog::level::warn;
    case google::protobuf::LOGLEVEL_ERROR: return spdlog::level::err;
    default: return spdlog::level::critical;
  }
}

inline void LogProtobufLine(google::protobuf::LogLevel level, const char* file, int line, const std::string& message) {
  spdlog::log(ProtobufLogLevel(level, message), "protobuf: {} ({}:{})", message, file, line);
}

// Call once at start, before any thread parses messages (protobuf's handler is one global).
inline void RouteProtobufLogsToSpdlog() { google::protobuf::SetLogHandler(&LogProtobufLine); }

}  // namespace gavel::service
