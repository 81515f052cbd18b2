#pragma once
// The TLS flags the servers share (gavel-engine, gavel-arena), so that every listener is
// configured the same way:
//   --tls_cert, --tls_key       the listener's certificate chain and key (PEM), re-read on change
//   --tls_client_ca             require client certificates signed by this CA (mutual TLS)
//   --insecure                  allow plaintext on an address that is not loopback
//   --tls_refresh_s             how often the files are checked for changes
#include "service/tls.h"

namespace gavel::service {

ServerTls ServerTlsFromFlags();

}  // namespace gavel::service
