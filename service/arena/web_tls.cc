#include "service/arena/web_tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>


#include "absl/strings/str_cat.h"
#include "service/read_file.h"
#include "spdlog/spdlog.h"

namespace gavel::arena {

struct CertificateReloader::Pair {
  X509* cert = nullptr;
  EVP_PKEY* key = nullptr;
  STACK_OF(X509)* chain = nullptr;  // the intermediates after the leaf in the cert file
  ~Pair() {
    X509_free(cert);
    EVP_PKEY_free(key);
    sk_X509_pop_free(chain, X509_free);
  }
};

namespace {

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

Bio MemoryBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CertificateReloader>> CertificateReloader::Load(
    std::string cert_file, std::string key_file, std::chrono::seconds refresh) {
  std::unique_ptr<CertificateReloader> reloader(
      new CertificateReloader(std::move(cert_file), std::move(key_file), refresh));
  auto cert_pem = service::ReadWholeFile(reloader->cert_file_, "the certificate file");
  if (!cert_pem.ok()) return cert_pem.status();
  auto key_pem = service::ReadWholeFile(reloader->key_file_, "the key file");
  if (!key_pem.ok()) return key_pem.status();
  auto pair = reloader->Parse(*cert_pem, *key_pem);
  if (!pair.ok()) return pair.status();
  reloader->pair_ = *std::move(pair);
  reloader->cert_pem_ = *std::move(cert_pem);
  reloader->key_pem_ = *std::move(key_pem);
  reloader->checked_ = std::chrono::steady_clock::now();
  return reloader;
}

absl::StatusOr<std::shared_ptr<const CertificateReloader::Pair>> CertificateReloader::Parse(
    const std::string& cert_pem, const std::string& key_pem) const {
  auto pair = std::make_shared<Pair>();
  Bio cert_bio = MemoryBio(cert_pem);
  pair->cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  if (pair->cert == nullptr)
    return absl::InvalidArgumentError(absl::StrCat(cert_file_, " holds no PEM certificate"));
  pair->chain = sk_X509_new_null();
  while (X509* next = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr))
    sk_X509_push(pair->chain, next);
  ERR_clear_error();  // the end of the file reads as an error
  Bio key_bio = MemoryBio(key_pem);
  pair->key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  if (pair->key == nullptr)
    return absl::InvalidArgumentError(absl::StrCat(key_file_, " holds no PEM private key"));
  if (X509_check_private_key(pair->cert, pair->key) != 1)
    return absl::InvalidArgumentError(
        absl::StrCat(key_file_, " is not the key of ", cert_file_, ": ", OpenSslError()));
  return pair;
}

CertificateReloader::CertificateReloader(std::string cert_file, std::string key_file,
                                         std::chrono::seconds refresh)
    : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)), refresh_(refresh) {}

CertificateReloader::~CertificateReloader() = default;

std::shared_ptr<const CertificateReloader::Pair> CertificateReloader::Current() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now - checked_ < refresh_) return pair_;
  checked_ = now;
  auto cert_pem = service::ReadWholeFile(cert_file_, "the certificate file");
  auto key_pem = service::ReadWholeFile(key_file_, "the key file");
  if (!cert_pem.ok() || !key_pem.ok()) {
    spdlog::warn("pages' TLS: {}; serving the previous certificate",
                 (cert_pem.ok() ? key_pem : cert_pem).status().ToString());
    return pair_;
  }
  if (*cert_pem == cert_pem_ && *key_pem == key_pem_) return pair_;
  auto reloaded = Parse(*cert_pem, *key_pem);
  if (!reloaded.ok()) {  // e.g. the certificate written before its key: try again later
    spdlog::warn("pages' TLS: {}; serving the previous certificate", reloaded.status().ToString());
    return pair_;
  }
  pair_ = *std::move(reloaded);
  cert_pem_ = *std::move(cert_pem);
  key_pem_ = *std::move(key_pem);
  spdlog::info("pages' TLS: serving the new certificate from {}", cert_file_);
  return pair_;
}

int CertificateReloader::OnHandshake(SSL* ssl, void* self) {
  const std::shared_ptr<const Pair> pair = static_cast<CertificateReloader*>(self)->Current();
  return SSL_use_cert_and_key(ssl, pair->cert, pair->key, pair->chain, 1) == 1 ? 1 : 0;
}

void CertificateReloader::Install(SSL_CTX& context) {
  SSL_CTX_set_min_proto_version(&context, TLS1_2_VERSION);
  SSL_CTX_set_cert_cb(&context, &CertificateReloader::OnHandshake, this);
}

}  // namespace gavel::arena
