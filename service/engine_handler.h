#pragma once
// The Engine API as plain functions of (request) -> (response, status): no gRPC here, so
// the server stays a thin adapter and the logic is testable in-process. With a `sealer`,
// sealed tables are served (proto/gavel/v1/engine.proto, "Sealed states"); without one,
// a sealed request gets UNIMPLEMENTED.
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"
#include "gavel/service/wire_requests.pb.h"
#include "gavel/v1/engine.pb.h"
#include "google/protobuf/arena.h"
#include "service/sealing.h"
#include "service/state_cache.h"

namespace gavel::service {

// The token of `state` with `header`: the game's own state message (GameState.state's
// value), sealed.
absl::StatusOr<std::string> SealState(const State& state, const TokenHeader& header, const Sealer& sealer);
// The full state `token` holds, written to `*full` (on `full`'s arena), and its header:
// the inverse of SealState. Sealer::Open's errors, and INVALID_ARGUMENT for a game this
// server does not play. Does not validate the state; Game::Deserialize does.
absl::StatusOr<TokenHeader> OpenToken(absl::string_view token, const Sealer& sealer, v1::GameState* full);
// What the state cache keeps a sealed table's state under: the exact bytes of its token and
// the version of the key ring that sealed it (KeyRing::version). A request carrying that
// token while that ring is in use gets the state without a decryption: equal bytes are a
// token this server wrote. After the key file changes every earlier token misses and is
// opened again, or refused if its key is gone.
std::string SealedStateKey(absl::string_view token, uint64_t key_ring);

// Wire bytes a handler writes for the server to send right after the response's own
// serialization: the status, the legal moves and the events, written field by field where
// building them as messages of the response cost more than the rest of the call (the legal
// moves alone took about a quarter of Carat's combined call, the events a third to a half
// of an Apply). Protobuf joins a message's fields wherever they lie in the bytes, so the
// receiver parses the same message. A handler given no tail parses them into the response.
struct ResponseTail {
  std::string bytes;
  bool finished = false;  // Apply: the move ended the game (for the server's metrics)
  // The name of the game whose state the handler opened, if it opened one (for the server's
  // metrics, which cannot read it from a request whose state is still bytes).
  absl::string_view game;
};

// This thread's tail, emptied for a new call. Its bytes keep their capacity from call to call:
// a response's tail grew several times as the status, the moves, the state and the events
// were written, each time a new buffer and a copy (ClearReusedBuffer).
ResponseTail& ReusedTail();

// The arena one call's request, response and everything in them live on; its first block,
// on the stack, holds a typical call without a heap allocation.
class CallArena {
 public:
  CallArena() : arena_(FirstBlock(first_block_)) {}
  google::protobuf::Arena* get() { return &arena_; }

 private:
  static google::protobuf::ArenaOptions FirstBlock(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kFirstBlockBytes;
    return options;
  }
  static constexpr size_t kFirstBlockBytes = 16384;
  alignas(16) char first_block_[kFirstBlockBytes];
  google::protobuf::Arena arena_;
};

// The length of `response`'s serialization followed by `tail` (and caches the sizes
// WriteWithTail needs).
size_t SizeWithTail(const google::protobuf::MessageLite& response, const ResponseTail& tail);
// Writes them to `out`, which holds SizeWithTail's bytes; returns the end.
uint8_t* WriteWithTail(const google::protobuf::MessageLite& response, const ResponseTail& tail, uint8_t* out);

// With `states`, a handler takes the request's state from that cache when it holds exactly
// its bytes, and NewGame and Apply keep the state they return there.
absl::Status ListGames(const v1::ListGamesRequest& request, v1::ListGamesResponse* response);
absl::Status NewGame(const v1::NewGameRequest& request, v1::NewGameResponse* response,
                     const Sealer* sealer = nullptr, ResponseTail* tail = nullptr, StateCache* states = nullptr);
absl::Status LegalMoves(const v1::LegalMovesRequest& request, v1::LegalMovesResponse* response,
                        const Sealer* sealer = nullptr, ResponseTail* tail = nullptr,
                        StateCache* states = nullptr);
absl::Status Apply(const v1::ApplyRequest& request, v1::ApplyResponse* response,
                   const Sealer* sealer = nullptr, ResponseTail* tail = nullptr, StateCache* states = nullptr);
absl::Status Observe(const v1::ObserveRequest& request, v1::ObserveResponse* response,
                     const Sealer* sealer = nullptr, StateCache* states = nullptr);

// The same calls as the server makes them, on requests read with the full state as bytes
// (gavel/service/wire_requests.proto): the same responses and errors, except that a full
// state that does not parse is refused here rather than by the request's parse. Each tells
// the server in `tail` whose game the state it opened is (ResponseTail::game).
absl::Status LegalMoves(const LegalMovesRequestWire& request, v1::LegalMovesResponse* response,
                        const Sealer* sealer, ResponseTail* tail, StateCache* states);
absl::Status Apply(const ApplyRequestWire& request, v1::ApplyResponse* response, const Sealer* sealer,
                   ResponseTail* tail, StateCache* states);
absl::Status Observe(const ObserveRequestWire& request, v1::ObserveResponse* response, const Sealer* sealer,
                     ResponseTail* tail, StateCache* states);
absl::Status Resample(const v1::ResampleRequest& request, v1::ResampleResponse* response);

}  // namespace gavel::service
