#include "service/tls.h"

#include <arpa/inet.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/core/status.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace gavel::service {
namespace {

using grpc::experimental::FileWatcherCertificateProvider;

absl::Status Readable(const std::string& path, absl::string_view what) {
  if (std::ifstream(path).good()) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat("cannot read the ", what, " file ", path));
}

}  // namespace

absl::string_view HostOf(absl::string_view address) {
  if (absl::StartsWith(address, "[")) {
    const size_t end = address.find(']');
    return end == absl::string_view::npos ? address : address.substr(1, end - 1);
  }
  const size_t colon = address.rfind(':');
  return colon == absl::string_view::npos ? address : address.substr(0, colon);
}

bool IsLoopback(absl::string_view address) {
  in6_addr bare{};  // a v6 address without brackets and port, e.g. "::1"
  if (inet_pton(AF_INET6, std::string(address).c_str(), &bare) == 1) return IN6_IS_ADDR_LOOPBACK(&bare);
  const std::string host(HostOf(address));
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ListenerCredentials(
    absl::string_view address, const ServerTls& tls) {
  if (tls.cert_file.empty() != tls.key_file.empty())
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together");
  if (tls.cert_file.empty()) {
    if (!tls.client_ca_file.empty())
      return absl::InvalidArgumentError("--tls_client_ca needs --tls_cert and --tls_key");
    if (!IsLoopback(address) && !tls.insecure)
      return absl::FailedPreconditionError(absl::StrCat(
          "listening on ", address, " without TLS: pass --tls_cert and --tls_key, or --insecure "
          "to accept plaintext from the network"));
    return grpc::InsecureServerCredentials();
  }
  GAVEL_RETURN_IF_ERROR(Readable(tls.cert_file, "--tls_cert"));
  GAVEL_RETURN_IF_ERROR(Readable(tls.key_file, "--tls_key"));
  if (!tls.client_ca_file.empty()) GAVEL_RETURN_IF_ERROR(Readable(tls.client_ca_file, "--tls_client_ca"));
  auto provider = std::make_shared<FileWatcherCertificateProvider>(
      tls.key_file, tls.cert_file, tls.client_ca_file, static_cast<unsigned>(tls.refresh_s));
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (tls.client_ca_file.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(const ClientTls& tls) {
  if (!tls.enabled && tls.ca_file.empty()) {
    if (!tls.cert_file.empty()) return absl::InvalidArgumentError("a client certificate needs TLS");
    return grpc::InsecureChannelCredentials();
  }
  if (tls.cert_file.empty() != tls.key_file.empty())
    return absl::InvalidArgumentError("the client certificate and key go together");
  for (const auto& [path, what] :
       {std::pair{tls.ca_file, "CA"}, {tls.cert_file, "client certificate"}, {tls.key_file, "client key"}})
    if (!path.empty()) GAVEL_RETURN_IF_ERROR(Readable(path, what));
  grpc::experimental::TlsChannelCredentialsOptions options;
  if (!tls.ca_file.empty() || !tls.cert_file.empty()) {
    options.set_certificate_provider(std::make_shared<FileWatcherCertificateProvider>(
        tls.key_file, tls.cert_file, tls.ca_file, static_cast<unsigned>(tls.refresh_s)));
    if (!tls.ca_file.empty()) options.watch_root_certs();  // otherwise the system's roots
    if (!tls.cert_file.empty()) options.watch_identity_key_cert_pairs();
  }
  return grpc::experimental::TlsCredentials(options);
}

}  // namespace gavel::service
