// libFuzzer target: sealed tokens and seat capabilities from a hostile client, through the
// engine's handlers (Observe, LegalMoves, Apply). Whatever the bytes, a call either is
// refused with INVALID_ARGUMENT, UNAUTHENTICATED or PERMISSION_DENIED, or the bytes are the
// genuine token and capability (nothing else may authenticate). Any violation aborts.
//
// Input: byte 0 picks the game, byte 1 the mode, the rest is the payload:
//   mode 0: the payload is the token (with the owner's genuine capability);
//   mode 1: the payload is the capability (with the genuine token);
//   mode 2: the payload is XORed into the genuine token (mutations near the real format);
//   mode 3: the payload is XORed into the genuine capability of seat 0.
// With GAVEL_FUZZ_WRITE_CORPUS=DIR set, it writes a seed corpus and exits.

#include "engine/core/registry.h"
#include "service/engine_handler.h"
#include "service/sealing.h"
#include "tests/fuzz/fuzz_support.h"

namespace gavel {
namespace {

using fuzzing::FuzzSealer;
using fuzzing::Require;

// One sealed table of each game, a few moves in.
struct Table {
  std::string token, owner, seat_zero;
};

const Table& TableOf(size_t index) {
  static const std::vector<Table> tables = [] {
    std::vector<Table> all;
    for (const Game* game : AllGames()) {
      v1::NewGameRequest request;
      request.set_game(game->name());
      request.set_players(game->info().min_players);
      request.set_seed(3);
      request.set_seal(true);
      v1::NewGameResponse created;
      Require(service::NewGame(request, &created, &FuzzSealer()).ok(), "sealed NewGame failed");
      all.push_back({created.sealed().token(), created.sealed().owner_capability(),
                     created.sealed().seat_capabilities(0)});
    }
    return all;
  }();
  return tables[index % tables.size()];
}

std::string Xored(std::string genuine, const std::string& mask) {
  for (size_t i = 0; i < mask.size() && i < genuine.size(); ++i) genuine[i] ^= mask[i];
  return genuine;
}

bool Refused(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
      return true;
    default:
      return false;
  }
}

// Calls every sealed handler; only the genuine pair may be answered.
void Exercise(const Table& table, const std::string& token, const std::string& capability) {
  const bool genuine = token == table.token && (capability == table.owner || capability == table.seat_zero);
  v1::StateRef ref;
  ref.mutable_sealed()->set_token(token);
  ref.mutable_sealed()->set_seat_capability(capability);
  const auto check = [&](const absl::Status& status, const char* rpc) {
    if (genuine) return;  // the genuine pair's answers are tested elsewhere
    Require(!status.ok(), rpc);
    Require(Refused(status), "a wrong token or capability got an unexpected code:", status);
  };
  v1::ObserveRequest observe;
  *observe.mutable_state() = ref;
  v1::ObserveResponse observed;
  check(service::Observe(observe, &observed, &FuzzSealer()), "Observe accepted a wrong token or capability");
  v1::LegalMovesRequest legal;
  *legal.mutable_state() = ref;
  v1::LegalMovesResponse moves;
  check(service::LegalMoves(legal, &moves, &FuzzSealer()), "LegalMoves accepted a wrong token or capability");
  v1::ApplyRequest apply;
  *apply.mutable_state() = ref;
  apply.mutable_move()->set_id(moves.moves_size() > 0 ? moves.moves(0).id() : 0);
  v1::ApplyResponse applied;
  check(service::Apply(apply, &applied, &FuzzSealer()), "Apply accepted a wrong token or capability");
}

void WriteCorpus(fuzzing::CorpusWriter& corpus) {
  for (size_t index = 0; index < AllGames().size(); ++index) {
    const Table& table = TableOf(index);
    const std::string payloads[] = {table.token, table.owner, std::string(4, '\0'), std::string(1, '\x01')};
    for (uint8_t mode = 0; mode < 4; ++mode)
      corpus.Write(AllGames()[index]->name(), {static_cast<uint8_t>(index), mode}, payloads[mode]);
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
  if (size < 2) return 0;
  const Table& table = TableOf(data[0]);
  const std::string payload(reinterpret_cast<const char*>(data) + 2, size - 2);
  switch (data[1] % 4) {
    case 0: Exercise(table, payload, table.owner); break;
    case 1: Exercise(table, table.token, payload); break;
    case 2: Exercise(table, Xored(table.token, payload), table.owner); break;
    case 3: Exercise(table, table.token, Xored(table.seat_zero, payload)); break;
  }
  return 0;
}
