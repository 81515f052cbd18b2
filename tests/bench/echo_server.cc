// A bare gRPC echo server for the service benchmark's baseline: every unary call to any
// method returns its request bytes. Same gRPC build, same callback API as gavel-engine.
#include <csignal>
#include <cstdio>

#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "service/mutex_checks.h"

namespace {

class Echo final : public grpc::ServerGenericBidiReactor {
 public:
  Echo() { StartRead(&message_); }
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    StartWriteAndFinish(&message_, grpc::WriteOptions(), grpc::Status::OK);
  }
  void OnDone() override { delete this; }

 private:
  grpc::ByteBuffer message_;
};

class EchoService final : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    return new Echo();
  }
};

}  // namespace

int main() {
  // Bare gRPC as the engine server runs it (service/mutex_checks.h).
  gavel::service::TurnOffMutexDeadlockDetection();
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  EchoService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterCallbackGenericService(&service);
  auto server = builder.BuildAndStart();
  std::printf("listening on port %d\n", port);
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
  server->Shutdown();
  return 0;
}
