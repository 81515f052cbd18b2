// Service throughput on one server core against a bare gRPC echo server, measured in the
// same run, per game:
//   - Apply against an echo of the same request bytes, cycling through the requests of every
//     move of a seeded game (tests/bench/seeded_game.h), so a figure is a whole game's mean;
//   - the combined call (Apply that also returns the next mover's legal moves and view)
//     against an echo of a message as large as its response;
//   - sealed Apply (the same state as a token, the move made with the mover's capability)
//     against the unsealed Apply of the same run (the "base" column).
// Each figure is measured against its base in alternating rounds (base, measured, base, ...),
// so that the machine's speed drifting during a run weighs on both alike; the ratio of the
// whole run is printed with the lowest and highest of its rounds' ratios, which show how far
// the machine moved within the run.
// Beside calls per second of wall time, each load's calls per second of the server's CPU time
// (its process's user + system time, /proc/<pid>/stat) and how busy that made its core: the
// CPU ratio is the cost per call compared, which a slow stretch of the machine's clock or a
// load generator that fell behind moves less than the calls per second.
// The engine runs with its Prometheus metrics on, as deployed. Servers run pinned to core 0
// (taskset), the load generator on the other cores; p99 latency in microseconds.
//
// The engine runs with its decoded-state cache (service/state_cache.h) as deployed: cycling
// through a game's moves, each request carries the state the previous one's response held.
//
//   build/tests/bench/service_bench [--seconds=3] [--rounds=3] [--in_flight=64]
//                                   [--state_cache_entries=0]  (every state decoded)
//                                   [--generic_echo]  (the echo baseline before 2026-12-02)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unistd.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "tests/bench/sealed_request.h"
#include "tests/bench/seeded_game.h"
#include "gavel/v1/engine.grpc.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "service/engine_handler.h"
#include "service/sealing.h"
#include "tests/bench/pinning.h"
#include "tests/support/child_process.h"

ABSL_FLAG(double, seconds, 3, "measuring time of each call kind per comparison");
ABSL_FLAG(int, rounds, 3, "alternating rounds a comparison's time is split into");
ABSL_FLAG(int, in_flight, 64, "concurrent calls");
ABSL_FLAG(std::vector<std::string>, games, {}, "games to measure (default: every game)");
ABSL_FLAG(int, state_cache_entries, 8192, "the engine's decoded-state cache (0: every state decoded)");
ABSL_FLAG(bool, generic_echo, false,
          "echo through gRPC's generic service (a stream per call), the baseline before 2026-12-02, "
          "instead of a registered unary method as the engine's");

namespace gavel {
namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds (user + system, every thread) a process has used so far.
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(file, line);
  const size_t command_end = line.rfind(')');
  if (command_end == std::string::npos) return 0;  // the process is gone: the load's calls fail
  // The fields after the command's closing parenthesis; utime and stime are the 14th and
  // 15th of the whole line, the 12th and 13th after it.
  std::istringstream fields(line.substr(command_end + 1));
  std::string field;
  double ticks = 0;
  for (int i = 1; i <= 13 && fields >> field; ++i)
    if (i >= 12) ticks += std::stod(field);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// One stretch of load: the latency of every call that completed, in how long, and the CPU
// time the server used meanwhile.
struct Sample {
  double seconds = 0;
  double server_cpu_seconds = 0;
  std::vector<double> latencies_us;
  int64_t errors = 0;

  double calls() const { return static_cast<double>(latencies_us.size()); }
  double calls_per_second() const { return calls() / seconds; }
  double calls_per_cpu_second() const { return calls() / server_cpu_seconds; }

  void Add(const Sample& other) {
    seconds += other.seconds;
    server_cpu_seconds += other.server_cpu_seconds;
    latencies_us.insert(latencies_us.end(), other.latencies_us.begin(), other.latencies_us.end());
    errors += other.errors;
  }
};

struct Result {
  double calls_per_second = 0, calls_per_cpu_second = 0;
  double server_busy = 0;  // the server's CPU seconds per second
  double p50_us = 0, p99_us = 0;
  int64_t errors = 0;
};

Result Summarize(Sample sample) {
  std::sort(sample.latencies_us.begin(), sample.latencies_us.end());
  const std::vector<double>& sorted = sample.latencies_us;
  return {.calls_per_second = sample.calls_per_second(),
          .calls_per_cpu_second = sample.calls_per_cpu_second(),
          .server_busy = sample.server_cpu_seconds / sample.seconds,
          .p50_us = sorted[sorted.size() / 2],
          .p99_us = sorted[sorted.size() * 99 / 100],
          .errors = sample.errors};
}

// A load: how to start one call, and the server process that answers it.
template <typename StartCall>
struct Load {
  StartCall start_call;
  pid_t server;
};

template <typename StartCall>
Load<StartCall> LoadOn(pid_t server, StartCall start_call) {
  return {std::move(start_call), server};
}

// Keeps `in_flight` unary calls running for `seconds`; `start_call(done)` issues one call
// and must invoke done(ok) when it completes.
template <typename StartCall>
Sample RunLoad(const Load<StartCall>& load, double seconds) {
  const auto& start_call = load.start_call;
  const int in_flight = absl::GetFlag(FLAGS_in_flight);
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  std::mutex mutex;
  std::condition_variable all_done;
  Sample sample;
  std::atomic<int64_t> errors{0};
  int running = in_flight;
  std::function<void()> launch = [&] {
    const auto started = Clock::now();
    start_call([&, started](bool ok) {
      const auto now = Clock::now();
      if (!ok) ++errors;
      {
        std::lock_guard lock(mutex);
        sample.latencies_us.push_back(std::chrono::duration<double, std::micro>(now - started).count());
      }
      if (now < end) {
        launch();
      } else {
        std::lock_guard lock(mutex);
        if (--running == 0) all_done.notify_one();
      }
    });
  };
  const double cpu_before = ProcessCpuSeconds(load.server);
  const auto begin = Clock::now();
  for (int i = 0; i < in_flight; ++i) launch();
  std::unique_lock lock(mutex);
  all_done.wait(lock, [&] { return running == 0; });
  sample.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  sample.server_cpu_seconds = ProcessCpuSeconds(load.server) - cpu_before;
  sample.errors = errors;
  return sample;
}

// A load measured against its base in alternating rounds (base, measured, base, ...), so
// that a drift of the machine's speed during the run weighs on both alike.
struct Compared {
  Result measured, base;
  double lowest_round_ratio, highest_round_ratio;
};

template <typename MeasuredCall, typename BaseCall>
Compared Compare(const Load<MeasuredCall>& measured_call, const Load<BaseCall>& base_call) {
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  const double seconds = absl::GetFlag(FLAGS_seconds) / rounds;
  Sample measured, base;
  double lowest = 0, highest = 0;
  for (int round = 0; round < rounds; ++round) {
    const Sample base_round = RunLoad(base_call, seconds);
    const Sample measured_round = RunLoad(measured_call, seconds);
    const double ratio = measured_round.calls_per_second() / base_round.calls_per_second();
    lowest = round == 0 ? ratio : std::min(lowest, ratio);
    highest = round == 0 ? ratio : std::max(highest, ratio);
    base.Add(base_round);
    measured.Add(measured_round);
  }
  return {Summarize(std::move(measured)), Summarize(std::move(base)), lowest, highest};
}

// The next of `items`, cycling; shared by the load's callbacks.
template <typename Item>
class Cycle {
 public:
  explicit Cycle(const std::vector<Item>& items) : items_(items) {}
  const Item& Next() { return items_[next_.fetch_add(1, std::memory_order_relaxed) % items_.size()]; }

 private:
  const std::vector<Item>& items_;
  std::atomic<size_t> next_{0};
};

// Starts one unary call of `method` with the next of `cycle`'s request bytes (for RunLoad).
// The engine and the echo server get the same client: pre-encoded requests, responses kept
// as bytes. A client that encoded each request and parsed each response (a typed stub) would
// spend more of its core per call on the engine's larger responses than on the echo's bytes,
// and with one core for the load that client, not the server, would set the pace.
auto RawCalls(grpc::GenericStub& stub, const std::string& method, Cycle<std::string>& cycle) {
  return [&stub, method, &cycle](auto done) {
    auto* context = new grpc::ClientContext();
    auto* out = new grpc::ByteBuffer();
    grpc::Slice slice(cycle.Next());
    grpc::ByteBuffer in(&slice, 1);
    stub.UnaryCall(context, method, grpc::StubOptions(), &in, out, [=](grpc::Status status) {
      done(status.ok());
      delete out;
      delete context;
    });
  };
}

void PrintRow(const std::string& game, const char* call, double bytes, const Compared& compared) {
  const Result& measured = compared.measured;
  const Result& base = compared.base;
  std::printf("%-17s %-9s %6.0f %10.0f %10.0f %6.0f%% %4.0f-%3.0f%% %6.0f%% %5.0f%% %5.0f%% %8.0f %8.0f%s\n",
              game.c_str(), call, bytes, measured.calls_per_second, base.calls_per_second,
              100 * measured.calls_per_second / base.calls_per_second, 100 * compared.lowest_round_ratio,
              100 * compared.highest_round_ratio,
              100 * measured.calls_per_cpu_second / base.calls_per_cpu_second, 100 * measured.server_busy,
              100 * base.server_busy, measured.p99_us, base.p99_us,
              measured.errors + base.errors ? "  (errors!)" : "");
}

// Stops the benchmark, saying what failed (its servers die with it: ChildProcess).
[[noreturn]] void Fail(absl::string_view doing, const absl::Status& status) {
  std::fprintf(stderr, "service_bench: %s: %s\n", std::string(doing).c_str(), status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T OrFail(absl::StatusOr<T> value, absl::string_view doing) {
  if (!value.ok()) Fail(doing, value.status());
  return std::move(*value);
}

testing::ChildProcess StartPinned(const std::string& binary, std::vector<std::string> flags) {
  std::vector<std::string> argv = {"/usr/bin/taskset", "-c", "0", binary};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return OrFail(testing::ChildProcess::Start(argv), "starting " + binary);
}

// Every request as the mover's sealed call at one table, at its move number.
std::vector<v1::ApplyRequest> SealedAll(const std::vector<v1::ApplyRequest>& requests,
                                        const service::Sealer& sealer) {
  std::vector<v1::ApplyRequest> out;
  const service::TableId table = service::Sealer::NewTable();
  for (size_t move = 0; move < requests.size(); ++move)
    out.push_back(SealedApplyRequest(requests[move], static_cast<uint32_t>(move), table, sealer));
  return out;
}

// Each request asking for the next mover's legal moves and view as well.
std::vector<v1::ApplyRequest> CombinedAll(std::vector<v1::ApplyRequest> requests) {
  for (v1::ApplyRequest& request : requests) {
    request.mutable_include()->set_legal_moves(true);
    request.mutable_include()->set_mover_view(true);
  }
  return requests;
}

// Each request's wire bytes.
std::vector<std::string> Encoded(const std::vector<v1::ApplyRequest>& requests) {
  std::vector<std::string> out;
  for (const v1::ApplyRequest& request : requests) out.push_back(request.SerializeAsString());
  return out;
}

// Payloads as large as the engine's response to each request.
std::vector<std::string> ResponseSized(v1::Engine::Stub& stub, const std::vector<v1::ApplyRequest>& requests) {
  std::vector<std::string> out;
  for (const v1::ApplyRequest& request : requests) {
    v1::ApplyResponse response;
    grpc::ClientContext context;
    if (const grpc::Status status = stub.Apply(&context, request, &response); !status.ok())
      Fail("the engine refused an Apply of the seeded game",
           absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message()));
    out.push_back(std::string(response.ByteSizeLong(), 'x'));
  }
  return out;
}

double MeanBytes(const std::vector<std::string>& payloads) {
  double total = 0;
  for (const std::string& payload : payloads) total += static_cast<double>(payload.size());
  return total / static_cast<double>(payloads.size());
}

}  // namespace
}  // namespace gavel

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  using namespace gavel;
  KeepOffCoreZero();  // the servers get core 0
  const std::string dir = testing::BuildDir();
  const std::string key_file = dir + "/service_bench_keys";
  const std::string key_line = service::KeyRing::NewKeyLine(1, true);
  std::ofstream(key_file) << key_line << "\n";
  const service::Sealer sealer(*service::KeyRing::Parse(key_line));
  auto engine = StartPinned(GAVEL_ENGINE_BINARY, {"--listen=127.0.0.1:0", "--log_level=warn",
                                                  "--metrics_listen=127.0.0.1:0",
                                                  "--sealing_keys=" + key_file,
                                                  absl::StrCat("--state_cache_entries=",
                                                               absl::GetFlag(FLAGS_state_cache_entries))});
  auto echo = StartPinned(dir + "/echo_server", {});
  OrFail(engine.WaitForLine("metrics on port "), "waiting for the engine's metrics port");
  const int engine_port = OrFail(engine.WaitForPort(), "waiting for the engine's port");
  const int echo_port = OrFail(echo.WaitForPort(), "waiting for the echo server's port");
  auto engine_channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", engine_port),
                                            grpc::InsecureChannelCredentials());
  auto echo_channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", echo_port),
                                          grpc::InsecureChannelCredentials());
  auto stub = v1::Engine::NewStub(engine_channel);
  grpc::GenericStub echo_stub(echo_channel);
  grpc::GenericStub engine_stub(engine_channel);
  const std::string kApply = "/gavel.v1.Engine/Apply";
  // The echo server's registered unary method, or a name it does not register, which its
  // generic service answers.
  const std::string kEcho = absl::GetFlag(FLAGS_generic_echo) ? "/bench.Generic/Echo" : "/gavel.bench.Echo/Echo";

  std::printf("%-17s %-9s %6s %10s %10s %7s %9s %7s %6s %6s %8s %8s\n", "game", "call", "bytes", "calls/s",
              "base/s", "ratio", "rounds", "cpu rt", "busy", "base", "p99 us", "base p99");
  const std::vector<std::string> only = absl::GetFlag(FLAGS_games);
  for (const Game* game : AllGames()) {
    if (!only.empty() && std::find(only.begin(), only.end(), game->name()) == only.end()) continue;
    const std::vector<v1::ApplyRequest> apply = SeededGameApplyRequests(*game);
    const std::vector<std::string> apply_bytes = Encoded(apply);
    Cycle<std::string> apply_cycle(apply_bytes);
    Cycle<std::string> apply_echo_cycle(apply_bytes);
    const Compared unsealed = Compare(LoadOn(engine.pid(), RawCalls(engine_stub, kApply, apply_cycle)),
                                      LoadOn(echo.pid(), RawCalls(echo_stub, kEcho, apply_echo_cycle)));
    PrintRow(game->name(), "Apply", MeanBytes(apply_bytes), unsealed);
    const std::vector<std::string> sealed = Encoded(SealedAll(apply, sealer));
    Cycle<std::string> sealed_cycle(sealed);
    const Compared sealing = Compare(LoadOn(engine.pid(), RawCalls(engine_stub, kApply, sealed_cycle)),
                                     LoadOn(engine.pid(), RawCalls(engine_stub, kApply, apply_cycle)));
    PrintRow(game->name(), "sealed", MeanBytes(sealed), sealing);
    const std::vector<v1::ApplyRequest> combined = CombinedAll(apply);
    const std::vector<std::string> response_sized = ResponseSized(*stub, combined);
    const std::vector<std::string> combined_bytes = Encoded(combined);
    Cycle<std::string> combined_cycle(combined_bytes);
    Cycle<std::string> combined_echo_cycle(response_sized);
    const Compared combining = Compare(LoadOn(engine.pid(), RawCalls(engine_stub, kApply, combined_cycle)),
                                       LoadOn(echo.pid(), RawCalls(echo_stub, kEcho, combined_echo_cycle)));
    PrintRow(game->name(), "combined", MeanBytes(response_sized), combining);
  }
  return 0;
}
