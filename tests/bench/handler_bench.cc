// The engine server's per-call work without gRPC: parse the request, validate the state,
// apply the move (with events), serialize the response; the mean over every move of a seeded
// game (tests/bench/seeded_game.h). Compare with service_bench to see how much of a call is
// the engine and how much is gRPC. HandleSealedApply: the same call on a sealed token with
// the mover's capability. HandleCombinedApply: Apply that also returns the next mover's legal
// moves and view (one call per turn). HandleLegalMoves and HandleObserve: the mover's legal
// moves and view of each state of the game, in calls of their own. Each runs with the server's decoded-state cache
// (service/state_cache.h), in which each move's state is the one the previous call wrote,
// as a client sends it back (for LegalMoves and Observe, written by an Apply before the timed
// calls); HandleApplyDecoding decodes every state, as on a cache miss.
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

enum class Call { kPlain, kSealed, kCombined, kLegalMoves, kObserve };

// A request for the mover's legal moves or view (LegalMovesRequest and ObserveRequest have
// the same fields) of the state `apply` holds.
template <typename Request>
Request ForTheMover(const Game& game, const v1::ApplyRequest& apply) {
  Request request;
  *request.mutable_state() = apply.state();
  request.set_seat((*game.Deserialize(apply.state().full()))->to_move());
  return request;
}

// The wire bytes of every move's request of one seeded game, in the form `call` sends.
std::vector<std::string> RequestBytes(const Game& game, Call call) {
  std::vector<std::string> out;
  uint32_t move_number = 0;
  const service::TableId table = service::Sealer::NewTable();
  for (v1::ApplyRequest& request : SeededGameApplyRequests(game)) {
    if (call == Call::kLegalMoves || call == Call::kObserve) {
      out.push_back(call == Call::kLegalMoves ? ForTheMover<v1::LegalMovesRequest>(game, request).SerializeAsString()
                                              : ForTheMover<v1::ObserveRequest>(game, request).SerializeAsString());
      continue;
    }
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

// The server's handler of each request as it reads them, the state as bytes.
absl::Status Handle(const service::ApplyRequestWire& request, v1::ApplyResponse* response,
                    service::ResponseTail* tail, service::StateCache* states) {
  return service::Apply(request, response, &BenchSealer(), tail, states);
}
absl::Status Handle(const service::LegalMovesRequestWire& request, v1::LegalMovesResponse* response,
                    service::ResponseTail* tail, service::StateCache* states) {
  return service::LegalMoves(request, response, &BenchSealer(), tail, states);
}
absl::Status Handle(const service::ObserveRequestWire& request, v1::ObserveResponse* response,
                    service::ResponseTail* tail, service::StateCache* states) {
  return service::Observe(request, response, &BenchSealer(), tail, states);
}

// How many legal moves each request's response lists (the moves travel in the tail, which
// the timed loop does not parse).
template <typename Request, typename Response>
std::vector<int> LegalMovesReturned(const std::vector<std::string>& requests) {
  std::vector<int> counts;
  for (const std::string& bytes : requests) {
    Request request;
    Response response;
    if (!request.ParseFromString(bytes)) std::abort();
    absl::Status status;
    if constexpr (std::is_same_v<Request, v1::ApplyRequest>) status = service::Apply(request, &response, &BenchSealer());
    if constexpr (std::is_same_v<Request, v1::LegalMovesRequest>) status = service::LegalMoves(request, &response);
    if constexpr (std::is_same_v<Request, v1::ObserveRequest>) status = service::Observe(request, &response);
    if (!status.ok()) std::abort();
    if constexpr (std::is_same_v<Request, v1::ObserveRequest>) {
      counts.push_back(0);
    } else if constexpr (std::is_same_v<Request, v1::ApplyRequest>) {
      counts.push_back(response.legal_moves_size());
    } else {
      counts.push_back(response.moves_size());
    }
  }
  return counts;
}

// Keeps in `states` every state of `game`'s seeded game after its first, as Apply writes
// them: the states a client holds when it asks for legal moves or a view.
void ApplyEveryMove(const Game& game, service::StateCache* states) {
  for (const std::string& bytes : RequestBytes(game, Call::kPlain)) {
    service::ApplyRequestWire request;
    v1::ApplyResponse response;
    service::ResponseTail tail;
    if (!request.ParseFromString(bytes) || !Handle(request, &response, &tail, states).ok()) std::abort();
  }
}

// One iteration handles the next move's request of the game, cycling: the time is the mean
// over a whole game. `Wire` is the request as the server reads it, `Request` its public form.
template <typename Wire, typename Request, typename Response>
void HandleCalls(benchmark::State& bench, const Game* game, Call call, bool cached) {
  service::StateCache states(cached ? 8192 : 0);
  const std::vector<std::string> requests = RequestBytes(*game, call);
  const std::vector<int> legal_moves_in = LegalMovesReturned<Request, Response>(requests);
  if (call == Call::kLegalMoves || call == Call::kObserve) ApplyEveryMove(*game, &states);
  size_t next = 0, request_bytes = 0, response_bytes = 0, legal_moves = 0;
  const uint64_t allocations_before = allocations.load();
  for (auto _ : bench) {
    const size_t at = next;
    next = next + 1 == requests.size() ? 0 : next + 1;
    const std::string& bytes = requests[at];
    service::CallArena arena;  // as the server does per call, reading the state as bytes
    auto* request = google::protobuf::Arena::CreateMessage<Wire>(arena.get());
    request->ParseFromString(bytes);
    auto* response = google::protobuf::Arena::CreateMessage<Response>(arena.get());
    service::ResponseTail& tail = service::ReusedTail();
    if (const absl::Status status = Handle(*request, response, &tail, &states); !status.ok())
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
  const auto add = [calls](const std::string& name, auto handle, const Game* game, Call call, bool cached) {
    auto* bench = benchmark::RegisterBenchmark(name.c_str(), handle, game, call, cached);
    if (calls > 0) bench->Iterations(calls);
  };
  const auto apply = HandleCalls<service::ApplyRequestWire, v1::ApplyRequest, v1::ApplyResponse>;
  for (const Game* game : AllGames()) {
    add("HandleApply/" + game->name(), apply, game, Call::kPlain, true);
    add("HandleApplyDecoding/" + game->name(), apply, game, Call::kPlain, false);
    add("HandleSealedApply/" + game->name(), apply, game, Call::kSealed, true);
    add("HandleCombinedApply/" + game->name(), apply, game, Call::kCombined, true);
    add("HandleLegalMoves/" + game->name(),
        HandleCalls<service::LegalMovesRequestWire, v1::LegalMovesRequest, v1::LegalMovesResponse>, game,
        Call::kLegalMoves, true);
    add("HandleObserve/" + game->name(),
        HandleCalls<service::ObserveRequestWire, v1::ObserveRequest, v1::ObserveResponse>, game, Call::kObserve,
        true);
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
