#pragma once
// TLS for the arena's pages: the same certificate and key files as the arena's gRPC listener
// (--tls_cert, --tls_key), re-read when they change so a rotated certificate is served
// without a restart, as gRPC's file watcher does for the bot port. Each TLS handshake takes
// the pair current at that moment (OpenSSL's certificate callback), so a rotation never
// touches a connection in progress.
#include <openssl/ssl.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"

namespace gavel::arena {

class CertificateReloader {
 public:
  // Reads the pair now: a missing, unreadable or mismatched pair is an error here rather
  // than at the first handshake.
  static absl::StatusOr<std::unique_ptr<CertificateReloader>> Load(std::string cert_file,
                                                                   std::string key_file,
                                                                   std::chrono::seconds refresh);
  ~CertificateReloader();

  // Makes `context` serve the current pair at every handshake (TLS 1.2 at least).
  void Install(SSL_CTX& context);

 private:
  struct Pair;
  CertificateReloader(std::string cert_file, std::string key_file, std::chrono::seconds refresh);
  // The pair in the files' contents, or what is wrong with it.
  absl::StatusOr<std::shared_ptr<const Pair>> Parse(const std::string& cert_pem, const std::string& key_pem) const;
  // The pair to serve, re-read when the files changed and `refresh` has passed since the last
  // look; a new pair that does not load is logged and the old one kept.
  std::shared_ptr<const Pair> Current();
  static int OnHandshake(SSL* ssl, void* self);

  const std::string cert_file_, key_file_;
  const std::chrono::seconds refresh_;
  std::mutex mutex_;
  std::shared_ptr<const Pair> pair_;
  std::string cert_pem_, key_pem_;  // the files' contents the pair was made from
  std::chrono::steady_clock::time_point checked_;
};

}  // namespace gavel::arena
