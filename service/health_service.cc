#include "service/health_service.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace gavel::service {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// One Watch stream: writes the current status, then every change, one write at a time.
class HealthService::Watcher final : public grpc::ServerWriteReactor<HealthCheckResponse> {
 public:
  Watcher(HealthService* service, HealthCheckResponse::ServingStatus status)
      : service_(service) {
    Update(status);
  }

  void Update(HealthCheckResponse::ServingStatus status) {
    std::lock_guard lock(mutex_);
    wanted_ = status;
    WriteIfNeeded();
  }

  // Ends the stream after any write in flight.
  void End() {
    std::lock_guard lock(mutex_);
    ending_ = true;
    WriteIfNeeded();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(mutex_);
    writing_ = false;
    if (!ok) ending_ = true;
    WriteIfNeeded();
  }

  void OnCancel() override { End(); }

  void OnDone() override {
    service_->Forget(this);
    delete this;
  }

 private:
  // Called with mutex_ held.
  void WriteIfNeeded() {
    if (writing_ || finished_) return;
    if (wanted_ != sent_) {
      sent_ = wanted_;
      message_.set_status(sent_);
      writing_ = true;
      StartWrite(&message_);
    } else if (ending_) {
      finished_ = true;
      Finish(grpc::Status::OK);
    }
  }

  HealthService* service_;
  std::mutex mutex_;
  HealthCheckResponse message_;
  HealthCheckResponse::ServingStatus wanted_ = HealthCheckResponse::UNKNOWN;
  HealthCheckResponse::ServingStatus sent_ = HealthCheckResponse::UNKNOWN;
  bool writing_ = false, ending_ = false, finished_ = false;
};

HealthService::HealthService(std::vector<std::string> services) : services_(std::move(services)) {
  services_.push_back("");
}

HealthCheckResponse::ServingStatus HealthService::StatusOf(const std::string& service) const {
  if (std::find(services_.begin(), services_.end(), service) == services_.end())
    return HealthCheckResponse::SERVICE_UNKNOWN;
  return serving_ ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
}

void HealthService::SetServing(bool serving) {
  std::lock_guard lock(mutex_);
  serving_ = serving;
  for (Watcher* watcher : watchers_)
    watcher->Update(serving ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING);
}

void HealthService::Shutdown() {
  std::lock_guard lock(mutex_);
  serving_ = false;
  shut_down_ = true;
  for (Watcher* watcher : watchers_) {
    watcher->Update(HealthCheckResponse::NOT_SERVING);
    watcher->End();
  }
}

void HealthService::Forget(Watcher* watcher) {
  std::lock_guard lock(mutex_);
  watchers_.erase(watcher);
}

grpc::ServerUnaryReactor* HealthService::Check(grpc::CallbackServerContext* context,
                                               const HealthCheckRequest* request,
                                               HealthCheckResponse* response) {
  auto* reactor = context->DefaultReactor();
  std::lock_guard lock(mutex_);
  const auto status = StatusOf(request->service());
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service"));
  } else {
    response->set_status(status);
    reactor->Finish(grpc::Status::OK);
  }
  return reactor;
}

grpc::ServerWriteReactor<HealthCheckResponse>* HealthService::Watch(
    grpc::CallbackServerContext*, const HealthCheckRequest* request) {
  std::lock_guard lock(mutex_);
  auto* watcher = new Watcher(this, StatusOf(request->service()));
  if (shut_down_) {
    watcher->End();
  } else {
    watchers_.insert(watcher);
  }
  return watcher;
}

absl::StatusOr<std::unique_ptr<grpc::Server>> StartProbeServer(const std::string& address,
                                                               HealthService* health, int* port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), port);
  builder.RegisterService(health);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || *port == 0) return absl::UnavailableError(absl::StrCat("cannot listen on ", address));
  return server;
}

}  // namespace gavel::service
