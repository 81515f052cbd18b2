// The engine server's per-call work without gRPC: parse the request, validate the state,
// apply the move (with events), serialize the response. Compare with service_bench to see
// how much of a call is the engine and how much is gRPC.
#include "benchmark/benchmark.h"
#include "google/protobuf/arena.h"
#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "tests/bench/mid_game.h"
#include "service/engine_handler.h"

namespace gavel {
namespace {


void HandleApply(benchmark::State& bench, const Game* game) {
  const std::string bytes = MidGameApplyRequest(*game).SerializeAsString();
  for (auto _ : bench) {
    google::protobuf::Arena arena;  // as the server does per call
    auto* request = google::protobuf::Arena::CreateMessage<v1::ApplyRequest>(&arena);
    request->ParseFromString(bytes);
    auto* response = google::protobuf::Arena::CreateMessage<v1::ApplyResponse>(&arena);
    if (const absl::Status status = service::Apply(*request, response); !status.ok())
      bench.SkipWithError(std::string(status.message()).c_str());
    benchmark::DoNotOptimize(response->SerializeAsString());
  }
  bench.counters["request_bytes"] = static_cast<double>(bytes.size());
}

void RegisterAll() {
  for (const Game* game : AllGames())
    benchmark::RegisterBenchmark(("HandleApply/" + game->name()).c_str(), HandleApply, game);
}

}  // namespace
}  // namespace gavel

int main(int argc, char** argv) {
  gavel::RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
