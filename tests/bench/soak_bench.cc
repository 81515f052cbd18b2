// Soak and overload run of the engine server (a bench program, not a unit test).
//
// 1. Saturation: closed-loop calls of the mix below for --saturation_seconds, in
//    --saturation_rounds rounds, the lowest rate kept: this machine's speed moves by half
//    between moments, and 80% of a fast moment's rate overloaded a slower one (a run measured
//    27,242 calls/s, the next 18,213; the first soak's calls queued past their deadlines).
// 2. Soak: calls sent open-loop at --load x saturation for --minutes: each minute prints the
//    calls, good calls that failed (must be 0), bad requests answered with anything but their
//    expected code (must be 0), p50/p99 latency and the server's RSS; at the end, the RSS
//    growth since the end of the first minute (warm-up).
// 3. Overload: --overload x saturation for --overload_seconds, each call with a deadline of
//    --deadline_ms: how the calls ended (OK, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ...),
//    the server's peak RSS, and whether it still answers afterwards.
//
// The mix, over every game: combined Apply (state + next legal moves + mover's view) on
// mid-game states, Observe, LegalMoves, NewGame; and one call in ten a bad request with a
// known answer (garbage state, illegal move, seat out of range, unknown game).
// The server runs pinned to core 0 (taskset), the load generator on the other cores.
//
//   build/tests/bench/soak_bench --minutes=10
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "gavel/v1/engine.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "tests/bench/pinning.h"
#include "tests/support/child_process.h"

ABSL_FLAG(double, saturation_seconds, 5, "closed-loop measuring time per round");
ABSL_FLAG(int, saturation_rounds, 3, "saturation rounds; the lowest rate is the saturation");
ABSL_FLAG(double, minutes, 10, "soak duration");
ABSL_FLAG(double, load, 0.8, "soak rate as a fraction of saturation");
ABSL_FLAG(double, overload, 2.0, "overload rate as a multiple of saturation");
ABSL_FLAG(double, overload_seconds, 60, "overload duration");
ABSL_FLAG(int, deadline_ms, 1000, "deadline of each call");
ABSL_FLAG(int, channels, 4, "client connections");
ABSL_FLAG(int, max_in_flight, 20000, "the load generator's own bound on calls in flight");
ABSL_FLAG(int, state_cache_entries, 8192,
          "the engine's decoded-state cache (the mix's states are not ones the engine wrote, so "
          "they miss it, and every NewGame and Apply fills it: its memory at its largest)");

namespace gavel {
namespace {

using Clock = std::chrono::steady_clock;

// One call of the mix: which RPC, its request bytes' message, and the code it must get.
struct Call {
  enum Rpc { kApply, kObserve, kLegalMoves, kNewGame } rpc = kApply;
  v1::ApplyRequest apply;
  v1::ObserveRequest observe;
  v1::LegalMovesRequest legal;
  v1::NewGameRequest new_game;
  grpc::StatusCode expected = grpc::StatusCode::OK;
};

// Good calls on states along a seeded random game of every game, and bad ones.
std::vector<Call> BuildMix() {
  std::vector<Call> mix;
  for (const Game* game : AllGames()) {
    auto state = std::move(*game->NewGame(game->info().max_players, 11, {}));
    Rng rng(11);
    std::vector<Move> legal;
    for (int step = 0; !state->finished(); ++step) {
      state->LegalMoves(legal);
      const Move move = legal[rng.Below(static_cast<uint32_t>(legal.size()))];
      if (step % 5 == 0) {
        Call apply;
        apply.rpc = Call::kApply;
        state->Serialize(apply.apply.mutable_state()->mutable_full());
        apply.apply.mutable_move()->set_id(move.id);
        apply.apply.mutable_include()->set_legal_moves(true);
        apply.apply.mutable_include()->set_mover_view(true);
        Call observe;
        observe.rpc = Call::kObserve;
        *observe.observe.mutable_state() = apply.apply.state();
        observe.observe.set_seat(state->to_move());
        Call moves;
        moves.rpc = Call::kLegalMoves;
        *moves.legal.mutable_state() = apply.apply.state();
        moves.legal.set_seat(state->to_move());
        mix.insert(mix.end(), {apply, apply, apply, observe, moves});
      }
      state->ApplyLegal(move, nullptr);
    }
    Call created;
        created.rpc = Call::kNewGame;
    created.new_game.set_game(game->name());
    created.new_game.set_players(game->info().max_players);
    created.new_game.set_seed(5);
    mix.push_back(created);
  }
  // Bad requests, about one in ten, each with the code it must get.
  const size_t good = mix.size();
  for (size_t i = 0; i < good / 40 + 1; ++i) {
    const Call& base = mix[i * 37 % good];
    if (base.rpc != Call::kApply) continue;
    Call garbage = base;
    garbage.apply.mutable_state()->mutable_full()->mutable_state()->set_value("\xff\xff\xff\xff");
    garbage.expected = grpc::StatusCode::INVALID_ARGUMENT;
    Call illegal = base;
    illegal.apply.mutable_move()->set_id(0xFFFFFFF0u);
    illegal.expected = grpc::StatusCode::INVALID_ARGUMENT;
    Call seat;
        seat.rpc = Call::kObserve;
    *seat.observe.mutable_state() = base.apply.state();
    seat.observe.set_seat(99);
    seat.expected = grpc::StatusCode::INVALID_ARGUMENT;
    Call unknown;
        unknown.rpc = Call::kNewGame;
    unknown.new_game.set_game("chess");
    unknown.new_game.set_players(2);
    unknown.expected = grpc::StatusCode::INVALID_ARGUMENT;
    mix.insert(mix.end(), {garbage, illegal, seat, unknown});
  }
  return mix;
}

// What happened to the calls of one period.
struct Tally {
  int64_t calls = 0, good_failed = 0, bad_unexpected = 0;
  std::map<grpc::StatusCode, int64_t> codes;
  std::vector<double> latencies_us;

  void Add(const Call& call, grpc::StatusCode code, double latency_us) {
    ++calls;
    ++codes[code];
    if (call.expected == grpc::StatusCode::OK && code != grpc::StatusCode::OK) ++good_failed;
    if (call.expected != grpc::StatusCode::OK && code != call.expected) ++bad_unexpected;
    latencies_us.push_back(latency_us);
  }
  double Percentile(double p) {
    if (latencies_us.empty()) return 0;
    std::sort(latencies_us.begin(), latencies_us.end());
    return latencies_us[static_cast<size_t>(p * static_cast<double>(latencies_us.size() - 1))];
  }
};

class Load {
 public:
  Load(std::vector<std::unique_ptr<v1::Engine::Stub>>& stubs, const std::vector<Call>& mix)
      : stubs_(stubs), mix_(mix) {}

  // Closed loop: `in_flight` calls at all times for `seconds`; calls per second.
  double Saturate(int in_flight, double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    std::atomic<int64_t> done{0};
    std::atomic<int> running{in_flight};
    std::function<void(size_t)> next = [&](size_t index) {
      Issue(index, [&, index](grpc::StatusCode, double) {
        ++done;
        if (Clock::now() < end) next(index + 7);
        else --running;
      });
    };
    const auto begin = Clock::now();
    for (int i = 0; i < in_flight; ++i) next(static_cast<size_t>(i) * 131);
    while (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return static_cast<double>(done) / std::chrono::duration<double>(Clock::now() - begin).count();
  }

  // Open loop: calls at `rate` per second for `seconds`, whatever the answers take;
  // `period` seconds per tally, reported through `report(tally, period_index)`.
  template <typename Report>
  void Paced(double rate, double seconds, double period, Report report) {
    const auto begin = Clock::now();
    const auto end = begin + std::chrono::duration<double>(seconds);
    std::mutex mutex;
    Tally tally;
    int period_index = 0;
    auto period_end = begin + std::chrono::duration<double>(period);
    std::atomic<int> in_flight{0};
    int64_t skipped = 0;
    for (int64_t k = 0;; ++k) {
      const auto at = begin + std::chrono::duration<double>(static_cast<double>(k) / rate);
      if (at >= end) break;
      std::this_thread::sleep_until(at);
      if (Clock::now() >= period_end) {
        std::lock_guard lock(mutex);
        report(tally, period_index++, skipped);
        tally = Tally();
        skipped = 0;
        period_end += std::chrono::duration<double>(period);
      }
      if (in_flight >= absl::GetFlag(FLAGS_max_in_flight)) {
        ++skipped;
        continue;
      }
      ++in_flight;
      const size_t index = static_cast<size_t>(k) * 7919;
      Issue(index, [&, index](grpc::StatusCode code, double latency_us) {
        std::lock_guard lock(mutex);
        tally.Add(mix_[index % mix_.size()], code, latency_us);
        --in_flight;
      });
    }
    while (in_flight > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard lock(mutex);
    report(tally, period_index, skipped);
  }

 private:
  template <typename Done>
  void Issue(size_t index, Done done) {
    const Call& call = mix_[index % mix_.size()];
    auto& stub = *stubs_[index % stubs_.size()];
    auto* context = new grpc::ClientContext();
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::milliseconds(absl::GetFlag(FLAGS_deadline_ms)));
    const auto started = Clock::now();
    auto finish = [context, started, done](const grpc::Status& status) {
      done(status.error_code(), std::chrono::duration<double, std::micro>(Clock::now() - started).count());
      delete context;
    };
    switch (call.rpc) {
      case Call::kApply: {
        auto* response = new v1::ApplyResponse();
        stub.async()->Apply(context, &call.apply, response, [=](grpc::Status s) { finish(s); delete response; });
        break;
      }
      case Call::kObserve: {
        auto* response = new v1::ObserveResponse();
        stub.async()->Observe(context, &call.observe, response, [=](grpc::Status s) { finish(s); delete response; });
        break;
      }
      case Call::kLegalMoves: {
        auto* response = new v1::LegalMovesResponse();
        stub.async()->LegalMoves(context, &call.legal, response, [=](grpc::Status s) { finish(s); delete response; });
        break;
      }
      case Call::kNewGame: {
        auto* response = new v1::NewGameResponse();
        stub.async()->NewGame(context, &call.new_game, response, [=](grpc::Status s) { finish(s); delete response; });
        break;
      }
    }
  }

  std::vector<std::unique_ptr<v1::Engine::Stub>>& stubs_;
  const std::vector<Call>& mix_;
};

int64_t RssKb(pid_t pid, const char* field = "VmRSS:") {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  int64_t value = 0;
  while (status >> key) {
    if (key == field && status >> value) return value;
    status.ignore(1 << 20, '\n');
  }
  return -1;
}

std::string Codes(const Tally& tally) {
  std::string out;
  for (const auto& [code, count] : tally.codes)
    out += " " + std::to_string(static_cast<int>(code)) + ":" + std::to_string(count);
  return out;
}

}  // namespace
}  // namespace gavel

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  using namespace gavel;
  KeepOffCoreZero();  // the servers get core 0
  auto engine = testing::ChildProcess::Start(
      {"/usr/bin/taskset", "-c", "0", GAVEL_ENGINE_BINARY, "--listen=127.0.0.1:0", "--log_level=error",
       "--state_cache_entries=" + std::to_string(absl::GetFlag(FLAGS_state_cache_entries))});
  if (!engine.ok()) return 1;
  const int port = *engine->WaitForPort();
  std::vector<std::unique_ptr<v1::Engine::Stub>> stubs;
  for (int i = 0; i < absl::GetFlag(FLAGS_channels); ++i) {
    grpc::ChannelArguments args;
    args.SetInt("gavel.bench_channel", i);  // a connection of its own
    stubs.push_back(v1::Engine::NewStub(grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args)));
  }
  const std::vector<Call> mix = BuildMix();
  Load load(stubs, mix);

  double saturation = 0;
  std::string rounds;
  for (int round = 0; round < std::max(1, absl::GetFlag(FLAGS_saturation_rounds)); ++round) {
    const double rate = load.Saturate(256, absl::GetFlag(FLAGS_saturation_seconds));
    saturation = round == 0 ? rate : std::min(saturation, rate);
    absl::StrAppend(&rounds, round == 0 ? "" : ", ", static_cast<int64_t>(rate));
  }
  std::printf("mix of %zu calls over %zu games; saturation %.0f calls/s (256 in flight; the lowest of %s)\n",
              mix.size(), AllGames().size(), saturation, rounds.c_str());

  const double rate = absl::GetFlag(FLAGS_load) * saturation;
  std::printf("soak at %.0f calls/s for %.1f min\n%6s %9s %11s %14s %8s %8s %9s\n", rate,
              absl::GetFlag(FLAGS_minutes), "minute", "calls", "good failed", "bad unexpected",
              "p50 us", "p99 us", "RSS KiB");
  int64_t good_failed = 0, bad_unexpected = 0, rss_warm = 0, rss_end = 0;
  load.Paced(rate, 60 * absl::GetFlag(FLAGS_minutes), 60, [&](Tally& tally, int minute, int64_t skipped) {
    const int64_t rss = RssKb(engine->pid());
    if (minute == 0) rss_warm = rss;
    rss_end = rss;
    good_failed += tally.good_failed;
    bad_unexpected += tally.bad_unexpected;
    std::printf("%6d %9ld %11ld %14ld %8.0f %8.0f %9ld%s\n", minute + 1, tally.calls, tally.good_failed,
                tally.bad_unexpected, tally.Percentile(0.5), tally.Percentile(0.99), rss,
                skipped ? " (generator fell behind)" : "");
    std::fflush(stdout);
  });
  std::printf("soak: %ld good calls failed, %ld bad requests got an unexpected code; RSS %ld KiB after "
              "the first minute, %ld KiB at the end (%+.1f%%)\n",
              good_failed, bad_unexpected, rss_warm, rss_end,
              100.0 * static_cast<double>(rss_end - rss_warm) / static_cast<double>(rss_warm));

  const double over = absl::GetFlag(FLAGS_overload) * saturation;
  std::printf("overload at %.0f calls/s for %.0f s (deadline %d ms); codes as number:count\n", over,
              absl::GetFlag(FLAGS_overload_seconds), absl::GetFlag(FLAGS_deadline_ms));
  load.Paced(over, absl::GetFlag(FLAGS_overload_seconds), 10, [&](Tally& tally, int period, int64_t skipped) {
    std::printf("  %3d s: %ld calls,%s; p99 %.0f us; RSS %ld KiB%s\n", 10 * (period + 1), tally.calls,
                Codes(tally).c_str(), tally.Percentile(0.99), RssKb(engine->pid()),
                skipped ? (" (" + std::to_string(skipped) + " not sent: generator bound)").c_str() : "");
    std::fflush(stdout);
  });
  std::printf("overload: peak RSS %ld KiB\n", RssKb(engine->pid(), "VmHWM:"));
  const double after = load.Saturate(16, 1);
  std::printf("after the overload the server answers %.0f calls/s; still running: %s\n", after,
              kill(engine->pid(), 0) == 0 ? "yes" : "no");
  engine->Signal(SIGTERM);
  return engine->Wait().value_or(-1) == 0 ? 0 : 1;
}
