// gavel-engine: the stateless engine server.
//
// On SIGTERM or SIGINT it reports NOT_SERVING on the health service, keeps serving for
// --shutdown_delay_s (so load balancers stop sending new work), then finishes the calls
// in flight within --drain_s and exits 0.
#include <csignal>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "engine/core/registry.h"
#include "service/engine_server.h"
#include "service/library_logs.h"
#include "service/metrics.h"
#include "service/mutex_checks.h"
#include "service/sealing.h"
#include "service/state_cache.h"
#include "service/tls_flags.h"
#include "service/termination_signals.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "address:port to listen on (port 0 picks one); beyond loopback: TLS or --insecure");
ABSL_FLAG(std::string, health_listen, "",
          "address:port of a plaintext listener with only the health service, for probes "
          "that cannot speak TLS (empty: none)");
ABSL_FLAG(int, max_message_bytes, 1 << 20, "largest request or response, in bytes");
ABSL_FLAG(int, max_concurrent_streams, 256, "concurrent calls per client connection");
ABSL_FLAG(int, max_threads, 0, "upper bound on server threads (0: gRPC's default)");
ABSL_FLAG(int, max_memory_mb, 0, "memory gRPC may use for calls, in MiB (0: unlimited)");
ABSL_FLAG(bool, reflection, false, "enable gRPC server reflection");
ABSL_FLAG(int, max_connection_age_ms, 0,
          "close client connections after this age so clients re-resolve (0: never)");
ABSL_FLAG(int, max_connection_age_grace_ms, 10000, "grace for calls on an aged connection");
ABSL_FLAG(double, shutdown_delay_s, 0, "seconds to keep serving after NOT_SERVING on SIGTERM");
ABSL_FLAG(double, drain_s, 10, "seconds calls in flight get to finish at shutdown");
ABSL_FLAG(std::string, metrics_listen, "",
          "address:port for Prometheus /metrics (empty: off; port 0 picks one)");
ABSL_FLAG(std::string, sealing_keys, "",
          "key file for sealed states (docs/api.md, \"Sealed states\"); re-read when it changes. "
          "Empty: sealed requests get UNIMPLEMENTED");
ABSL_FLAG(int, sealing_keys_poll_ms, 1000, "how often the key file is checked for changes");
ABSL_FLAG(int, new_sealing_key, 0,
          "print a new random key line with this id (1-255) for the key file, and exit");
ABSL_FLAG(int, state_cache_entries, 8192,
          "recent states kept decoded, found again when a request carries exactly their bytes "
          "(docs/performance.md, \"The decoded-state cache\"); 0: decode every state");
ABSL_FLAG(std::string, log_level, "info", "spdlog level: trace, debug, info, warn, error");

int main(int argc, char** argv) {
  gavel::service::TurnOffMutexDeadlockDetection();
  absl::SetProgramUsageMessage("gavel engine server: a stateless gRPC game engine");
  absl::ParseCommandLine(argc, argv);
  spdlog::set_default_logger(spdlog::stderr_color_mt("gavel-engine"));  // stdout: readiness only
  spdlog::set_level(spdlog::level::from_str(absl::GetFlag(FLAGS_log_level)));
  gavel::service::RouteLibraryLogsToSpdlog();  // a peer's bad bytes: not a line per call

  if (const int id = absl::GetFlag(FLAGS_new_sealing_key); id != 0) {
    if (id < 1 || id > 255) {
      spdlog::error("--new_sealing_key: the id must be from 1 to 255");
      return 2;
    }
    std::printf("%s\n", gavel::service::KeyRing::NewKeyLine(static_cast<uint8_t>(id), true).c_str());
    return 0;
  }
  const gavel::service::TerminationSignals signals;  // before gRPC starts its threads

  gavel::service::EngineServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.tls = gavel::service::ServerTlsFromFlags();
  options.health_listen = absl::GetFlag(FLAGS_health_listen);
  options.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  options.max_concurrent_streams = absl::GetFlag(FLAGS_max_concurrent_streams);
  options.max_threads = absl::GetFlag(FLAGS_max_threads);
  options.max_memory_mb = absl::GetFlag(FLAGS_max_memory_mb);
  options.reflection = absl::GetFlag(FLAGS_reflection);
  options.max_connection_age_ms = absl::GetFlag(FLAGS_max_connection_age_ms);
  options.max_connection_age_grace_ms = absl::GetFlag(FLAGS_max_connection_age_grace_ms);
  gavel::service::ServiceMetrics metrics("gavel_engine");
  if (const std::string listen = absl::GetFlag(FLAGS_metrics_listen); !listen.empty()) {
    auto port = metrics.Serve(listen);
    if (!port.ok()) {
      spdlog::error("{}", port.status().ToString());
      return 1;
    }
    options.metrics = &metrics;
    spdlog::info("metrics on port {}", *port);
    std::printf("metrics on port %d\n", *port);
  }
  const int cache_entries = absl::GetFlag(FLAGS_state_cache_entries);
  if (cache_entries < 0 || cache_entries > (1 << 20)) {  // an entry takes up to about 1.5 KiB
    spdlog::error("--state_cache_entries: must be from 0 to 1048576");
    return 2;
  }
  gavel::service::StateCache states(static_cast<size_t>(cache_entries),
                                    options.metrics != nullptr ? &metrics.registry() : nullptr);
  options.states = &states;
  std::unique_ptr<gavel::service::Sealer> sealer;
  if (const std::string keys = absl::GetFlag(FLAGS_sealing_keys); !keys.empty()) {
    auto loaded = gavel::service::Sealer::FromFile(keys, absl::GetFlag(FLAGS_sealing_keys_poll_ms));
    if (!loaded.ok()) {
      spdlog::error("--sealing_keys: {}", loaded.status().ToString());
      return 1;
    }
    sealer = std::move(*loaded);
    options.sealer = sealer.get();
  }
  auto server = gavel::service::EngineServer::Start(options);
  if (!server.ok()) {
    spdlog::error("engine server failed to start: {}", server.status().ToString());
    return 1;
  }
  std::string games;
  for (const gavel::Game* game : gavel::AllGames()) games += " " + game->name();
  spdlog::info("gavel engine serving on port {} (games:{})", (*server)->port(), games);
  // The readiness line scripts and tests wait for.
  if ((*server)->health_port() != 0) std::printf("health on port %d\n", (*server)->health_port());
  std::printf("listening on port %d\n", (*server)->port());
  std::fflush(stdout);

  spdlog::info("signal {}: reporting NOT_SERVING", signals.Wait());
  (*server)->SetNotServing();
  // Keep serving while load balancers notice NOT_SERVING; a second signal cuts it short.
  if (const double delay = absl::GetFlag(FLAGS_shutdown_delay_s); delay > 0) signals.WaitFor(delay);
  const auto drain = std::chrono::milliseconds(static_cast<int64_t>(absl::GetFlag(FLAGS_drain_s) * 1000));
  (*server)->Shutdown(std::chrono::system_clock::now() + drain);
  spdlog::info("engine server stopped");
  return 0;
}
