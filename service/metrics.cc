#include "service/metrics.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace gavel::service {

struct ServiceMetrics::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Counter>* calls = nullptr;
  prometheus::Family<prometheus::Histogram>* latency = nullptr;
  prometheus::Family<prometheus::Counter>* started = nullptr;
  prometheus::Family<prometheus::Counter>* finished = nullptr;
  std::unique_ptr<prometheus::Exposer> exposer;
};

ServiceMetrics::ServiceMetrics(const std::string& prefix) : impl_(std::make_unique<Impl>()) {
  impl_->calls = &prometheus::BuildCounter()
                      .Name(prefix + "_calls_total")
                      .Help("Finished calls by RPC, game and gRPC status code")
                      .Register(*impl_->registry);
  impl_->latency = &prometheus::BuildHistogram()
                        .Name(prefix + "_call_seconds")
                        .Help("Time spent handling a call, by RPC and game")
                        .Register(*impl_->registry);
  impl_->started = &prometheus::BuildCounter()
                        .Name(prefix + "_games_started_total")
                        .Help("Games created")
                        .Register(*impl_->registry);
  impl_->finished = &prometheus::BuildCounter()
                         .Name(prefix + "_games_finished_total")
                         .Help("Games whose last move was applied")
                         .Register(*impl_->registry);
}

ServiceMetrics::~ServiceMetrics() = default;

absl::StatusOr<int> ServiceMetrics::Serve(const std::string& listen) {
  try {
    impl_->exposer = std::make_unique<prometheus::Exposer>(listen);
  } catch (const std::exception& error) {
    return absl::UnavailableError(absl::StrCat("metrics cannot listen on ", listen, ": ", error.what()));
  }
  impl_->exposer->RegisterCollectable(impl_->registry);
  const auto ports = impl_->exposer->GetListeningPorts();
  if (ports.empty()) return absl::UnavailableError("metrics exposer bound no port");
  return ports.front();
}

void ServiceMetrics::RecordCall(absl::string_view rpc, absl::string_view game,
                                absl::StatusCode code, double seconds) {
  // 10 us .. ~5 s, doubling: engine calls take microseconds, remote ones milliseconds.
  static const prometheus::Histogram::BucketBoundaries kBuckets = [] {
    prometheus::Histogram::BucketBoundaries bounds;
    for (double bound = 10e-6; bound < 6; bound *= 2) bounds.push_back(bound);
    return bounds;
  }();
  const std::string rpc_name(rpc), game_name(game);
  impl_->calls
      ->Add({{"rpc", rpc_name}, {"game", game_name}, {"code", absl::StatusCodeToString(code)}})
      .Increment();
  impl_->latency->Add({{"rpc", rpc_name}, {"game", game_name}}, kBuckets).Observe(seconds);
}

void ServiceMetrics::GameStarted(absl::string_view game) {
  impl_->started->Add({{"game", std::string(game)}}).Increment();
}

void ServiceMetrics::GameFinished(absl::string_view game) {
  impl_->finished->Add({{"game", std::string(game)}}).Increment();
}

prometheus::Registry& ServiceMetrics::registry() { return *impl_->registry; }

std::string GameLabel(absl::string_view name) {
  if (name.empty()) return "";
  return FindGame(name) != nullptr ? std::string(name) : "other";
}

}  // namespace gavel::service
