#pragma once
// Sealed states and seat capabilities (docs/api.md, "Sealed states").
//
// A token is a table's full state under authenticated encryption (XAES-256-GCM, with AES from
// OpenSSL), with a short header in the clear that names the format version,
// the key, the game, the table and the move number. The whole header is the associated
// data: whoever holds a token can read it, nobody without the key can change it or read the
// state.
// A capability is a MAC over (key id, table id, seat): it lets its holder act as one seat of
// one table, or as the table's owner.
//
// Keys come from a key file that holds several keys with small ids, one primary: new tokens
// and capabilities use the primary, any key in the file opens and verifies. The file is
// re-read when it changes, so a key is rotated by adding the new key, making it primary,
// and removing the old one once no token under it is needed any more.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "engine/core/types.h"
#include "service/xaes256gcm.h"

namespace gavel::service {

using TableId = std::array<uint8_t, 8>;

// What a token says in the clear (authenticated once the token is opened).
struct TokenHeader {
  uint8_t version = 0;
  uint8_t key_id = 0;
  std::string game;
  TableId table{};
  uint32_t move_number = 0;  // moves applied since NewGame
};

// Reads a token's header without any key: what a match service that stores tokens needs to
// accept only the next move number of a table. Not authenticated: the server checks it.
absl::StatusOr<TokenHeader> ReadTokenHeader(absl::string_view token);

// Whom a capability lets its holder act for.
struct Access {
  bool owner = false;  // everything, as with the full state
  Seat seat = kNoSeat;  // otherwise this one seat
};

// One key of the key file and the subkeys derived from it for each use.
struct SealingKey {
  uint8_t id = 0;
  Xaes256GcmKey seal;                    // the tokens' cipher
  std::array<uint8_t, 16> nonce{};       // SipHash key of the synthetic nonce
  std::array<uint8_t, 16> capability{};  // SipHash key of capabilities
};

// The keys of one version of the key file.
class KeyRing {
 public:
  // The key file: one key a line, "<id> <32 bytes in base64> [primary]", ids 1 to 255,
  // exactly one primary; '#' starts a comment. Errors never quote key material.
  static absl::StatusOr<KeyRing> Parse(absl::string_view text);
  // A new random key in the key file's line format (for `gavel-engine keygen`).
  static std::string NewKeyLine(uint8_t id, bool primary);

  KeyRing() = default;
  KeyRing(KeyRing&&) = default;
  KeyRing& operator=(KeyRing&&) = default;
  ~KeyRing();  // wipes the keys

  const SealingKey& primary() const { return keys_[primary_]; }
  const SealingKey* Find(uint8_t id) const;
  std::vector<uint8_t> ids() const;
  // Which key ring in use this is: a number no other ring a Sealer of this process used had.
  uint64_t version() const { return version_; }

 private:
  friend class Sealer;
  std::vector<SealingKey> keys_;
  size_t primary_ = 0;
  uint64_t version_ = 0;
};

class Sealer {
 public:
  // Watches `path` (checked every `poll_ms`; 0: only by ReloadIfChanged); fails if the file
  // cannot be read or parsed now. A later change that does not parse keeps the keys in use
  // and is logged.
  static absl::StatusOr<std::unique_ptr<Sealer>> FromFile(const std::string& path, int poll_ms = 1000);
  // Fixed keys, for tests and tools.
  explicit Sealer(KeyRing keys);
  ~Sealer();
  Sealer(const Sealer&) = delete;
  Sealer& operator=(const Sealer&) = delete;

  // A new random table id.
  static TableId NewTable();
  // The token of `state_bytes` under the primary key. Deterministic for a given key,
  // header and state: the nonce is derived from them (synthetic nonce). Fails only for a
  // state of 2 GB or more, or an OpenSSL without AES-256-GCM. With `key_ring`, also says
  // which key ring sealed it (KeyRing::version).
  absl::StatusOr<std::string> Seal(const TokenHeader& header, absl::string_view state_bytes,
                                   uint64_t* key_ring = nullptr) const;
  // The header of `token`, with its state bytes written to `*state_bytes` (resized; wiped
  // when the token does not authenticate). INVALID_ARGUMENT for a token that is not of the
  // token format; UNAUTHENTICATED for one that does not authenticate (modified, truncated,
  // foreign) or whose key this server does not hold (retired), which the message says.
  absl::StatusOr<TokenHeader> Open(absl::string_view token, std::string* state_bytes) const;
  struct Opened {
    TokenHeader header;
    std::string state_bytes;
  };
  absl::StatusOr<Opened> Open(absl::string_view token) const;

  // The capability for `access` to `table`, under the primary key.
  std::string Capability(const TableId& table, const Access& access) const;
  // Whom `capability` lets act at `table`: UNAUTHENTICATED when it is not a capability of
  // this table under a key this server holds.
  absl::StatusOr<Access> Verify(absl::string_view capability, const TableId& table) const;

  // The key ids in use now.
  std::vector<uint8_t> KeyIds() const;
  // The version of the key ring in use now: a token sealed under another version may be
  // under a key this server no longer holds.
  uint64_t KeyRingVersion() const { return keys()->version(); }
  // Re-reads the key file; true when it changed and its new keys are in use.
  bool ReloadIfChanged();
  // Waits until the keys in use have exactly `ids`; false after `timeout`.
  bool WaitForKeys(const std::vector<uint8_t>& ids, absl::Duration timeout) const;

 private:
  Sealer(KeyRing keys, std::string path, std::string seen, int poll_ms);
  std::shared_ptr<const KeyRing> keys() const { return keys_.load(); }
  void Watch();
  void Use(KeyRing keys);

  std::atomic<std::shared_ptr<const KeyRing>> keys_;
  mutable absl::Mutex reload_mutex_;  // serialises reloads; WaitForKeys waits on it
  std::string seen_ ABSL_GUARDED_BY(reload_mutex_);  // the key file's content in use
  std::string path_;
  int poll_ms_ = 0;
  absl::Notification stop_;
  std::thread watcher_;
};

}  // namespace gavel::service
