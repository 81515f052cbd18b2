#include "service/arena/arena_metrics.h"

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace gavel::arena {

struct ArenaMetrics::Families {
  prometheus::Family<prometheus::Gauge>* in_progress = nullptr;
  prometheus::Family<prometheus::Counter>* restarted = nullptr;
  prometheus::Family<prometheus::Counter>* faults = nullptr;
};

ArenaMetrics::ArenaMetrics() : service_("gavel_arena"), families_(std::make_unique<Families>()) {
  prometheus::Registry& registry = service_.registry();
  families_->in_progress = &prometheus::BuildGauge()
                                .Name("gavel_arena_games_in_progress")
                                .Help("Matches being played, by game")
                                .Register(registry);
  families_->restarted = &prometheus::BuildCounter()
                              .Name("gavel_arena_games_restarted_total")
                              .Help("Matches played again from the start after an engine failure")
                              .Register(registry);
  families_->faults = &prometheus::BuildCounter()
                           .Name("gavel_arena_bot_faults_total")
                           .Help("Moves charged to a bot as a fault, by game and status")
                           .Register(registry);
}

ArenaMetrics::~ArenaMetrics() = default;

absl::StatusOr<int> ArenaMetrics::Serve(const std::string& listen) { return service_.Serve(listen); }

void ArenaMetrics::MatchStarted(absl::string_view game) {
  const std::string label(service::GameLabel(game));
  service_.GameStarted(label);
  families_->in_progress->Add({{"game", label}}).Increment();
}

void ArenaMetrics::MatchEnded(absl::string_view game, bool finished) {
  const std::string label(service::GameLabel(game));
  families_->in_progress->Add({{"game", label}}).Decrement();
  if (finished) service_.GameFinished(label);
}

void ArenaMetrics::MatchRestarted(absl::string_view game) {
  families_->restarted->Add({{"game", std::string(service::GameLabel(game))}}).Increment();
}

void ArenaMetrics::BotFault(absl::string_view game, v1::MoveStatus status) {
  const char* name = status == v1::MOVE_STATUS_TIMEOUT        ? "TIMEOUT"
                     : status == v1::MOVE_STATUS_INVALID      ? "INVALID"
                     : status == v1::MOVE_STATUS_DISCONNECTED ? "DISCONNECTED"
                     : status == v1::MOVE_STATUS_FAILED       ? "FAILED"
                                                              : "other";
  families_->faults->Add({{"game", std::string(service::GameLabel(game))}, {"status", name}}).Increment();
}

}  // namespace gavel::arena
