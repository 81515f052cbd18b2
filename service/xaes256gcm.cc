#include "service/xaes256gcm.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <atomic>
#include <limits>
#include <memory>

namespace gavel::service {
namespace {

struct CipherContextFree {
  void operator()(EVP_CIPHER_CTX* context) const { EVP_CIPHER_CTX_free(context); }
};
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, CipherContextFree>;

enum class Use { kBlock, kSeal, kOpen };

// One context per thread and use, bound to its cipher once: re-keying a bound context costs
// no allocation and no provider lookup.
EVP_CIPHER_CTX* ThreadContext(Use use) {
  static EVP_CIPHER* const block = EVP_CIPHER_fetch(nullptr, "AES-256-ECB", nullptr);
  static EVP_CIPHER* const gcm = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
  thread_local CipherContext contexts[3];
  CipherContext& context = contexts[static_cast<int>(use)];
  if (context != nullptr) return context.get();
  EVP_CIPHER* const cipher = use == Use::kBlock ? block : gcm;
  if (cipher == nullptr) return nullptr;
  context.reset(EVP_CIPHER_CTX_new());
  if (context == nullptr) return nullptr;
  const int encrypt = use == Use::kOpen ? 0 : 1;
  if (EVP_CipherInit_ex2(context.get(), cipher, nullptr, nullptr, encrypt, nullptr) != 1 ||
      (use == Use::kBlock && EVP_CIPHER_CTX_set_padding(context.get(), 0) != 1))
    context.reset();
  return context.get();
}

// The serial of the key the thread's block cipher context holds (0: none or a raw key).
thread_local uint64_t block_keyed_with = 0;

// AES-256 of `blocks` 16-byte blocks under `key` (ECB: each block on its own, as the KDF
// needs), re-keying the thread's context.
bool EncryptBlocks(const std::array<uint8_t, 32>& key, const uint8_t* in, int blocks, uint8_t* out) {
  block_keyed_with = 0;
  EVP_CIPHER_CTX* context = ThreadContext(Use::kBlock);
  int length = 0;
  return context != nullptr && EVP_EncryptInit_ex2(context, nullptr, key.data(), nullptr, nullptr) == 1 &&
         EVP_EncryptUpdate(context, out, &length, in, 16 * blocks) == 1 && length == 16 * blocks;
}

// The same under a derived key: the thread's context stays keyed with the last key it used
// (sealing uses the primary key nearly always), which saves the key schedule and OpenSSL's
// re-initialisation, 70 ns per use.
bool EncryptBlocks(const Xaes256GcmKey& key, const uint8_t* in, int blocks, uint8_t* out) {
  if (block_keyed_with != key.serial) {
    if (!EncryptBlocks(key.key, in, blocks, out)) return false;
    block_keyed_with = key.serial;
    return true;
  }
  EVP_CIPHER_CTX* context = ThreadContext(Use::kBlock);
  int length = 0;
  return EVP_EncryptUpdate(context, out, &length, in, 16 * blocks) == 1 && length == 16 * blocks;
}

// The per-message key Kx (steps 3 to 5 of the KDF); wiped by the destructor.
struct MessageKey {
  std::array<uint8_t, 32> bytes{};
  bool ok = false;
  MessageKey(const Xaes256GcmKey& key, const XaesNonce& nonce) {
    std::array<uint8_t, 32> inputs{0x00, 0x01, 0x58, 0x00};  // M1 || M2: counter, label 'X'
    inputs[17] = 0x02;
    inputs[18] = 0x58;
    for (int i = 0; i < 12; ++i) inputs[4 + i] = inputs[20 + i] = nonce[i];
    for (int i = 0; i < 16; ++i) {
      inputs[i] ^= key.k1[i];
      inputs[16 + i] ^= key.k1[i];
    }
    ok = EncryptBlocks(key, inputs.data(), 2, bytes.data());
    OPENSSL_cleanse(inputs.data(), inputs.size());
  }
  ~MessageKey() { OPENSSL_cleanse(bytes.data(), bytes.size()); }
};

bool FitsInt(size_t size) { return size <= static_cast<size_t>(std::numeric_limits<int>::max()); }

}  // namespace

absl::Status Xaes256GcmKey::Derive(const std::array<uint8_t, 32>& key, Xaes256GcmKey* out) {
  std::array<uint8_t, 16> l{};  // L = AES-256(K, 0^128)
  if (!EncryptBlocks(key, l.data(), 1, l.data())) return absl::InternalError("OpenSSL has no AES-256");
  static std::atomic<uint64_t> serials{0};
  out->serial = ++serials;
  out->key = key;
  for (int i = 0; i < 15; ++i) out->k1[i] = static_cast<uint8_t>(l[i] << 1 | l[i + 1] >> 7);
  out->k1[15] = static_cast<uint8_t>(l[15] << 1 ^ ((l[0] & 0x80) != 0 ? 0x87 : 0));
  OPENSSL_cleanse(l.data(), l.size());
  return absl::OkStatus();
}

absl::Status Xaes256GcmSeal(const Xaes256GcmKey& key, const XaesNonce& nonce, const uint8_t* ad,
                            size_t ad_size, uint8_t* text, size_t size, uint8_t* tag) {
  if (!FitsInt(ad_size) || !FitsInt(size)) return absl::InvalidArgumentError("the message is too large to seal");
  EVP_CIPHER_CTX* context = ThreadContext(Use::kSeal);
  const MessageKey message_key(key, nonce);
  if (context == nullptr || !message_key.ok) return absl::InternalError("OpenSSL has no AES-256-GCM");
  int length = 0;
  const bool done =
      EVP_EncryptInit_ex2(context, nullptr, message_key.bytes.data(), nonce.data() + 12, nullptr) == 1 &&
      EVP_EncryptUpdate(context, nullptr, &length, ad, static_cast<int>(ad_size)) == 1 &&
      EVP_EncryptUpdate(context, text, &length, text, static_cast<int>(size)) == 1 &&
      EVP_EncryptFinal_ex(context, text + length, &length) == 1 &&
      EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(kXaesTagSize), tag) == 1;
  return done ? absl::OkStatus() : absl::InternalError("OpenSSL could not encrypt");
}

bool Xaes256GcmOpen(const Xaes256GcmKey& key, const XaesNonce& nonce, const uint8_t* ad, size_t ad_size,
                    const uint8_t* in, size_t size, const uint8_t* tag, uint8_t* out) {
  EVP_CIPHER_CTX* context = ThreadContext(Use::kOpen);
  const MessageKey message_key(key, nonce);
  int length = 0;
  const bool authentic =
      context != nullptr && message_key.ok && FitsInt(ad_size) && FitsInt(size) &&
      EVP_DecryptInit_ex2(context, nullptr, message_key.bytes.data(), nonce.data() + 12, nullptr) == 1 &&
      EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(kXaesTagSize),
                          const_cast<uint8_t*>(tag)) == 1 &&
      EVP_DecryptUpdate(context, nullptr, &length, ad, static_cast<int>(ad_size)) == 1 &&
      EVP_DecryptUpdate(context, out, &length, in, static_cast<int>(size)) == 1 &&
      EVP_DecryptFinal_ex(context, out + length, &length) == 1;
  if (!authentic) OPENSSL_cleanse(out, size);
  return authentic;
}

}  // namespace gavel::service
