// libFuzzer target: the decoded-state cache (service/state_cache.h) changes no answer, whatever
// a client sends. Each input is a genuine request of a random game's step (Apply with the
// move the game took, LegalMoves or Observe for the mover; a full state or the step's sealed
// token with the owner's capability) XORed with the fuzzer's bytes. The handlers answer it
// twice, with a cache holding that step's state (under its bytes and under its token, as
// after the call that wrote it, sealed or not) and without a cache: status and response
// must be equal, byte for byte (sealing is deterministic, so a sealed Apply's new token too).
// The bytes are answered a third time as the server reads them (the state as bytes,
// gavel/service/wire_requests.proto) with the cache, alike again; bytes the public message
// does not parse must be refused there. Inputs that leave the state's bytes alone hit the cache with other moves,
// seats and options; the rest must miss and be decoded as without it. Any difference aborts.
//
// Input: byte 0 picks the table (game and player count), bytes 1-2 the step, byte 3 the
// call (Apply, LegalMoves, Observe; full, then sealed), the rest is the XOR mask.
// With GAVEL_FUZZ_WRITE_CORPUS=DIR set, it writes a seed corpus (zero masks) and exits.
#include <memory>

#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "service/engine_handler.h"
#include "service/sealing.h"
#include "tests/fuzz/fuzz_support.h"

namespace gavel {
namespace {

using fuzzing::FuzzSealer;
using fuzzing::Require;

// One position of a random game, as a client holds it.
struct Step {
  v1::GameState full;
  std::string token, owner;  // the same state sealed, and the owner's capability
  std::unique_ptr<const State> state;
  Seat mover = 0;
  uint32_t move = 0;  // the move the game took next (0 at its end)
};

// Games are cut after this many moves: enough steps, a bounded start-up.
constexpr size_t kMaxSteps = 300;

std::vector<Step> PlayTable(const Game& game, int players, uint64_t seed) {
  auto state = game.NewGame(players, seed, {}, nullptr);
  Require(state.ok(), "NewGame failed", state.status());
  const service::TableId table = service::Sealer::NewTable();
  const std::string owner = FuzzSealer().Capability(table, {.owner = true});
  Rng rng(seed);
  std::vector<Step> steps;
  std::vector<Move> legal;
  for (uint32_t number = 0;; ++number) {
    Step& step = steps.emplace_back();
    (*state)->Serialize(&step.full);
    auto token = service::SealState(**state, {.game = game.name(), .table = table, .move_number = number},
                                    FuzzSealer());
    Require(token.ok(), "sealing failed", token.status());
    step.token = *token;
    step.owner = owner;
    step.state = (*state)->Clone();
    step.mover = (*state)->finished() ? 0 : (*state)->to_move();
    if ((*state)->finished() || steps.size() == kMaxSteps) return steps;
    (*state)->LegalMoves(legal);
    const Move move = legal[rng.Below(static_cast<uint32_t>(legal.size()))];
    step.move = move.id;
    Require((*state)->Apply(move).ok(), "a legal move failed");
  }
}

// Every game at its fewest and most players.
const std::vector<std::vector<Step>>& Tables() {
  static const auto* tables = [] {
    auto* all = new std::vector<std::vector<Step>>;
    for (const Game* game : AllGames())
      for (int players : {game->info().min_players, game->info().max_players})
        all->push_back(PlayTable(*game, players, 7 + all->size()));
    return all;
  }();
  return *tables;
}

service::StateCache& Cache() {
  static auto* cache = new service::StateCache(64);
  return *cache;
}

void SetState(const Step& step, bool sealed, v1::StateRef* ref) {
  if (!sealed) {
    *ref->mutable_full() = step.full;
    return;
  }
  ref->mutable_sealed()->set_token(step.token);
  ref->mutable_sealed()->set_seat_capability(step.owner);
}

// The fuzzer's bytes, XORed into a genuine request's.
struct Mask {
  const uint8_t* bytes;
  size_t size;
};

std::string Xored(std::string genuine, const Mask& mask) {
  for (size_t i = 0; i < mask.size && i < genuine.size(); ++i)
    genuine[i] = static_cast<char>(genuine[i] ^ mask.bytes[i]);
  return genuine;
}

// A response's bytes with the tail.
template <typename Response>
std::string Answer(const Response& response, const service::ResponseTail& tail) {
  return response.SerializeAsString() + tail.bytes;
}

// `genuine` with the mask, answered by `handler` with the cache and without: the same status
// and response. (Bytes that no longer parse never reach a handler.)
template <typename Response, typename Request, typename Handler>
void Compare(const Request& genuine, const Mask& mask, const Handler& handler) {
  Request request;
  if (!request.ParseFromString(Xored(genuine.SerializeAsString(), mask))) return;
  Response with, without;
  service::ResponseTail with_tail, without_tail;
  const absl::Status cached = handler(request, &with, &with_tail, &Cache());
  const absl::Status decoded = handler(request, &without, &without_tail, nullptr);
  Require(cached == decoded, "the cache changed the status:", cached);
  if (cached.ok()) Require(Answer(with, with_tail) == Answer(without, without_tail), "the cache changed the response");
}

// `genuine` with the mask, read as the server reads it (`Wire`) and answered by `handler`
// with the cache, against the public message answered without one.
template <typename Wire, typename Response, typename Request, typename Handler>
void CompareAsTheServerReadsIt(const Request& genuine, const Mask& mask, const Handler& handler) {
  const std::string bytes = Xored(genuine.SerializeAsString(), mask);
  Wire wire;
  if (!wire.ParseFromString(bytes)) return;
  Response with, without;
  service::ResponseTail with_tail, without_tail;
  const absl::Status cached = handler(wire, &with, &with_tail, &Cache());
  Request request;
  if (!request.ParseFromString(bytes)) {
    Require(cached.code() == absl::StatusCode::kInvalidArgument, "a state that does not parse was not refused:", cached);
    return;
  }
  const absl::Status decoded = handler(request, &without, &without_tail, nullptr);
  Require(cached == decoded, "reading the state as bytes changed the status:", cached);
  if (cached.ok()) Require(Answer(with, with_tail) == Answer(without, without_tail), "reading the state as bytes changed the response");
}

void Exercise(const Step& step, int call, const Mask& mask) {
  const bool sealed = call >= 3;
  const service::Sealer* sealer = &FuzzSealer();
  using service::ResponseTail, service::StateCache;
  if (call % 3 == 0) {
    v1::ApplyRequest genuine;
    SetState(step, sealed, genuine.mutable_state());
    genuine.mutable_move()->set_id(step.move);
    const auto apply = [&](const auto& in, auto* out, ResponseTail* tail, StateCache* states) {
      return service::Apply(in, out, sealer, tail, states);
    };
    Compare<v1::ApplyResponse>(genuine, mask, apply);
    CompareAsTheServerReadsIt<service::ApplyRequestWire, v1::ApplyResponse>(genuine, mask, apply);
  } else if (call % 3 == 1) {
    v1::LegalMovesRequest genuine;
    SetState(step, sealed, genuine.mutable_state());
    genuine.set_seat(step.mover);
    const auto legal_moves = [&](const auto& in, auto* out, ResponseTail* tail, StateCache* states) {
      return service::LegalMoves(in, out, sealer, tail, states);
    };
    Compare<v1::LegalMovesResponse>(genuine, mask, legal_moves);
    CompareAsTheServerReadsIt<service::LegalMovesRequestWire, v1::LegalMovesResponse>(genuine, mask, legal_moves);
  } else {
    v1::ObserveRequest genuine;
    SetState(step, sealed, genuine.mutable_state());
    genuine.set_seat(step.mover);
    const auto observe = [&](const auto& in, auto* out, ResponseTail* tail, StateCache* states) {
      if constexpr (std::is_same_v<std::decay_t<decltype(in)>, v1::ObserveRequest>)
        return service::Observe(in, out, sealer, states);
      else
        return service::Observe(in, out, sealer, tail, states);
    };
    Compare<v1::ObserveResponse>(genuine, mask, observe);
    CompareAsTheServerReadsIt<service::ObserveRequestWire, v1::ObserveResponse>(genuine, mask, observe);
  }
}

void WriteCorpus(fuzzing::CorpusWriter& corpus) {
  for (size_t table = 0; table < Tables().size(); ++table) {
    const size_t steps = Tables()[table].size();
    for (size_t step : {size_t{0}, steps / 2, steps - 1})
      for (uint8_t call = 0; call < 6; ++call)
        corpus.Write("cache", {static_cast<uint8_t>(table), static_cast<uint8_t>(step & 0xff),
                               static_cast<uint8_t>(step >> 8), call});
  }
}

}  // namespace
}  // namespace gavel

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gavel::fuzzing::InitializeFuzzTarget(&gavel::WriteCorpus);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gavel;
  if (size < 4) return 0;
  const auto& tables = Tables();
  const std::vector<Step>& table = tables[data[0] % tables.size()];
  const Step& step = table[(data[1] | data[2] << 8) % table.size()];
  // The step's state is in the cache, as after the call that wrote it.
  Cache().Add(service::KeptAs::kFullState, step.full.SerializeAsString(), step.state->Clone());
  Cache().Add(service::KeptAs::kSealedToken, service::SealedStateKey(step.token, FuzzSealer().KeyRingVersion()), step.state->Clone());
  Exercise(step, data[3] % 6, {data + 4, size - 4});
  return 0;
}
