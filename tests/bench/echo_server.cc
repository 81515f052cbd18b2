// A bare gRPC echo server for the service benchmark's baseline: a call returns its request
// bytes. Same gRPC build and the same serving path as gavel-engine: a registered unary method
// with raw (ByteBuffer) messages, answered inline by the callback API's default reactor, so
// that the only difference from an engine call is the engine's work.
//
// Every other method (any name) is answered by a generic callback service, the baseline of
// the figures before 2026-12-02 (service_bench --generic_echo). gRPC serves an unregistered
// method as a bidirectional stream: reading the request and sending the response are separate
// steps, which costs more than a registered unary call.
#include <csignal>
#include <cstdio>

#include "gavel/bench/echo.grpc.pb.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "service/mutex_checks.h"

namespace {

class UnaryEcho final : public gavel::bench::Echo::WithRawCallbackMethod_Echo<gavel::bench::Echo::Service> {
  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* context, const grpc::ByteBuffer* in,
                                 grpc::ByteBuffer* out) override {
    *out = *in;  // shares the request's slices
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

class StreamEcho final : public grpc::ServerGenericBidiReactor {
 public:
  StreamEcho() { StartRead(&message_); }
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

class GenericEcho final : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    return new StreamEcho();
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
  UnaryEcho unary;
  GenericEcho generic;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&unary);
  builder.RegisterCallbackGenericService(&generic);
  auto server = builder.BuildAndStart();
  std::printf("listening on port %d\n", port);
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
  server->Shutdown();
  return 0;
}
