// Sealed states and seat capabilities (service/sealing.h, service/engine_handler.h):
// the token format, key files and rotation, and sealed play of every game through the
// handlers, as seen by the table's owner and by each seat.
#include <openssl/evp.h>
#include <sodium.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/engine_handler.h"
#include "tests/support/test_games.h"
#include "service/sealing.h"
#include "service/xaes256gcm.h"

namespace gavel::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

KeyRing Keys(absl::string_view text) {
  auto keys = KeyRing::Parse(text);
  EXPECT_TRUE(keys.ok()) << keys.status();
  return std::move(*keys);
}

std::string KeyFile(std::initializer_list<std::pair<int, bool>> keys) {
  std::string text = "# test keys\n";
  for (auto [id, primary] : keys) absl::StrAppend(&text, KeyRing::NewKeyLine(id, primary), "\n");
  return text;
}

TableId Table(uint8_t fill) {
  TableId table;
  table.fill(fill);
  return table;
}

// ---------------------------------------------------------------------------
// Key files

TEST(KeyFile, ParsesIdsCommentsAndThePrimary) {
  const std::string line1 = KeyRing::NewKeyLine(1, false);
  const std::string line7 = KeyRing::NewKeyLine(7, true);
  const KeyRing keys = Keys(absl::StrCat("# keys\n\n", line1, "  # old\n", line7, "\n"));
  EXPECT_EQ(keys.ids(), (std::vector<uint8_t>{1, 7}));
  EXPECT_EQ(keys.primary().id, 7);
  EXPECT_NE(keys.Find(1), nullptr);
  EXPECT_EQ(keys.Find(2), nullptr);
}

TEST(KeyFile, RefusesBadFilesWithoutQuotingKeys) {
  const std::string good = KeyRing::NewKeyLine(1, true);
  const std::string key = good.substr(2, 44);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "exactly one key must be marked primary, found 0"},
      {KeyRing::NewKeyLine(1, false), "found 0"},
      {absl::StrCat(good, "\n", KeyRing::NewKeyLine(2, true)), "found 2"},
      {absl::StrCat(good, "\n", KeyRing::NewKeyLine(1, false)), "key id 1 appears twice"},
      {absl::StrCat("0 ", key, " primary"), "from 1 to 255"},
      {absl::StrCat("256 ", key, " primary"), "from 1 to 255"},
      {absl::StrCat("3 ", key.substr(0, 40), " primary"), "key 3 is not 32 bytes in base64"},
      {absl::StrCat("3 ", key, " main"), "expected '<id> <key in base64> [primary]'"},
  };
  for (const auto& [text, message] : cases) {
    auto parsed = KeyRing::Parse(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr(message));
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr(key.substr(0, 8))));
  }
}

// ---------------------------------------------------------------------------
// Tokens and capabilities

TEST(Token, OpensToTheSealedBytesAndHeaderDeterministically) {
  const Sealer sealer(Keys(KeyFile({{3, true}})));
  const TokenHeader header{.game = "moonlight_market", .table = Table(9), .move_number = 41};
  const std::string state = "some state bytes";
  const std::string token = *sealer.Seal(header, state);
  EXPECT_EQ(token, *sealer.Seal(header, state));
  EXPECT_NE(token, *sealer.Seal(header, "other state bytes"));
  EXPECT_LE(token.size(), state.size() + 64);  // the longest game name gives the largest
  EXPECT_EQ(token.find(state), std::string::npos);

  auto opened = sealer.Open(token);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->state_bytes, state);
  EXPECT_EQ(opened->header.game, "moonlight_market");
  EXPECT_EQ(opened->header.table, Table(9));
  EXPECT_EQ(opened->header.move_number, 41u);
  EXPECT_EQ(opened->header.key_id, 3);

  auto clear = ReadTokenHeader(token);  // no key needed
  ASSERT_TRUE(clear.ok());
  EXPECT_EQ(clear->move_number, 41u);
  EXPECT_EQ(clear->table, Table(9));
}

// The seal subkey of a key file's line, derived as docs/sealed-states.md says.
std::array<uint8_t, 32> SealSubkey(const std::string& line) {
  std::array<uint8_t, 32> master, seal_key;
  size_t length = 0;
  const std::string encoded = line.substr(2, line.find(' ', 2) - 2);
  EXPECT_EQ(sodium_base642bin(master.data(), master.size(), encoded.data(), encoded.size(), nullptr, &length,
                              nullptr, sodium_base64_VARIANT_ORIGINAL), 0);
  crypto_kdf_derive_from_key(seal_key.data(), seal_key.size(), 1, "gavelkey", master.data());
  return seal_key;
}

std::string TestState(size_t size) {
  std::string state(size, '\0');
  for (size_t i = 0; i < size; ++i) state[i] = static_cast<char>(i * 7 + size);
  return state;
}

// A token's layout for the game "carat": the associated data, then the state, then the tag.
constexpr size_t kCaratAdSize = 3 + 5 + 8 + 4 + 16;  // version, key, name length, "carat", table, move, synthetic

XaesNonce TokenNonce(const std::string& token) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(token.data());
  XaesNonce nonce;
  std::copy(bytes + 8, bytes + 16, nonce.begin());            // the table id
  std::copy(bytes + 20, bytes + kCaratAdSize, nonce.begin() + 8);  // the synthetic part
  return nonce;
}

// The token's cipher is XAES-256-GCM with the seal subkey and the nonce table id || synthetic,
// over the header as associated data: a token sealed here opens with the cipher alone.
TEST(Token, IsXaes256GcmUnderTheSealSubkey) {
  const std::string line = KeyRing::NewKeyLine(5, true);
  const Sealer sealer(Keys(line));
  Xaes256GcmKey key;
  ASSERT_TRUE(Xaes256GcmKey::Derive(SealSubkey(line), &key).ok());
  for (size_t size : {0, 1, 15, 16, 17, 300, 1200, 5000}) {
    const std::string state = TestState(size);
    const std::string token = *sealer.Seal({.game = "carat", .table = Table(4), .move_number = 9}, state);
    ASSERT_EQ(token.size(), kCaratAdSize + size + kXaesTagSize);
    EXPECT_EQ(token[0], 3);  // the format version
    const auto* bytes = reinterpret_cast<const uint8_t*>(token.data());
    std::string opened(size, '\0');
    EXPECT_TRUE(Xaes256GcmOpen(key, TokenNonce(token), bytes, kCaratAdSize, bytes + kCaratAdSize, size,
                               bytes + kCaratAdSize + size, reinterpret_cast<uint8_t*>(opened.data())))
        << size;
    EXPECT_EQ(opened, state);
  }
}

// Tokens of format version 2 (XChaCha20-Poly1305, libsodium's bytes) still open after an
// upgrade, and are refused when changed; new tokens are version 3.
TEST(Token, Version2TokensStillOpen) {
  ASSERT_GE(sodium_init(), 0);
  const std::string line = KeyRing::NewKeyLine(5, true);
  const Sealer sealer(Keys(line));
  const std::array<uint8_t, 32> seal_key = SealSubkey(line);
  for (size_t size : {0, 1, 63, 64, 65, 300, 1200}) {
    const std::string state = TestState(size);
    std::string token = *sealer.Seal({.game = "carat", .table = Table(4), .move_number = 9}, state);
    token[0] = 2;
    auto* out = reinterpret_cast<uint8_t*>(token.data());
    crypto_aead_xchacha20poly1305_ietf_encrypt(out + kCaratAdSize, nullptr,
                                               reinterpret_cast<const uint8_t*>(state.data()), size, out,
                                               kCaratAdSize, nullptr, TokenNonce(token).data(), seal_key.data());
    auto opened = sealer.Open(token);
    ASSERT_TRUE(opened.ok()) << opened.status();
    EXPECT_EQ(opened->state_bytes, state);
    EXPECT_EQ(opened->header.version, 2);
    EXPECT_EQ(opened->header.move_number, 9u);
    token[kCaratAdSize + size / 2] ^= 1;
    EXPECT_EQ(sealer.Open(token).status().code(), absl::StatusCode::kUnauthenticated) << size;
  }
  std::string version1 = *sealer.Seal({.game = "carat", .table = Table(4)}, "x");
  version1[0] = 1;
  EXPECT_THAT(sealer.Open(version1).status().message(), HasSubstr("unknown format version 1"));
}

std::vector<uint8_t> Hex(absl::string_view hex) {
  const std::string bytes = absl::HexStringToBytes(hex);
  return {bytes.begin(), bytes.end()};
}

Xaes256GcmKey XaesKey(uint8_t fill) {
  std::array<uint8_t, 32> raw;
  raw.fill(fill);
  Xaes256GcmKey key;
  EXPECT_TRUE(Xaes256GcmKey::Derive(raw, &key).ok());
  return key;
}

XaesNonce XaesNonceOf(absl::string_view text) {
  XaesNonce nonce;
  std::copy(text.begin(), text.end(), nonce.begin());
  return nonce;
}

// The two vectors of c2sp.org/XAES-256-GCM (one with MSB(L) = 0, one with MSB(L) = 1).
TEST(Xaes256Gcm, MatchesTheSpecificationsVectors) {
  struct Vector {
    uint8_t key_fill;
    std::string ad;
    std::string k1;
    std::string sealed;  // ciphertext || tag
  };
  const Vector vectors[] = {
      {0x01, "", "e531954aca063d5b8d9c47a47d4cc6f0", "ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271"},
      {0x03, "c2sp.org/XAES-256-GCM", "23810ec50edb99f374409466ed1f4b7b",
       "986ec1832593df5443a179437fd083bf3fdb41abd740a21f71eb769d"}};
  for (const Vector& vector : vectors) {
    const Xaes256GcmKey key = XaesKey(vector.key_fill);
    EXPECT_EQ(std::vector<uint8_t>(key.k1.begin(), key.k1.end()), Hex(vector.k1));
    const XaesNonce nonce = XaesNonceOf("ABCDEFGHIJKLMNOPQRSTUVWX");
    std::vector<uint8_t> text(12 + kXaesTagSize);
    std::memcpy(text.data(), "XAES-256-GCM", 12);
    const auto* ad = reinterpret_cast<const uint8_t*>(vector.ad.data());
    ASSERT_TRUE(Xaes256GcmSeal(key, nonce, ad, vector.ad.size(), text.data(), 12, text.data() + 12).ok());
    EXPECT_EQ(text, Hex(vector.sealed));
    std::string opened(12, '\0');
    EXPECT_TRUE(Xaes256GcmOpen(key, nonce, ad, vector.ad.size(), text.data(), 12, text.data() + 12,
                               reinterpret_cast<uint8_t*>(opened.data())));
    EXPECT_EQ(opened, "XAES-256-GCM");
    text[12] ^= 0x80;  // the tag's first bit
    EXPECT_FALSE(Xaes256GcmOpen(key, nonce, ad, vector.ad.size(), text.data(), 12, text.data() + 12,
                                reinterpret_cast<uint8_t*>(opened.data())));
    EXPECT_EQ(opened, std::string(12, '\0'));  // wiped
  }
}

// SHAKE-128 of `input`, `size` bytes of output.
std::vector<uint8_t> Shake128(const std::vector<uint8_t>& input, size_t size) {
  std::vector<uint8_t> out(size);
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  EXPECT_EQ(EVP_DigestInit_ex(context, EVP_shake128(), nullptr), 1);
  EXPECT_EQ(EVP_DigestUpdate(context, input.data(), input.size()), 1);
  EXPECT_EQ(EVP_DigestFinalXOF(context, out.data(), out.size()), 1);
  EVP_MD_CTX_free(context);
  return out;
}

// The specification's accumulated randomized test, 10,000 iterations: keys, nonces,
// plaintexts and associated data of 0 to 255 bytes read from SHAKE-128's stream, every
// ciphertext hashed with another SHAKE-128; every one also opens again.
TEST(Xaes256Gcm, MatchesTheSpecificationsAccumulatedTest) {
  constexpr int kIterations = 10000;
  const std::vector<uint8_t> stream = Shake128({}, kIterations * (32 + 24 + 1 + 255 + 1 + 255));
  EXPECT_EQ(std::vector<uint8_t>(stream.begin(), stream.begin() + 16), Hex("7f9c2ba4e88f827d616045507605853e"));
  size_t at = 0;
  const auto read = [&](size_t size) {
    const uint8_t* start = stream.data() + at;
    at += size;
    return start;
  };
  std::vector<uint8_t> hashed;
  for (int i = 0; i < kIterations; ++i) {
    std::array<uint8_t, 32> raw;
    std::copy_n(read(32), 32, raw.begin());
    Xaes256GcmKey key;
    ASSERT_TRUE(Xaes256GcmKey::Derive(raw, &key).ok());
    XaesNonce nonce;
    std::copy_n(read(24), 24, nonce.begin());
    const size_t plain_size = *read(1);
    const uint8_t* plain_at = read(plain_size);
    std::vector<uint8_t> text(plain_at, plain_at + plain_size);
    const std::vector<uint8_t> plain = text;
    const size_t ad_size = *read(1);
    const uint8_t* ad = read(ad_size);
    text.resize(plain_size + kXaesTagSize);
    ASSERT_TRUE(Xaes256GcmSeal(key, nonce, ad, ad_size, text.data(), plain_size, text.data() + plain_size).ok());
    hashed.insert(hashed.end(), text.begin(), text.end());
    std::vector<uint8_t> opened(plain_size);
    ASSERT_TRUE(Xaes256GcmOpen(key, nonce, ad, ad_size, text.data(), plain_size, text.data() + plain_size,
                               opened.data()));
    ASSERT_EQ(opened, plain);
  }
  EXPECT_EQ(Shake128(hashed, 32), Hex("e6b9edf2df6cec60c8cbd864e2211b597fb69a529160cd040d56c0c210081939"));
}

TEST(Token, EverySingleBitFlipAndTruncationIsRefused) {
  const Sealer sealer(Keys(KeyFile({{1, false}, {2, true}})));
  const std::string token = *sealer.Seal({.game = "sultan", .table = Table(1)}, std::string(200, 'x'));
  int refused = 0;
  for (size_t bit = 0; bit < token.size() * 8; ++bit) {
    std::string flipped = token;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    auto opened = sealer.Open(flipped);
    ASSERT_FALSE(opened.ok()) << "bit " << bit;
    EXPECT_THAT(opened.status().code(), ::testing::AnyOf(absl::StatusCode::kUnauthenticated,
                                                         absl::StatusCode::kInvalidArgument));
    ++refused;
  }
  EXPECT_EQ(refused, static_cast<int>(token.size() * 8));
  for (size_t length = 0; length < token.size(); ++length)
    EXPECT_FALSE(sealer.Open(token.substr(0, length)).ok()) << length;
}

TEST(Capability, BindsTableAndSeatAndEveryBitFlipIsRefused) {
  const Sealer sealer(Keys(KeyFile({{5, true}})));
  const std::string seat2 = sealer.Capability(Table(1), {.owner = false, .seat = 2});
  const std::string owner = sealer.Capability(Table(1), {.owner = true});
  auto access = sealer.Verify(seat2, Table(1));
  ASSERT_TRUE(access.ok());
  EXPECT_FALSE(access->owner);
  EXPECT_EQ(access->seat, 2);
  ASSERT_TRUE(sealer.Verify(owner, Table(1)).ok());
  EXPECT_TRUE(sealer.Verify(owner, Table(1))->owner);
  EXPECT_EQ(sealer.Verify(seat2, Table(2)).status().code(), absl::StatusCode::kUnauthenticated);

  int refused = 0;
  for (const std::string& capability : {seat2, owner}) {
    for (size_t bit = 0; bit < capability.size() * 8; ++bit) {
      std::string flipped = capability;
      flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
      ASSERT_FALSE(sealer.Verify(flipped, Table(1)).ok()) << "bit " << bit;
      ++refused;
    }
  }
  EXPECT_EQ(refused, static_cast<int>((seat2.size() + owner.size()) * 8));
  const Sealer other(Keys(KeyFile({{5, true}})));  // same id, another key
  EXPECT_EQ(other.Verify(seat2, Table(1)).status().code(), absl::StatusCode::kUnauthenticated);
}

// ---------------------------------------------------------------------------
// Key rotation through the key file

class KeyRotation : public ::testing::Test {
 protected:
  void Write(const std::string& text) {
    // Replaced by rename, as a Kubernetes Secret volume does.
    std::ofstream(path_ + ".new") << text;
    std::filesystem::rename(path_ + ".new", path_);
  }
  std::string path_ = ::testing::TempDir() + "/sealing_keys";
};

TEST_F(KeyRotation, OldTokensOpenUntilTheirKeyIsRetired) {
  const std::string key1 = KeyRing::NewKeyLine(1, true);
  Write(key1);
  auto sealer = Sealer::FromFile(path_, /*poll_ms=*/0);  // reloaded by hand below
  ASSERT_TRUE(sealer.ok()) << sealer.status();
  const std::string old_token = *(*sealer)->Seal({.game = "carat", .table = Table(3)}, "state");
  const std::string old_capability = (*sealer)->Capability(Table(3), {.owner = true});

  // Step 1: a new primary beside the old key.
  const std::string key2 = KeyRing::NewKeyLine(2, true);
  Write(absl::StrCat(key1.substr(0, key1.rfind(" primary")), "\n", key2, "\n"));
  ASSERT_TRUE((*sealer)->ReloadIfChanged());
  EXPECT_EQ((*sealer)->KeyIds(), (std::vector<uint8_t>{1, 2}));
  EXPECT_TRUE((*sealer)->Open(old_token).ok());
  EXPECT_TRUE((*sealer)->Verify(old_capability, Table(3)).ok());
  const std::string new_token = *(*sealer)->Seal({.game = "carat", .table = Table(3)}, "state");
  EXPECT_EQ(ReadTokenHeader(new_token)->key_id, 2);

  // A broken edit keeps the keys in use.
  Write("1 not-a-key primary\n");
  EXPECT_FALSE((*sealer)->ReloadIfChanged());
  EXPECT_EQ((*sealer)->KeyIds(), (std::vector<uint8_t>{1, 2}));

  // Step 2: the old key retired.
  Write(key2);
  ASSERT_TRUE((*sealer)->ReloadIfChanged());
  auto refused = (*sealer)->Open(old_token);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(refused.status().message(), HasSubstr("key 1, which this server does not hold"));
  EXPECT_EQ((*sealer)->Verify(old_capability, Table(3)).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE((*sealer)->Open(new_token).ok());
}

TEST_F(KeyRotation, TheWatcherPicksUpAChangedFile) {
  Write(KeyRing::NewKeyLine(1, true));
  auto sealer = Sealer::FromFile(path_, /*poll_ms=*/5);
  ASSERT_TRUE(sealer.ok());
  Write(KeyRing::NewKeyLine(4, true));
  // Waits for the reload itself, not for a time.
  EXPECT_TRUE((*sealer)->WaitForKeys({4}, absl::Seconds(30)));
}

// ---------------------------------------------------------------------------
// Sealed play through the handlers

v1::StateRef Sealed(const std::string& token, const std::string& capability) {
  v1::StateRef ref;
  ref.mutable_sealed()->set_token(token);
  ref.mutable_sealed()->set_seat_capability(capability);
  return ref;
}

v1::StateRef Full(const v1::GameState& state) {
  v1::StateRef ref;
  *ref.mutable_full() = state;
  return ref;
}

class SealedPlay : public ::testing::Test {
 protected:
  SealedPlay() : sealer_(Keys(KeyFile({{1, true}}))) {}

  // The full state a token holds (what only the server can read).
  v1::GameState Inside(const std::string& token) {
    v1::GameState state;
    auto opened = OpenToken(token, sealer_, &state);
    EXPECT_TRUE(opened.ok()) << opened.status();
    return state;
  }

  Sealer sealer_;
};

// A seat's answer to Apply: the new token, its own view and events, nothing else.
void ExpectOnlyTheSeatsShare(const v1::ApplyResponse& sealed, const v1::ApplyResponse& plain, int seat) {
  EXPECT_FALSE(sealed.has_state());
  EXPECT_EQ(sealed.events_size(), 0);
  ASSERT_EQ(sealed.seat_events_size(), 1);
  EXPECT_EQ(sealed.seat_events(0).SerializeAsString(), plain.seat_events(seat).SerializeAsString());
  for (const v1::View& view : sealed.views()) EXPECT_EQ(view.seat(), seat);
  EXPECT_EQ(sealed.state_hash(), 0u);
  for (const v1::SeatResult& result : sealed.status().results()) {
    if (sealed.status().finished()) continue;
    EXPECT_EQ(result.score(), 0);
    EXPECT_EQ(result.rank(), 0);
  }
}

// Every game to the end, each move made by the mover's own capability: the tokens hold
// exactly the states of unsealed play, and each seat sees exactly its own share.
TEST_F(SealedPlay, EveryGameToTheEndEqualsUnsealedPlay) {
  std::mt19937 random(11);
  for (const auto& [game, players] : testing::EveryTableSize()) {
    SCOPED_TRACE(absl::StrCat(game->name(), " with ", players));
    v1::NewGameRequest request = testing::NewGameRequestFor(*game, players, players * 7 + 1);
    request.set_per_seat_events(true);
    v1::NewGameResponse plain_start, sealed_start;
    ASSERT_TRUE(NewGame(request, &plain_start).ok());
    request.set_seal(true);
    ASSERT_TRUE(NewGame(request, &sealed_start, &sealer_).ok());
    ASSERT_FALSE(sealed_start.has_state());
    const v1::SealedTable& table = sealed_start.sealed();
    ASSERT_EQ(table.seat_capabilities_size(), plain_start.status().seats());
    EXPECT_EQ(Inside(table.token()).SerializeAsString(), plain_start.state().SerializeAsString());

    v1::GameState state = plain_start.state();
    std::string token = table.token();
    int to_move = plain_start.status().to_move();
    uint32_t moves = 0;
    while (to_move >= 0) {
      v1::LegalMovesRequest legal_request;
      *legal_request.mutable_state() = Sealed(token, table.seat_capabilities(to_move));
      legal_request.set_seat(to_move);
      v1::LegalMovesResponse legal;
      ASSERT_TRUE(LegalMoves(legal_request, &legal, &sealer_).ok());
      ASSERT_FALSE(legal.moves().empty());
      const v1::Move move = legal.moves(random() % legal.moves_size());

      v1::ApplyRequest apply;
      *apply.mutable_move() = move;
      apply.set_per_seat_events(true);
      apply.mutable_include()->set_all_views(true);
      *apply.mutable_state() = Full(state);
      v1::ApplyResponse plain, sealed;
      ASSERT_TRUE(Apply(apply, &plain).ok());
      *apply.mutable_state() = Sealed(token, table.seat_capabilities(to_move));
      ASSERT_TRUE(Apply(apply, &sealed, &sealer_).ok());
      ExpectOnlyTheSeatsShare(sealed, plain, to_move);
      ASSERT_EQ(sealed.views_size(), 1);
      EXPECT_EQ(sealed.views(0).SerializeAsString(), plain.views(to_move).SerializeAsString());
      EXPECT_EQ(Inside(sealed.token()).SerializeAsString(), plain.state().SerializeAsString());
      EXPECT_EQ(ReadTokenHeader(sealed.token())->move_number, ++moves);
      state = plain.state();
      token = sealed.token();
      to_move = plain.status().finished() ? -1 : plain.status().to_move();
      if (HasFailure()) return;
    }
    // The owner sees what the full state shows.
    v1::ObserveRequest observe;
    *observe.mutable_state() = Sealed(token, table.owner_capability());
    observe.set_seat(0);
    v1::ObserveResponse by_owner, by_state;
    ASSERT_TRUE(Observe(observe, &by_owner, &sealer_).ok());
    *observe.mutable_state() = Full(state);
    ASSERT_TRUE(Observe(observe, &by_state).ok());
    EXPECT_EQ(by_owner.SerializeAsString(), by_state.SerializeAsString());
    EXPECT_TRUE(by_owner.status().finished());
  }
}

// A seat's capability looks and acts only for its seat.
TEST_F(SealedPlay, ASeatsCapabilityIsRefusedForAnyOtherSeat) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    v1::NewGameRequest request;
    request.set_game(game->name());
    request.set_players(game->info().max_players);
    request.set_seed(3);
    request.set_seal(true);
    v1::NewGameResponse created;
    ASSERT_TRUE(NewGame(request, &created, &sealer_).ok());
    const v1::SealedTable& table = created.sealed();
    const int mover = created.status().to_move();
    const int other = (mover + 1) % created.status().seats();
    const v1::StateRef as_other = Sealed(table.token(), table.seat_capabilities(other));

    v1::ObserveRequest observe;
    *observe.mutable_state() = as_other;
    observe.set_seat(mover);
    v1::ObserveResponse view;
    EXPECT_EQ(Observe(observe, &view, &sealer_).code(), absl::StatusCode::kPermissionDenied);
    observe.set_seat(other);
    ASSERT_TRUE(Observe(observe, &view, &sealer_).ok());
    EXPECT_EQ(view.view().seat(), other);
    for (const v1::SeatResult& result : view.status().results()) EXPECT_EQ(result.score(), 0);

    v1::LegalMovesRequest legal_request;
    *legal_request.mutable_state() = as_other;
    legal_request.set_seat(mover);
    v1::LegalMovesResponse legal;
    EXPECT_EQ(LegalMoves(legal_request, &legal, &sealer_).code(), absl::StatusCode::kPermissionDenied);
    *legal_request.mutable_state() = Sealed(table.token(), table.owner_capability());
    ASSERT_TRUE(LegalMoves(legal_request, &legal, &sealer_).ok());

    v1::ApplyRequest apply;
    *apply.mutable_state() = as_other;
    *apply.mutable_move() = legal.moves(0);
    v1::ApplyResponse applied;
    const absl::Status not_yours = Apply(apply, &applied, &sealer_);
    EXPECT_EQ(not_yours.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(not_yours.message(), HasSubstr(absl::StrCat("it is seat ", mover, "'s turn")));
    *apply.mutable_state() = Sealed(table.token(), table.seat_capabilities(mover));
    apply.mutable_include()->set_state_hash(true);
    EXPECT_EQ(Apply(apply, &applied, &sealer_).code(), absl::StatusCode::kPermissionDenied);
    apply.mutable_include()->set_state_hash(false);
    apply.mutable_include()->add_view_seats(other);
    EXPECT_EQ(Apply(apply, &applied, &sealer_).code(), absl::StatusCode::kPermissionDenied);
    apply.mutable_include()->clear_view_seats();
    apply.set_seat(other);
    EXPECT_EQ(Apply(apply, &applied, &sealer_).code(), absl::StatusCode::kPermissionDenied);
    apply.clear_seat();
    ASSERT_TRUE(Apply(apply, &applied, &sealer_).ok());
  }
}

// Every single-bit flip of a real table's token and of its capabilities, for every game.
TEST_F(SealedPlay, EveryBitFlipOfEveryGamesTokenAndCapabilityIsRefused) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    v1::NewGameRequest request;
    request.set_game(game->name());
    request.set_players(game->info().max_players);
    request.set_seal(true);
    v1::NewGameResponse created;
    ASSERT_TRUE(NewGame(request, &created, &sealer_).ok());
    const v1::SealedTable& table = created.sealed();
    const auto refused = [&](const std::string& token, const std::string& capability) {
      v1::ObserveRequest observe;
      *observe.mutable_state() = Sealed(token, capability);
      v1::ObserveResponse response;
      const absl::StatusCode code = Observe(observe, &response, &sealer_).code();
      return code == absl::StatusCode::kUnauthenticated || code == absl::StatusCode::kInvalidArgument;
    };
    ASSERT_FALSE(refused(table.token(), table.owner_capability()));
    const auto count_refused_flips = [](const std::string& bytes, const auto& is_refused) {
      int count = 0;
      for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
        std::string flipped = bytes;
        flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
        count += is_refused(flipped);
      }
      return count;
    };
    const std::string& token = table.token();
    EXPECT_EQ(count_refused_flips(token, [&](const std::string& flipped) {
                return refused(flipped, table.owner_capability());
              }),
              static_cast<int>(token.size() * 8));
    for (const std::string& capability : {table.owner_capability(), table.seat_capabilities(0)})
      EXPECT_EQ(count_refused_flips(capability, [&](const std::string& flipped) {
                  return refused(token, flipped);
                }),
                static_cast<int>(capability.size() * 8));
  }
}

TEST_F(SealedPlay, WrongTokensAndCapabilitiesAreRefused) {
  const Game& game = *AllGames().front();
  v1::NewGameRequest request;
  request.set_game(game.name());
  request.set_players(game.info().min_players);
  request.set_seal(true);
  v1::NewGameResponse first, second;
  ASSERT_TRUE(NewGame(request, &first, &sealer_).ok());
  ASSERT_TRUE(NewGame(request, &second, &sealer_).ok());
  EXPECT_NE(first.sealed().token(), second.sealed().token());  // a new table id each time

  const auto observe = [&](const v1::StateRef& ref) {
    v1::ObserveRequest observe_request;
    *observe_request.mutable_state() = ref;
    v1::ObserveResponse response;
    return Observe(observe_request, &response, &sealer_);
  };
  const std::string& token = first.sealed().token();
  EXPECT_TRUE(observe(Sealed(token, first.sealed().seat_capabilities(0))).ok());
  // Another table's capability, none at all, a token of another deployment, no keys.
  EXPECT_EQ(observe(Sealed(token, second.sealed().seat_capabilities(0))).code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(observe(Sealed(token, "")).code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(observe(Sealed(token, "short")).code(), absl::StatusCode::kInvalidArgument);
  const Sealer elsewhere(Keys(KeyFile({{1, true}})));
  v1::ObserveRequest foreign;
  *foreign.mutable_state() = Sealed(token, first.sealed().owner_capability());
  v1::ObserveResponse response;
  EXPECT_EQ(Observe(foreign, &response, &elsewhere).code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Observe(foreign, &response).code(), absl::StatusCode::kUnimplemented);
  v1::NewGameResponse refused;
  EXPECT_EQ(NewGame(request, &refused).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace gavel::service
