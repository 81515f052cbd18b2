#pragma once
// XAES-256-GCM (c2sp.org/XAES-256-GCM): AES-256-GCM with a 192-bit nonce. A NIST SP 800-108r1
// KDF (CMAC-AES-256, one block per half) derives a per-message AES-256-GCM key from the key
// and the nonce's first 12 bytes; the nonce's last 12 bytes are GCM's nonce. The extended
// nonce is what lets sealed tokens use a table id and a 128-bit synthetic nonce without a
// bound on how many tokens one key may seal. AES and GHASH come from OpenSSL 3 (AES-NI and
// carry-less multiplication where the CPU has them).
#include <array>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace gavel::service {

// A key with its CMAC subkey K1 precomputed (steps 1 and 2 of the KDF depend on the key
// alone). Plain bytes, so that the owner can wipe it.
struct Xaes256GcmKey {
  std::array<uint8_t, 32> key{};
  std::array<uint8_t, 16> k1{};
  // Unique per Derive call: names the key to a thread's keyed block cipher without comparing
  // key bytes.
  uint64_t serial = 0;
  // INTERNAL only when OpenSSL has no AES-256.
  static absl::Status Derive(const std::array<uint8_t, 32>& key, Xaes256GcmKey* out);
};

inline constexpr size_t kXaesNonceSize = 24;
inline constexpr size_t kXaesTagSize = 16;
using XaesNonce = std::array<uint8_t, kXaesNonceSize>;

// Encrypts `size` bytes at `text` in place, authenticating `ad` too, and writes the tag.
absl::Status Xaes256GcmSeal(const Xaes256GcmKey& key, const XaesNonce& nonce, const uint8_t* ad,
                            size_t ad_size, uint8_t* text, size_t size, uint8_t* tag);

// Decrypts `size` bytes at `in` to `out` if they and `ad` authenticate with `tag`
// (compared in constant time); otherwise false, with `out` wiped.
bool Xaes256GcmOpen(const Xaes256GcmKey& key, const XaesNonce& nonce, const uint8_t* ad, size_t ad_size,
                    const uint8_t* in, size_t size, const uint8_t* tag, uint8_t* out);

}  // namespace gavel::service
