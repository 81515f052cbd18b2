#include "service/tls_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain to serve TLS with (re-read when it changes)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA: clients must present a certificate it signed (mutual TLS)");
ABSL_FLAG(bool, insecure, false,
          "allow plaintext on an address that is not loopback (plaintext is the default only "
          "on loopback)");
ABSL_FLAG(int, tls_refresh_s, 10, "how often the TLS files are checked for changes, in seconds");

namespace gavel::service {

ServerTls ServerTlsFromFlags() {
  return ServerTls{.cert_file = absl::GetFlag(FLAGS_tls_cert),
                   .key_file = absl::GetFlag(FLAGS_tls_key),
                   .client_ca_file = absl::GetFlag(FLAGS_tls_client_ca),
                   .insecure = absl::GetFlag(FLAGS_insecure),
                   .refresh_s = absl::GetFlag(FLAGS_tls_refresh_s)};
}

}  // namespace gavel::service
