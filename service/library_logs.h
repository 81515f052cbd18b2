#pragma once
// Protobuf and gRPC write log lines of their own to stderr, some for every bad thing a peer
// sends: protobuf one per string field with invalid UTF-8 in a message it parses (an ERROR
// line of about 150 bytes per request of 7), gRPC one per failed TLS handshake (a scanner, a
// plaintext client). The servers and bots send both libraries' lines through spdlog instead:
// those a peer causes at debug (a refused call is logged there too), every other line at its
// own level. Protobuf's FATAL still aborts after its line.
#include <string>

#include "absl/strings/match.h"
#include "google/protobuf/stubs/logging.h"
#include "grpc/support/log.h"
#include "spdlog/spdlog.h"

namespace gavel::service {

inline spdlog::level::level_enum ProtobufLogLevel(google::protobuf::LogLevel level, absl::string_view message) {
  if (absl::StrContains(message, "when parsing a protocol buffer")) return spdlog::level::debug;
  switch (level) {
    case google::protobuf::LOGLEVEL_INFO: return spdlog::level::info;
    case google::protobuf::LOGLEVEL_WARNING: return spdlog::level::warn;
    case google::protobuf::LOGLEVEL_ERROR: return spdlog::level::err;
    default: return spdlog::level::critical;
  }
}

inline spdlog::level::level_enum GrpcLogLevel(gpr_log_severity severity, absl::string_view message) {
  if (absl::StartsWith(message, "Handshake failed")) return spdlog::level::debug;
  switch (severity) {
    case GPR_LOG_SEVERITY_DEBUG: return spdlog::level::debug;
    case GPR_LOG_SEVERITY_INFO: return spdlog::level::info;
    default: return spdlog::level::err;
  }
}

inline void LogProtobufLine(google::protobuf::LogLevel level, const char* file, int line, const std::string& message) {
  spdlog::log(ProtobufLogLevel(level, message), "protobuf: {} ({}:{})", message, file, line);
}

inline void LogGrpcLine(gpr_log_func_args* args) {
  spdlog::log(GrpcLogLevel(args->severity, args->message), "grpc: {} ({}:{})", args->message, args->file,
              args->line);
}

// Call once at start, before other threads run (each library's handler is one global).
inline void RouteLibraryLogsToSpdlog() {
  google::protobuf::SetLogHandler(&LogProtobufLine);
  gpr_set_log_function(&LogGrpcLine);
}

}  // namespace gavel::service
