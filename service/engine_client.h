#pragma once
// Client channels to the engine service, as every gavel client should make them: calls
// spread over all resolved addresses (round_robin, since a Kubernetes Service balances
// connections, not calls), replicas reporting NOT_SERVING on the health service skipped,
// and UNAVAILABLE retried (safe: every Engine RPC is a pure function of its request).
#include <memory>
#include <string>

#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"

namespace gavel::service {

// `target`: a gRPC target, e.g. "dns:///gavel-engine.default.svc:50051" or
// "ipv4:127.0.0.1:7001,127.0.0.1:7002".
// `credentials`: plaintext by default; TLS from service::ChannelCredentials (service/tls.h).
std::shared_ptr<grpc::Channel> MakeEngineChannel(
    const std::string& target, int max_message_bytes = 1 << 20,
    std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);

// The service config MakeEngineChannel uses (JSON), for clients in other languages.
const char* EngineServiceConfig();

}  // namespace gavel::service
