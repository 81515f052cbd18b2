#include "service/sealing.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "engine/core/status.h"
#include "service/read_file.h"
#include "service/xaes256gcm.h"
#include "spdlog/spdlog.h"

namespace gavel::service {
namespace {

// Token layout (all integers little-endian):
//   version(1) key_id(1) name_length(1) name table_id(8) move_number(4) synthetic(16)
//   ciphertext(state) tag(16)
// The bytes before the ciphertext are the associated data. The 24-byte nonce is
// table_id || synthetic, where synthetic = SipHash-2-4-128 of (header without synthetic,
// state) under its own subkey: the same key, header and state give the same token, and two
// different states share a nonce under one key only if this 128-bit PRF collides. SipHash
// rather than keyed BLAKE2b: only the PRF property is needed, and it costs a tenth.
// Version 1 sealed the whole GameState; version 2 the game's own state message (the game is in
// the header) under XChaCha20-Poly1305; version 3 the same under XAES-256-GCM, two thirds of
// the cipher's time per token with AES instructions (docs/sealed-states.md).
constexpr uint8_t kTokenVersion = 3;
constexpr uint8_t kChaChaTokenVersion = 2;
constexpr size_t kSyntheticSize = 16;
constexpr size_t kTagSize = kXaesTagSize;
constexpr size_t kMaxGameName = 32;
using Nonce24 = XaesNonce;

// Capability layout: version(1) key_id(1) seat(1, 0xFF = owner) tag(16); the tag is
// SipHash-2-4-128 over (version, key_id, seat, table_id) with the capability subkey: a PRF
// built as a MAC for short inputs, 13 ns where HMAC-SHA-512-256 takes 840, compared in
// constant time. Forging one takes 2^128 guesses, each a call to the server.
constexpr uint8_t kCapabilityVersion = 1;
constexpr uint8_t kOwnerSeat = 0xFF;
constexpr size_t kCapabilityHead = 3;
constexpr size_t kCapabilitySize = kCapabilityHead + crypto_shorthash_siphashx24_BYTES;

static_assert(kXaesNonceSize == sizeof(TableId) + kSyntheticSize);
static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == kXaesNonceSize);
static_assert(crypto_aead_xchacha20poly1305_ietf_ABYTES == kTagSize);
static_assert(crypto_shorthash_siphashx24_BYTES == kSyntheticSize);
static_assert(crypto_shorthash_siphashx24_KEYBYTES == 16);

constexpr char kKdfContext[crypto_kdf_CONTEXTBYTES + 1] = "gavelkey";
enum Subkey : uint64_t { kSealSubkey = 1, kNonceSubkey = 2, kCapabilitySubkey = 3 };

void InitSodium() {
  // Idempotent and thread-safe; fails only when the system has no randomness source.
  if (sodium_init() < 0) {
    spdlog::critical("libsodium cannot initialise (no system randomness)");
    std::abort();
  }
}

const uint8_t* Bytes(absl::string_view text) { return reinterpret_cast<const uint8_t*>(text.data()); }

void AppendLittleEndian(uint32_t value, std::string* out) {
  for (int shift = 0; shift < 32; shift += 8) out->push_back(static_cast<char>(value >> shift));
}

uint32_t ReadLittleEndian(const uint8_t* in) {
  return uint32_t{in[0]} | uint32_t{in[1]} << 8 | uint32_t{in[2]} << 16 | uint32_t{in[3]} << 24;
}

// The header up to (without) the synthetic nonce part.
std::string HeaderPrefix(const TokenHeader& header) {
  std::string out;
  out.push_back(static_cast<char>(header.version));
  out.push_back(static_cast<char>(header.key_id));
  out.push_back(static_cast<char>(header.game.size()));
  out.append(header.game);
  out.append(reinterpret_cast<const char*>(header.table.data()), header.table.size());
  AppendLittleEndian(header.move_number, &out);
  return out;
}

// SipHash over `bytes` (the header prefix followed by the state, contiguous).
std::array<uint8_t, kSyntheticSize> SyntheticNonce(const SealingKey& key, absl::string_view bytes) {
  std::array<uint8_t, kSyntheticSize> synthetic;
  crypto_shorthash_siphashx24(synthetic.data(), Bytes(bytes), bytes.size(), key.nonce.data());
  return synthetic;
}

Nonce24 Nonce(const TableId& table, const uint8_t* synthetic) {
  Nonce24 nonce;
  std::copy(table.begin(), table.end(), nonce.begin());
  std::copy(synthetic, synthetic + kSyntheticSize, nonce.begin() + table.size());
  return nonce;
}

// Version 2 tokens (XChaCha20-Poly1305, libsodium's crypto_aead_xchacha20poly1305_ietf) still
// open, so that tokens held during an upgrade stay playable; nothing seals them any more.
bool DecryptVersion2(const std::array<uint8_t, 32>& key, const Nonce24& nonce, const uint8_t* ad,
                     size_t ad_size, const uint8_t* in, size_t size, const uint8_t* tag, uint8_t* out) {
  const bool authentic = crypto_aead_xchacha20poly1305_ietf_decrypt_detached(out, nullptr, in, size, tag, ad,
                                                                             ad_size, nonce.data(), key.data()) == 0;
  if (!authentic) sodium_memzero(out, size);
  return authentic;
}

// Where the parts of a token are; set by ParseToken.
struct TokenLayout {
  TokenHeader header;
  size_t synthetic_at = 0;  // offset of the synthetic nonce part
  size_t ciphertext_at = 0;  // = length of the associated data
};

absl::StatusOr<TokenLayout> ParseToken(absl::string_view token) {
  const auto malformed = [](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("not a sealed-state token: ", what));
  };
  if (token.size() < 3) return malformed("too short");
  const uint8_t* in = Bytes(token);
  TokenLayout layout;
  layout.header.version = in[0];
  if (layout.header.version != kTokenVersion && layout.header.version != kChaChaTokenVersion)
    return malformed(absl::StrCat("unknown format version ", layout.header.version));
  layout.header.key_id = in[1];
  const size_t name_length = in[2];
  if (name_length == 0 || name_length > kMaxGameName) return malformed("bad game name length");
  const size_t table_at = 3 + name_length;
  layout.synthetic_at = table_at + sizeof(TableId) + 4;
  layout.ciphertext_at = layout.synthetic_at + kSyntheticSize;
  if (token.size() < layout.ciphertext_at + kTagSize) return malformed("too short");
  layout.header.game = std::string(token.substr(3, name_length));
  std::copy(in + table_at, in + table_at + sizeof(TableId), layout.header.table.begin());
  layout.header.move_number = ReadLittleEndian(in + table_at + sizeof(TableId));
  return layout;
}

std::string CapabilityMessage(uint8_t key_id, uint8_t seat, const TableId& table) {
  std::string message = {static_cast<char>(kCapabilityVersion), static_cast<char>(key_id),
                         static_cast<char>(seat)};
  message.append(reinterpret_cast<const char*>(table.data()), table.size());
  return message;
}

absl::StatusOr<SealingKey> ParseKeyLine(absl::string_view line, bool* primary) {
  std::vector<absl::string_view> fields = absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
  if (fields.size() < 2 || fields.size() > 3 || (fields.size() == 3 && fields[2] != "primary"))
    return absl::InvalidArgumentError("expected '<id> <key in base64> [primary]'");
  int id = 0;
  if (!absl::SimpleAtoi(fields[0], &id) || id < 1 || id > 255)
    return absl::InvalidArgumentError("the key id must be a number from 1 to 255");
  std::array<uint8_t, 32> master;
  size_t length = 0;
  if (sodium_base642bin(master.data(), master.size(), fields[1].data(), fields[1].size(), nullptr,
                        &length, nullptr, sodium_base64_VARIANT_ORIGINAL) != 0 ||
      length != master.size())
    return absl::InvalidArgumentError(absl::StrCat("key ", id, " is not 32 bytes in base64"));
  SealingKey key;
  key.id = static_cast<uint8_t>(id);
  std::array<uint8_t, 32> seal;
  crypto_kdf_derive_from_key(seal.data(), seal.size(), kSealSubkey, kKdfContext, master.data());
  const absl::Status derived = Xaes256GcmKey::Derive(seal, &key.seal);
  sodium_memzero(seal.data(), seal.size());
  if (!derived.ok()) {
    sodium_memzero(master.data(), master.size());
    return derived;
  }
  crypto_kdf_derive_from_key(key.nonce.data(), key.nonce.size(), kNonceSubkey, kKdfContext, master.data());
  crypto_kdf_derive_from_key(key.capability.data(), key.capability.size(), kCapabilitySubkey,
                             kKdfContext, master.data());
  sodium_memzero(master.data(), master.size());
  *primary = fields.size() == 3;
  return key;
}

}  // namespace

absl::StatusOr<TokenHeader> ReadTokenHeader(absl::string_view token) {
  auto layout = ParseToken(token);
  if (!layout.ok()) return layout.status();
  return layout->header;
}

absl::StatusOr<KeyRing> KeyRing::Parse(absl::string_view text) {
  InitSodium();
  KeyRing ring;
  int primaries = 0;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    bool primary = false;
    auto key = ParseKeyLine(line, &primary);
    if (!key.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("key file line ", line_number, ": ", key.status().message()));
    if (ring.Find(key->id) != nullptr)
      return absl::InvalidArgumentError(absl::StrCat("key file: key id ", key->id, " appears twice"));
    if (primary) {
      ++primaries;
      ring.primary_ = ring.keys_.size();
    }
    ring.keys_.push_back(*key);
  }
  if (primaries != 1)
    return absl::InvalidArgumentError(
        absl::StrCat("key file: exactly one key must be marked primary, found ", primaries));
  return ring;
}

KeyRing::~KeyRing() {
  for (SealingKey& key : keys_) sodium_memzero(&key, sizeof key);
}

std::string KeyRing::NewKeyLine(uint8_t id, bool primary) {
  InitSodium();
  std::array<uint8_t, 32> master;
  crypto_kdf_keygen(master.data());
  char encoded[sodium_base64_ENCODED_LEN(32, sodium_base64_VARIANT_ORIGINAL)];
  sodium_bin2base64(encoded, sizeof encoded, master.data(), master.size(), sodium_base64_VARIANT_ORIGINAL);
  sodium_memzero(master.data(), master.size());
  std::string line = absl::StrCat(id, " ", encoded, primary ? " primary" : "");
  sodium_memzero(encoded, sizeof encoded);
  return line;
}

const SealingKey* KeyRing::Find(uint8_t id) const {
  for (const SealingKey& key : keys_)
    if (key.id == id) return &key;
  return nullptr;
}

std::vector<uint8_t> KeyRing::ids() const {
  std::vector<uint8_t> ids;
  for (const SealingKey& key : keys_) ids.push_back(key.id);
  return ids;
}

Sealer::Sealer(KeyRing keys) : Sealer(std::move(keys), "", "", 0) {}

Sealer::Sealer(KeyRing keys, std::string path, std::string seen, int poll_ms)
    : seen_(std::move(seen)),
      path_(std::move(path)),
      poll_ms_(poll_ms) {
  InitSodium();
  Use(std::move(keys));
  if (!path_.empty() && poll_ms_ > 0) watcher_ = std::thread([this] { Watch(); });
}

void Sealer::Use(KeyRing keys) {
  // Unique across Sealers, so that no two Sealers' tokens share a cache key.
  static std::atomic<uint64_t> versions{0};
  keys.version_ = ++versions;
  keys_.store(std::make_shared<const KeyRing>(std::move(keys)));
}

Sealer::~Sealer() {
  stop_.Notify();
  if (watcher_.joinable()) watcher_.join();
}

absl::StatusOr<std::unique_ptr<Sealer>> Sealer::FromFile(const std::string& path, int poll_ms) {
  auto text = ReadWholeFile(path, "the key file");
  if (!text.ok()) return text.status();
  auto keys = KeyRing::Parse(*text);
  if (!keys.ok()) return keys.status();
  spdlog::info("sealing keys loaded from {}: {} key(s), primary {}", path, keys->ids().size(),
               keys->primary().id);
  return std::unique_ptr<Sealer>(new Sealer(std::move(*keys), path, std::move(*text), poll_ms));
}

// Re-reads the key file when its content changes (a Kubernetes Secret volume replaces the
// file through a symlink swap, so content, not mtime, is what is compared).
void Sealer::Watch() {
  while (!stop_.WaitForNotificationWithTimeout(absl::Milliseconds(poll_ms_))) ReloadIfChanged();
}

bool Sealer::ReloadIfChanged() {
  auto text = ReadWholeFile(path_, "the key file");
  absl::MutexLock lock(&reload_mutex_);
  if (!text.ok() || *text == seen_) return false;
  seen_ = *text;
  auto keys = KeyRing::Parse(*text);
  if (!keys.ok()) {
    spdlog::error("the changed key file {} is not used: {}", path_, std::string(keys.status().message()));
    return false;
  }
  spdlog::info("sealing keys reloaded from {}: {} key(s), primary {}", path_, keys->ids().size(),
               keys->primary().id);
  Use(std::move(*keys));
  return true;
}

bool Sealer::WaitForKeys(const std::vector<uint8_t>& ids, absl::Duration timeout) const {
  const auto in_use = [this, &ids] { return keys()->ids() == ids; };
  absl::MutexLock lock(&reload_mutex_);
  return reload_mutex_.AwaitWithTimeout(absl::Condition(&in_use), timeout);
}

TableId Sealer::NewTable() {
  InitSodium();
  TableId table;
  randombytes_buf(table.data(), table.size());
  return table;
}

absl::StatusOr<std::string> Sealer::Seal(const TokenHeader& header, absl::string_view state_bytes,
                                         uint64_t* key_ring) const {
  const auto ring = keys();
  if (key_ring != nullptr) *key_ring = ring->version();
  const SealingKey& key = ring->primary();
  TokenHeader sealed_header = header;
  sealed_header.version = kTokenVersion;
  sealed_header.key_id = key.id;
  // One buffer, no copies beside it: the nonce is hashed over prefix + state where they lie,
  // then the state moves up past the nonce's place and is encrypted in place.
  std::string token = HeaderPrefix(sealed_header);
  const size_t prefix_size = token.size();
  const size_t ad_size = prefix_size + kSyntheticSize;
  token.reserve(ad_size + state_bytes.size() + kTagSize);
  token.append(state_bytes.data(), state_bytes.size());
  const auto synthetic = SyntheticNonce(key, token);
  token.resize(ad_size + state_bytes.size() + kTagSize);
  uint8_t* bytes = reinterpret_cast<uint8_t*>(token.data());
  std::memmove(bytes + ad_size, bytes + prefix_size, state_bytes.size());
  std::copy(synthetic.begin(), synthetic.end(), bytes + prefix_size);
  const auto nonce = Nonce(header.table, synthetic.data());
  GAVEL_RETURN_IF_ERROR(Xaes256GcmSeal(key.seal, nonce, bytes, ad_size, bytes + ad_size, state_bytes.size(),
                                       bytes + ad_size + state_bytes.size()));
  return token;
}

absl::StatusOr<Sealer::Opened> Sealer::Open(absl::string_view token) const {
  Opened opened;
  GAVEL_ASSIGN_OR_RETURN(opened.header, Open(token, &opened.state_bytes));
  return opened;
}

absl::StatusOr<TokenHeader> Sealer::Open(absl::string_view token, std::string* state_bytes) const {
  auto layout = ParseToken(token);
  if (!layout.ok()) return layout.status();
  const auto ring = keys();
  const SealingKey* key = ring->Find(layout->header.key_id);
  // An unknown key still costs one decryption, so that no kind of wrong token answers
  // faster than another.
  const SealingKey& used = key != nullptr ? *key : ring->primary();
  const uint8_t* in = Bytes(token);
  const auto nonce = Nonce(layout->header.table, in + layout->synthetic_at);
  const size_t state_size = token.size() - layout->ciphertext_at - kTagSize;
  state_bytes->resize(state_size);
  const uint8_t* ciphertext = in + layout->ciphertext_at;
  uint8_t* out = reinterpret_cast<uint8_t*>(state_bytes->data());
  const bool authentic =
      layout->header.version == kTokenVersion
          ? Xaes256GcmOpen(used.seal, nonce, in, layout->ciphertext_at, ciphertext, state_size,
                           ciphertext + state_size, out)
          : DecryptVersion2(used.seal.key, nonce, in, layout->ciphertext_at, ciphertext, state_size,
                            ciphertext + state_size, out);
  if (key == nullptr)
    return absl::UnauthenticatedError(absl::StrCat(
        "the token is sealed under key ", layout->header.key_id,
        ", which this server does not hold (retired, or from another deployment)"));
  if (!authentic)
    return absl::UnauthenticatedError("the token does not authenticate (modified, truncated or foreign)");
  return layout->header;
}

std::string Sealer::Capability(const TableId& table, const Access& access) const {
  const auto ring = keys();
  const SealingKey& key = ring->primary();
  std::string capability =
      CapabilityMessage(key.id, access.owner ? kOwnerSeat : static_cast<uint8_t>(access.seat), table);
  std::array<uint8_t, crypto_shorthash_siphashx24_BYTES> tag;
  crypto_shorthash_siphashx24(tag.data(), Bytes(capability), capability.size(), key.capability.data());
  capability.resize(kCapabilityHead);
  capability.append(reinterpret_cast<const char*>(tag.data()), tag.size());
  return capability;
}

absl::StatusOr<Access> Sealer::Verify(absl::string_view capability, const TableId& table) const {
  if (capability.size() != kCapabilitySize || Bytes(capability)[0] != kCapabilityVersion)
    return absl::InvalidArgumentError("not a seat capability of this server's format");
  const uint8_t key_id = Bytes(capability)[1];
  const uint8_t seat = Bytes(capability)[2];
  const auto ring = keys();
  const SealingKey* key = ring->Find(key_id);
  const SealingKey& used = key != nullptr ? *key : ring->primary();
  const std::string message = CapabilityMessage(key_id, seat, table);
  std::array<uint8_t, crypto_shorthash_siphashx24_BYTES> tag;
  crypto_shorthash_siphashx24(tag.data(), Bytes(message), message.size(), used.capability.data());
  const bool authentic = crypto_verify_16(tag.data(), Bytes(capability) + kCapabilityHead) == 0;
  if (key == nullptr)
    return absl::UnauthenticatedError(absl::StrCat(
        "the capability is under key ", key_id, ", which this server does not hold (retired)"));
  if (!authentic)
    return absl::UnauthenticatedError("the capability is not valid for this table");
  if (seat == kOwnerSeat) return Access{.owner = true};
  return Access{.owner = false, .seat = seat};
}

std::vector<uint8_t> Sealer::KeyIds() const { return keys()->ids(); }

}  // namespace gavel::service
