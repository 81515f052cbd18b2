#pragma once
// TLS for every gRPC listener and channel (docs/deploy.md, "TLS").
//
// Listeners: a certificate and key in PEM files, re-read when they change (gRPC's
// FileWatcherCertificateProvider), so a rotated certificate is served without a restart;
// optionally a client CA, which makes TLS mutual (the arena's channel to the engine).
// Plaintext only on a loopback address, unless the operator says --insecure.
// Channels: a CA file to trust (re-read as well) or the system's roots, and optionally a
// client certificate for mutual TLS.
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"

namespace gavel::service {

struct ServerTls {
  std::string cert_file{}, key_file{};  // PEM; both or neither
  std::string client_ca_file{};     // set: clients must present a certificate it signed
  bool insecure = false;            // allows plaintext on an address that is not loopback
  int refresh_s = 10;               // how often the files are checked for changes
};

struct ClientTls {
  bool enabled = false;             // TLS (implied by ca_file); without ca_file, system roots
  std::string ca_file{};            // PEM roots to trust
  std::string cert_file{}, key_file{};  // this client's certificate, for mutual TLS
  int refresh_s = 10;
};

// The host part of "host:port", "[v6]:port" or a bare host.
absl::string_view HostOf(absl::string_view address);
// Whether `address` ("host:port", "[v6]:port") names a loopback host.
bool IsLoopback(absl::string_view address);

// The credentials to listen on `address` with: TLS when a certificate is given, plaintext
// on loopback or with `insecure`; otherwise FAILED_PRECONDITION saying what to pass.
// Files that cannot be read now are an error (NOT_FOUND), not a failure at the first call.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ListenerCredentials(
    absl::string_view address, const ServerTls& tls);

// The credentials of a channel: TLS when enabled, plaintext otherwise.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(const ClientTls& tls);

}  // namespace gavel::service
