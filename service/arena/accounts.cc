#include "service/arena/accounts.h"

#include <sodium.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/core/status.h"

namespace gavel::arena {
namespace {

constexpr char kTokenPrefix[] = "gavel_";
constexpr size_t kTokenBytes = 32;

}  // namespace

bool ValidBotName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

std::string NewToken() {
  if (sodium_init() < 0) std::abort();  // no randomness: nothing safe can be issued
  unsigned char bytes[kTokenBytes];
  randombytes_buf(bytes, sizeof bytes);
  constexpr int kVariant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string text(sodium_base64_ENCODED_LEN(kTokenBytes, kVariant), '\0');
  sodium_bin2base64(text.data(), text.size(), bytes, sizeof bytes, kVariant);
  sodium_memzero(bytes, sizeof bytes);
  text.resize(text.find('\0'));
  return absl::StrCat(kTokenPrefix, text);
}

std::string HashToken(absl::string_view token) {
  std::string hash(crypto_generichash_BYTES, '\0');
  crypto_generichash(reinterpret_cast<unsigned char*>(hash.data()), hash.size(),
                     reinterpret_cast<const unsigned char*>(token.data()), token.size(), nullptr, 0);
  return hash;
}

absl::string_view BearerToken(absl::string_view authorization) {
  constexpr absl::string_view kScheme = "Bearer ";
  if (authorization.size() <= kScheme.size() ||
      !absl::EqualsIgnoreCase(authorization.substr(0, kScheme.size()), kScheme))
    return {};
  return authorization.substr(kScheme.size());
}

absl::StatusOr<std::string> AccountBook::Add(const std::string& name) {
  if (!ValidBotName(name))
    return absl::InvalidArgumentError("a bot name is 1-64 characters of A-Z a-z 0-9 _ . -");
  std::string token = NewToken();
  GAVEL_RETURN_IF_ERROR(store_->AddAccount(name, HashToken(token)));
  return token;
}

absl::StatusOr<std::string> AccountBook::Rotate(const std::string& name) {
  std::string token = NewToken();
  GAVEL_RETURN_IF_ERROR(store_->SetAccountToken(name, HashToken(token)));
  return token;
}

absl::Status AccountBook::Ensure(const std::string& name, absl::string_view token) {
  if (!ValidBotName(name)) return absl::InvalidArgumentError("not a bot name: " + name);
  if (token.size() < 16 || token.size() > 256)
    return absl::InvalidArgumentError("the token of " + name + " must be 16-256 characters");
  return store_->PutAccount(name, HashToken(token));
}

absl::Status AccountBook::EnsureFromDirectory(const std::string& dir) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || !entry.is_regular_file()) continue;
    std::ifstream file(entry.path());
    std::string token;
    file >> token;
    GAVEL_RETURN_IF_ERROR(Ensure(name, token));
  }
  if (error) return absl::NotFoundError(absl::StrCat("cannot read ", dir, ": ", error.message()));
  return absl::OkStatus();
}

absl::Status AccountBook::Revoke(const std::string& name) { return store_->RevokeAccount(name); }

absl::StatusOr<std::string> AccountBook::Authenticate(absl::string_view token) {
  const absl::Status refused = absl::UnauthenticatedError("unknown, revoked or replaced token");
  if (token.empty() || token.size() > 256) return refused;
  const std::string hash = HashToken(token);
  // The lookup is by the hash, which tells a timing observer nothing about any stored
  // token; the comparison of the found hash is in constant time all the same.
  GAVEL_ASSIGN_OR_RETURN(std::optional<Account> account, store_->AccountByTokenHash(hash));
  if (!account || account->revoked != 0 || account->token_hash.size() != hash.size() ||
      sodium_memcmp(account->token_hash.data(), hash.data(), hash.size()) != 0)
    return refused;
  return account->name;
}

absl::StatusOr<bool> AccountBook::StillValid(const std::string& name, const std::string& token_hash) {
  GAVEL_ASSIGN_OR_RETURN(std::optional<Account> account, store_->FindAccount(name));
  return account && account->revoked == 0 && account->token_hash.size() == token_hash.size() &&
         sodium_memcmp(account->token_hash.data(), token_hash.data(), token_hash.size()) == 0;
}

absl::StatusOr<bool> AccountBook::Owned(const std::string& name) {
  GAVEL_ASSIGN_OR_RETURN(std::optional<Account> account, store_->FindAccount(name));
  return account.has_value();
}

void TokenBucket::Refill(TimePoint now) {
  const double seconds = std::chrono::duration<double>(now - last_).count();
  if (seconds > 0) tokens_ = std::min(burst_, tokens_ + seconds * per_second_);
  last_ = std::max(last_, now);
}

bool TokenBucket::Take(TimePoint now) {
  Refill(now);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

bool TokenBucket::HasToken(TimePoint now) {
  Refill(now);
  return tokens_ >= 1;
}

bool TokenBucket::Full(TimePoint now) {
  Refill(now);
  return tokens_ >= burst_;
}

bool FailureThrottle::Allowed(const std::string& peer) {
  absl::MutexLock lock(&mutex_);
  auto it = peers_.find(peer);
  if (it != peers_.end()) return it->second.HasToken(clock_());
  return peers_.size() < options_.max_peers;
}

void FailureThrottle::Failed(const std::string& peer) {
  absl::MutexLock lock(&mutex_);
  const TokenBucket::TimePoint now = clock_();
  if (!peers_.contains(peer) && peers_.size() >= options_.max_peers)
    absl::erase_if(peers_, [&](auto& entry) { return entry.second.Full(now); });
  if (!peers_.contains(peer) && peers_.size() >= options_.max_peers) return;
  peers_.try_emplace(peer, options_.per_second, options_.burst, now).first->second.Take(now);
}

std::string PeerAddress(absl::string_view peer) {
  const size_t colon = peer.rfind(':');
  const size_t first = peer.find(':');
  if (colon == absl::string_view::npos || colon == first) return std::string(peer);
  return std::string(peer.substr(0, colon));
}

}  // namespace gavel::arena
