#pragma once
// Bot accounts: a bot proves that it owns its name with a bearer token, sent as call
// metadata (`authorization: Bearer <token>`) on Arena.Play. An account owns exactly one bot
// name, and with it that bot's results, strikes and ratings. The store keeps only a hash of
// the current token; `gavel-arena accounts` adds, lists, revokes and rotates them.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "service/arena/store.h"

namespace gavel::arena {

// 1-64 characters of A-Z a-z 0-9 _ . -
bool ValidBotName(absl::string_view name);

// A new token: "gavel_" and 32 random bytes in unpadded base64url (256 bits from the
// operating system's generator).
std::string NewToken();

// What the store keeps of a token: its BLAKE2b-256 hash. A token holds 256 random bits, so a
// fast hash without salt is enough (no dictionary reaches it, unlike a password), and a
// stolen store gives no usable token.
std::string HashToken(absl::string_view token);

// The token of an `authorization` metadata value ("Bearer <token>"), or empty.
absl::string_view BearerToken(absl::string_view authorization);

class AccountBook {
 public:
  explicit AccountBook(Store* store) : store_(store) {}

  // A new account for the bot name `name`; returns its token (shown once, never stored).
  absl::StatusOr<std::string> Add(const std::string& name);
  // A new token for `name`; the old one stops working at once. Also lifts a revocation.
  absl::StatusOr<std::string> Rotate(const std::string& name);
  absl::Status Revoke(const std::string& name);
  // The account `name` with the token `token`, created if needed (a revocation stays).
  absl::Status Ensure(const std::string& name, absl::string_view token);
  // Ensure() for every file in `dir` (a mounted Secret): the file's name is the bot's name,
  // its content the token. Hidden files (a Secret volume's bookkeeping) are skipped.
  absl::Status EnsureFromDirectory(const std::string& dir);
  absl::StatusOr<std::vector<Account>> List() { return store_->Accounts(); }

  // The bot name whose current token `token` is; UNAUTHENTICATED for an unknown, revoked
  // or rotated-away token.
  absl::StatusOr<std::string> Authenticate(absl::string_view token);
  // Whether `token_hash` is still the current token of the active account `name` (false
  // once it was revoked or rotated).
  absl::StatusOr<bool> StillValid(const std::string& name, const std::string& token_hash);
  // Whether the bot name belongs to an account (a revoked one too: its name and its results
  // stay its own).
  absl::StatusOr<bool> Owned(const std::string& name);

 private:
  Store* store_;
};

// A token bucket: `burst` tokens, refilled at `per_second`.
class TokenBucket {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  TokenBucket(double per_second, double burst, TimePoint now)
      : per_second_(per_second), burst_(burst), tokens_(burst), last_(now) {}
  // Takes one token; false (and nothing taken) when the bucket is empty.
  bool Take(TimePoint now);
  // Whether at least one token is left (without taking it).
  bool HasToken(TimePoint now);
  // Whether the bucket has refilled completely: forgetting it changes nothing.
  bool Full(TimePoint now);

 private:
  void Refill(TimePoint now);
  double per_second_, burst_, tokens_;
  TimePoint last_;
};

// Failed authentications per peer address, so a token cannot be guessed by brute force:
// each address may fail `burst` times, then once per 1/`per_second` seconds. Memory is
// bounded: at most `max_peers` addresses are remembered; addresses whose allowance has
// refilled are forgotten first, and when every slot is held by a failing address, new
// addresses are throttled too (they are then most likely part of the same attack).
class FailureThrottle {
 public:
  struct Options {
    double per_second = 0.2;
    double burst = 5;
    size_t max_peers = 10000;
  };
  using Clock = std::function<TokenBucket::TimePoint()>;
  explicit FailureThrottle(Options options, Clock clock = std::chrono::steady_clock::now)
      : options_(options), clock_(std::move(clock)) {}

  // Whether `peer` may try now.
  bool Allowed(const std::string& peer);
  // Counts a failed attempt of `peer`.
  void Failed(const std::string& peer);

 private:
  const Options options_;
  const Clock clock_;
  absl::Mutex mutex_;
  absl::flat_hash_map<std::string, TokenBucket> peers_ ABSL_GUARDED_BY(mutex_);
};

// The address of a gRPC peer ("ipv4:10.0.0.7:51234" -> "ipv4:10.0.0.7"): the port changes
// with every connection, the address does not.
std::string PeerAddress(absl::string_view peer);

}  // namespace gavel::arena
