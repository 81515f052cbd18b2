#include "service/metrics.h"

#include <tuple>

#include "absl/container/node_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace gavel::service {

struct ServiceMetrics::Impl {
  // The counter and histogram of one (rpc, game, code). Family::Add builds a label map and
  // takes the family's lock, so each call's pair is looked up here instead, once created:
  // by the labels' views, so that a call builds no key.
  struct Series {
    prometheus::Counter* calls = nullptr;
    prometheus::Histogram* latency = nullptr;
  };
  using Labels = std::tuple<absl::string_view, absl::string_view, absl::StatusCode>;
  struct OwnedLabels {
    std::string rpc, game;
    absl::StatusCode code;
    Labels view() const { return {rpc, game, code}; }
  };
  struct LabelsHash {
    using is_transparent = void;
    size_t operator()(const Labels& labels) const { return absl::HashOf(labels); }
    size_t operator()(const OwnedLabels& labels) const { return (*this)(labels.view()); }
  };
  struct LabelsEqual {
    using is_transparent = void;
    static Labels ViewOf(const Labels& labels) { return labels; }
    static Labels ViewOf(const OwnedLabels& labels) { return labels.view(); }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const { return ViewOf(a) == ViewOf(b); }
  };
  Series& SeriesFor(absl::string_view rpc, absl::string_view game, absl::StatusCode code);

  absl::Mutex series_mutex;
  absl::node_hash_map<OwnedLabels, Series, LabelsHash, LabelsEqual> series ABSL_GUARDED_BY(series_mutex);
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

ServiceMetrics::Impl::Series& ServiceMetrics::Impl::SeriesFor(absl::string_view rpc,
                                                               absl::string_view game,
                                                               absl::StatusCode code) {
  const Labels labels{rpc, game, code};
  {
    absl::ReaderMutexLock lock(&series_mutex);
    if (auto found = series.find(labels); found != series.end()) return found->second;
  }
  // 10 us .. ~5 s, doubling: engine calls take microseconds, remote ones milliseconds.
  static const prometheus::Histogram::BucketBoundaries kBuckets = [] {
    prometheus::Histogram::BucketBoundaries bounds;
    for (double bound = 10e-6; bound < 6; bound *= 2) bounds.push_back(bound);
    return bounds;
  }();
  const std::string rpc_name(rpc), game_name(game);
  Series created{
      &calls->Add({{"rpc", rpc_name}, {"game", game_name}, {"code", absl::StatusCodeToString(code)}}),
      &latency->Add({{"rpc", rpc_name}, {"game", game_name}}, kBuckets)};
  absl::MutexLock lock(&series_mutex);
  // node_hash_map: the reference returned stays valid while other series are added.
  return series.try_emplace(OwnedLabels{rpc_name, game_name, code}, created).first->second;
}

void ServiceMetrics::RecordCall(absl::string_view rpc, absl::string_view game,
                                absl::StatusCode code, double seconds) {
  Impl::Series& series = impl_->SeriesFor(rpc, game, code);
  series.calls->Increment();
  series.latency->Observe(seconds);
}

void ServiceMetrics::GameStarted(absl::string_view game) {
  impl_->started->Add({{"game", std::string(game)}}).Increment();
}

void ServiceMetrics::GameFinished(absl::string_view game) {
  impl_->finished->Add({{"game", std::string(game)}}).Increment();
}

prometheus::Registry& ServiceMetrics::registry() { return *impl_->registry; }

absl::string_view GameLabel(absl::string_view name) {
  if (name.empty()) return "";
  const Game* game = FindGame(name);
  return game != nullptr ? absl::string_view(game->name()) : "other";
}

}  // namespace gavel::service
