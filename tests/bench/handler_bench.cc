// The engine server's per-call work without gRPC: parse the request, validate the state,
// apply the move (with events), serialize the response; the mean over every move of a seeded
// game (tests/bench/seeded_game.h). Compare with service_bench to see how much of a call is
// the engine and how much is gRPC. HandleSealedApply: the same call on a sealed token with
// the mover's capability. HandleCombinedApply: Apply that also returns the next mover's legal
// moves and view (one call per turn). Each runs with the server's decoded-state cache
// (service/state_cache.h), in which each move's state is the one the previous call wrote,
// as a client sends it back; HandleApplyDecoding decodes every state, as on a cache miss.
// Each reports its heap allocations per call
// (`allocations`, counted by the replaced operator new below), a figure that does not depend
// on the machine's speed.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/arena.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "tests/bench/sealed_request.h"
#include "tests/bench/seeded_game.h"
#include "service/engine_handler.h"
#include "service/mutex_checks.h"

ABSL_FLAG(int, calls, 0,
          "calls each Handle* benchmark makes (0: as many as its timing needs); a fixed count "
          "makes two builds' instruction counts comparable (tests/bench/instructions_per_call.sh)");

namespace {
std::atomic<uint64_t> allocations{0};
}  // namespace

// Every C++ heap allocation of the process counts (protobuf arenas' blocks and strings,
// vectors); malloc itself stays the linked allocator's. (g++ cannot see that the replaced
// operator new is malloc, and warns about the free in operator delete.)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* block = std::malloc(size == 0 ? 1 : size)) return block;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return ::operator new(size); }
void operator delete(void* block) noexcept { std::free(block); }
void operator delete[](void* block) noexcept { std::free(block); }
void operator delete(void* block, size_t) noexcept { std::free(block); }
void operator delete[](void* block, size_t) noexcept { std::free(block); }

namespace gavel {
namespace {


// The sealing primitives alone, on a state of `bench.range(0)` bytes.
const service::Sealer& BenchSealer() {
  static const service::Sealer sealer(*service::KeyRing::Parse(service::KeyRing::NewKeyLine(1, true)));
  return sealer;
}

void Seal(benchmark::State& bench) {
  const std::string state(static_cast<size_t>(bench.range(0)), 'x');
  const service::TokenHeader header{.game = "morgenland", .table = service::Sealer::NewTable()};
  for (auto _ : bench) benchmark::DoNotOptimize(*BenchSealer().Seal(header, state));
}
BENCHMARK(Seal)->Arg(300)->Arg(1200);

void Open(benchmark::State& bench) {
  const std::string token = *BenchSealer().Seal(
      {.game = "morgenland", .table = service::Sealer::NewTable()}, std::string(static_cast<size_t>(bench.range(0)), 'x'));
  for (auto _ : bench) benchmark::DoNotOptimize(BenchSealer().Open(token));
}
BENCHMARK(Open)->Arg(300)->Arg(1200);

void VerifyCapability(benchmark::State& bench) {
  const service::TableId table = service::Sealer::NewTable();
  const std::string capability = BenchSealer().Capability(table, {.owner = false, .seat = 2});
  for (auto _ : bench) benchmark::DoNotOptimize(BenchSealer().Verify(capability, table));
}
BENCHMARK(VerifyCapability);

enum class Call { kPlain, kSealed, kCombined };

// The wire bytes of every move's request of one seeded game, in the form `call` sends.
std::vector<std::string> RequestBytes(const Game& game, Call call) {
  std::vector<std::string> out;
  uint32_t move_number = 0;
  const service::TableId table = service::Sealer::NewTable();
  for (v1::ApplyRequest& request : SeededGameApplyRequests(game)) {
    if (call == Call::kCombined) {
      request.mutable_include()->set_legal_moves(true);
      request.mutable_include()->set_mover_view(true);
    }
    out.push_back((call == Call::kSealed ? SealedApplyRequest(request, move_number, table, BenchSealer()) : request)
                      .SerializeAsString());
    ++move_number;
  }
  return out;
}

// How many legal moves each request's response lists (the moves travel in the tail, which
// the timed loop does not parse).
std::vector<int> LegalMovesReturned(const std::vector<std::string>& requests, const service::Sealer& sealer) {
  std::vector<int> counts;
  for (const std::string& bytes : requests) {
    v1::ApplyRequest request;
    v1::ApplyResponse response;
    if (!request.ParseFromString(bytes) || !service::Apply(request, &response, &sealer).ok()) std::abort();
    counts.push_back(response.legal_moves_size());
  }
  return counts;
}

// One iteration handles the next move's request of the game, cycling: the time is the mean
// over a whole game.
void HandleApply(benchmark::State& bench, const Game* game, Call call, bool cached) {
  const service::Sealer& sealer = BenchSealer();
  service::StateCache states(cached ? 8192 : 0);
  const std::vector<std::string> requests = RequestBytes(*game, call);
  const std::vector<int> legal_moves_in = LegalMovesReturned(requests, sealer);
  size_t next = 0, request_bytes = 0, response_bytes = 0, legal_moves = 0;
  const uint64_t allocations_before = allocations.load();
  for (auto _ : bench) {
    const size_t at = next;
    next = next + 1 == requests.size() ? 0 : next + 1;
    const std::string& bytes = requests[at];
    service::CallArena arena;  // as the server does per call, reading the state as bytes
    auto* request = google::protobuf::Arena::CreateMessage<service::ApplyRequestWire>(arena.get());
    request->ParseFromString(bytes);
    auto* response = google::protobuf::Arena::CreateMessage<v1::ApplyResponse>(arena.get());
    service::ResponseTail tail;
    if (const absl::Status status = service::Apply(*request, response, &sealer, &tail, &states); !status.ok())
      bench.SkipWithError(std::string(status.message()).c_str());
    // As the server serializes: into a buffer of the response's size, not zeroed first (a
    // grpc::Slice), where a std::string's zeroing cost up to a tenth of a combined call.
    const size_t size = service::SizeWithTail(*response, tail);
    const std::unique_ptr<uint8_t[]> out(new uint8_t[size]);
    service::WriteWithTail(*response, tail, out.get());
    request_bytes += bytes.size();
    response_bytes += size;
    legal_moves += static_cast<size_t>(legal_moves_in[at]);
    benchmark::DoNotOptimize(out.get());
    benchmark::ClobberMemory();
  }
  const auto per_call = [&](size_t total) {
    return benchmark::Counter(static_cast<double>(total), benchmark::Counter::kAvgIterations);
  };
  bench.counters["moves_in_game"] = static_cast<double>(requests.size());
  bench.counters["request_bytes"] = per_call(request_bytes);
  bench.counters["response_bytes"] = per_call(response_bytes);
  bench.counters["legal_moves"] = per_call(legal_moves);
  bench.counters["allocations"] = per_call(allocations.load() - allocations_before);
  if (cached) bench.counters["cache_hits"] = states.hits() / (states.hits() + states.misses());
}

void RegisterAll() {
  const int calls = absl::GetFlag(FLAGS_calls);
  const auto add = [calls](const std::string& name, const Game* game, Call call, bool cached) {
    auto* bench = benchmark::RegisterBenchmark(name.c_str(), HandleApply, game, call, cached);
    if (calls > 0) bench->Iterations(calls);
  };
  for (const Game* game : AllGames()) {
    add("HandleApply/" + game->name(), game, Call::kPlain, true);
    add("HandleApplyDecoding/" + game->name(), game, Call::kPlain, false);
    add("HandleSealedApply/" + game->name(), game, Call::kSealed, true);
    add("HandleCombinedApply/" + game->name(), game, Call::kCombined, true);
  }
}

}  // namespace
}  // namespace gavel

int main(int argc, char** argv) {
  gavel::service::TurnOffMutexDeadlockDetection();  // as the server runs: the state cache locks
  benchmark::Initialize(&argc, argv);  // takes the --benchmark_* flags out of argv
  absl::ParseCommandLine(argc, argv);
  gavel::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
