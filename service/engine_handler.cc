#include "service/engine_handler.h"

#include <array>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "engine/core/message_writer.h"
#include "engine/core/registry.h"
#include "engine/core/status.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace gavel::service {
namespace {

absl::StatusOr<const Game*> GameNamed(const std::string& name) {
  if (name.empty()) return absl::InvalidArgumentError("no game named in the request");
  const Game* game = FindGame(name);
  if (game == nullptr) {
    std::string known;
    for (const Game* candidate : AllGames())
      absl::StrAppend(&known, known.empty() ? "" : ", ", candidate->name());
    return absl::InvalidArgumentError(
        absl::StrCat("unknown game '", name, "'; this server plays: ", known));
  }
  return game;
}

// Whom a request acts for: a trusted holder of the full state or of the owner's
// capability, or one seat of a sealed table.
struct Caller {
  bool sealed = false;
  Access access{.owner = true};
  TokenHeader token;  // the sealed table's header

  bool owner() const { return access.owner; }
};

struct OpenedState {
  std::unique_ptr<State> state;
  Caller caller;
};

// Where a handler wrote something in a ResponseTail's bytes.
struct ByteRange {
  size_t begin = 0, size = 0;
};

// The state `full` holds: a copy of the one the cache keeps under exactly its bytes (as
// protobuf writes them, the way the server wrote the GameState), or else decoded and
// validated.
absl::StatusOr<std::unique_ptr<State>> DecodeState(const v1::GameState& full, StateCache* states) {
  GAVEL_ASSIGN_OR_RETURN(auto game, GameNamed(full.game()));
  if (states != nullptr) {
    thread_local std::string bytes;  // keeps its capacity from call to call
    bytes.clear();
    if (full.AppendToString(&bytes))
      if (auto state = states->Find(*game, KeptAs::kFullState, bytes)) return state;
  }
  return game->Deserialize(full);
}

// A GameState on `arena`, or, without one, on the heap and held by `owner`.
v1::GameState* NewGameState(google::protobuf::Arena* arena, std::unique_ptr<v1::GameState>& owner) {
  if (arena != nullptr) return google::protobuf::Arena::CreateMessage<v1::GameState>(arena);
  owner = std::make_unique<v1::GameState>();
  return owner.get();
}

// A copy of the state of `token` when the cache keeps it (SealedStateKey), with the token's
// header.
std::unique_ptr<State> FindSealed(absl::string_view token, const Sealer& sealer, StateCache* states,
                                  TokenHeader* header) {
  if (states == nullptr) return nullptr;
  auto read = ReadTokenHeader(token);
  const Game* game = read.ok() ? FindGame(read->game) : nullptr;
  if (game == nullptr) return nullptr;
  auto state = states->Find(*game, KeptAs::kSealedToken, SealedStateKey(token, sealer.KeyRingVersion()));
  if (state != nullptr) *header = *std::move(read);
  return state;
}

// Opens a token (unless the cache keeps its state) and checks the capability against its
// table.
absl::StatusOr<OpenedState> OpenSealed(const v1::SealedState& sealed, const Sealer* sealer,
                                       StateCache* states, google::protobuf::Arena* arena) {
  if (sealer == nullptr)
    return absl::UnimplementedError("sealed states are not enabled on this server (--sealing_keys)");
  TokenHeader header;
  std::unique_ptr<State> state = FindSealed(sealed.token(), *sealer, states, &header);
  std::unique_ptr<v1::GameState> owned;
  v1::GameState* full = nullptr;
  if (state == nullptr) {
    full = NewGameState(arena, owned);
    GAVEL_ASSIGN_OR_RETURN(header, OpenToken(sealed.token(), *sealer, full));
  }
  if (sealed.seat_capability().empty())
    return absl::UnauthenticatedError("a sealed state needs a capability: a seat's or the owner's");
  GAVEL_ASSIGN_OR_RETURN(const Access access, sealer->Verify(sealed.seat_capability(), header.table));
  if (state == nullptr) {  // a sealed table's state is kept under its token only
    GAVEL_ASSIGN_OR_RETURN(state, DecodeState(*full, nullptr));
  }
  if (!access.owner && access.seat >= state->seats())
    return absl::PermissionDeniedError("the capability names a seat this table does not have");
  return OpenedState{std::move(state), Caller{.sealed = true, .access = access, .token = header}};
}

// A full state sent as a message: decoded and validated, unless the cache keeps it.
absl::StatusOr<std::unique_ptr<State>> OpenFull(const v1::GameState& full, StateCache* states,
                                                google::protobuf::Arena*) {
  return DecodeState(full, states);
}

// A full state sent as its bytes (gavel/service/wire_requests.proto): looked up in the cache as they came,
// and only parsed and decoded when it does not keep them.
absl::StatusOr<std::unique_ptr<State>> OpenFull(const std::string& bytes, StateCache* states,
                                                google::protobuf::Arena* arena) {
  if (states != nullptr)
    if (auto state = states->FindAnyGame(KeptAs::kFullState, bytes)) return state;
  std::unique_ptr<v1::GameState> owned;
  v1::GameState* full = NewGameState(arena, owned);
  if (!full->ParseFromString(bytes))
    return absl::InvalidArgumentError("the request's state is not a well-formed gavel.v1.GameState");
  return DecodeState(*full, nullptr);
}

// Decodes and validates the state a request carries, a v1::StateRef or a StateRefWire (the
// request's arena holds what a token opens to), and tells the server through `tail` (when
// given) whose game it is.
template <typename StateRef>
absl::StatusOr<OpenedState> OpenState(const StateRef& ref, const Sealer* sealer, StateCache* states,
                                      ResponseTail* tail) {
  OpenedState opened;
  switch (ref.form_case()) {
    case StateRef::kFull: {
      GAVEL_ASSIGN_OR_RETURN(opened.state, OpenFull(ref.full(), states, ref.GetArena()));
      break;
    }
    case StateRef::kSealed: {
      GAVEL_ASSIGN_OR_RETURN(opened, OpenSealed(ref.sealed(), sealer, states, ref.GetArena()));
      break;
    }
    case StateRef::FORM_NOT_SET:
      return absl::InvalidArgumentError("the request carries no state");
  }
  if (tail != nullptr) tail->game = opened.state->game().name();
  return opened;
}

// A seat's capability acts and looks only for its own seat.
absl::Status CheckActsFor(const Caller& caller, int seat) {
  if (caller.owner() || caller.access.seat == seat) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "this capability is seat ", caller.access.seat, "'s; it cannot act or look for seat ", seat));
}

absl::Status CheckSeat(const State& state, int seat) {
  if (seat < 0 || seat >= state.seats())
    return absl::InvalidArgumentError(
        absl::StrCat("seat ", seat, " is out of range; this game has seats 0 to ", state.seats() - 1));
  return absl::OkStatus();
}

// The response's field `field`, a v1::GameStatus, as protobuf writes it. Scores go to a
// seat's caller only once the game is finished: some games keep them hidden.
void AppendStatus(const State& state, const Caller& caller, int field, std::string* out) {
  using Result = v1::SeatResult;
  constexpr size_t kResultBytes = 4 * MessageWriter::ScalarBytes();
  std::array<uint8_t, 3 * MessageWriter::ScalarBytes() + kMaxSeats * MessageWriter::MessageBytes(kResultBytes)> buffer;
  MessageWriter status(buffer.data());
  status.Bool(v1::GameStatus::kFinishedFieldNumber, state.finished());
  status.Int32(v1::GameStatus::kToMoveFieldNumber, state.to_move());
  status.Int32(v1::GameStatus::kSeatsFieldNumber, state.seats());
  const bool scores = caller.owner() || state.finished();
  const Outcome outcome = scores ? state.outcome() : Outcome{};
  for (Seat seat = 0; seat < state.seats(); ++seat) {
    status.ShortMessage<kResultBytes>(v1::GameStatus::kResultsFieldNumber, [&](MessageWriter& result) {
      result.Int32(Result::kSeatFieldNumber, seat);
      if (scores) {
        result.Double(Result::kScoreFieldNumber, outcome.scores[seat]);
        result.Int32(Result::kRankFieldNumber, outcome.ranks[seat]);
      }
      result.Bool(Result::kAutomatonFieldNumber, state.IsAutomaton(seat));
    });
  }
  AppendLengthDelimited(field, status.size(), [&](uint8_t* to) { std::memcpy(to, buffer.data(), status.size()); }, out);
}

// A handler given no tail writes into one of its own and parses it into the response when done.
absl::Status MergeTail(const ResponseTail& own, google::protobuf::MessageLite* response) {
  if (!response->MergeFromString(own.bytes)) return absl::InternalError("a response's own bytes do not parse");
  return absl::OkStatus();
}

void DescribeMove(const State& state, Move move, v1::Move* out) {
  out->set_id(move.id);
  state.MoveDetail(move, out->mutable_detail());
  out->set_text(state.MoveText(move));
}

// Appends `moves` to `out` as the wire bytes of entries of a repeated Move field: the bytes
// the game keeps ready, or else the move described through one reused message.
void EncodeMoves(const State& state, const std::vector<Move>& moves, int field, std::string* out) {
  thread_local v1::Move scratch;  // off any arena: its strings keep their capacity
  for (Move move : moves) {
    const absl::string_view ready = state.EncodedMove(move);
    if (!ready.empty()) {
      AppendBytesField(field, ready, out);
      continue;
    }
    scratch.mutable_detail()->Clear();
    DescribeMove(state, move, &scratch);
    AppendLengthDelimited(
        field, scratch.ByteSizeLong(), [&](uint8_t* at) { scratch.SerializeWithCachedSizesToArray(at); }, out);
  }
}

// The moves of the seat to move, with id, detail and text, as entries of field `field`.
void AppendLegalMoves(const State& state, int field, std::string* out) {
  thread_local std::vector<Move> moves;  // keeps its capacity: no allocation per call
  state.LegalMoves(moves);
  out->reserve(out->size() + 128 * moves.size());  // room for the moves and what follows them
  EncodeMoves(state, moves, field, out);
}

// The seats whose views `include` asks for; an error names a seat out of range or one the
// caller may not look at.
absl::StatusOr<SeatMask> ViewSeats(const v1::Include& include, const State& state, const Caller& caller) {
  SeatMask seats = 0;
  if (include.all_views()) seats = (SeatMask{1} << state.seats()) - 1;
  if (include.mover_view() && !state.finished()) seats |= OnlySeat(state.to_move());
  for (int seat : include.view_seats()) {
    GAVEL_RETURN_IF_ERROR(CheckSeat(state, seat));
    GAVEL_RETURN_IF_ERROR(CheckActsFor(caller, seat));
    seats |= OnlySeat(seat);
  }
  return caller.owner() ? seats : seats & OnlySeat(caller.access.seat);
}

// What `include` asks for about the new state: the mover's legal moves, views, the hash.
template <typename Response>
absl::Status FillIncluded(const v1::Include& include, const State& state, const Caller& caller,
                          Response* response, ResponseTail& tail) {
  GAVEL_ASSIGN_OR_RETURN(const SeatMask view_seats, ViewSeats(include, state, caller));
  if (include.state_hash() && !caller.owner())
    return absl::PermissionDeniedError(
        "a seat's capability cannot ask for the state hash (it would let a seat test guesses "
        "about hidden information)");
  const bool mover_allowed = caller.owner() || state.to_move() == caller.access.seat;
  if (include.legal_moves() && !state.finished() && mover_allowed)
    AppendLegalMoves(state, Response::kLegalMovesFieldNumber, &tail.bytes);
  for (Seat seat = 0; seat < state.seats(); ++seat)
    if (view_seats & OnlySeat(seat)) state.Observe(seat, response->add_views());
  if (include.state_hash()) response->set_state_hash(state.Hash());
  return absl::OkStatus();
}

// This thread's event log, emptied for a new call: a call's events took an allocation of
// their own.
EventLog& ReusedEventLog() {
  thread_local EventLog log;
  log.Clear();
  return log;
}

// A seat's caller gets its own events only; a trusted one all of them, per seat on request.
template <typename Response>
void AppendEvents(const EventLog& log, int seats, bool per_seat, const Caller& caller, std::string* out) {
  if (!caller.owner()) {
    log.AppendSeatEvents(Response::kSeatEventsFieldNumber, caller.access.seat, out);
  } else {
    if (per_seat)
      for (Seat seat = 0; seat < seats; ++seat) log.AppendSeatEvents(Response::kSeatEventsFieldNumber, seat, out);
    log.AppendAll(Response::kEventsFieldNumber, seats, out);
  }
}

void FillInfo(const GameInfo& info, v1::GameInfo* out) {
  out->set_name(info.name);
  out->set_display_name(info.display_name);
  out->set_min_players(info.min_players);
  out->set_max_players(info.max_players);
  out->set_players_note(info.players_note);
  for (const OptionSpec& spec : info.options) {
    auto* option = out->add_options();
    option->set_name(spec.name);
    option->set_description(spec.description);
    for (const auto& choice : spec.choices) option->add_choices(choice);
    option->set_min_int(spec.min_int);
    option->set_max_int(spec.max_int);
    option->set_default_value(spec.default_value);
  }
}

// `state`'s message bytes (GameState.state's value), written into this thread's scratch
// GameState, whose strings keep their capacity from call to call: valid until the thread
// writes the next.
const std::string& StateMessage(const State& state) {
  thread_local v1::GameState scratch;  // off any arena
  state.Serialize(&scratch);
  return scratch.state().value();
}

// The response's field `field`, the v1::GameState of `state` whose message is `message`, as
// protobuf writes it: a state travels behind the response like the rest it returns. Returns
// where the GameState's own bytes lie in `out`: what the cache keeps the state under.
ByteRange AppendGameState(int field, const State& state, const std::string& message, std::string* out) {
  using google::protobuf::internal::WireFormatLite;
  const GameInfo& info = state.game().info();
  const auto bytes_field_size = [](const std::string& bytes) {
    return bytes.empty() ? 0 : 1 + WireFormatLite::StringSize(bytes);  // fields 1 and 2: one tag byte
  };
  const size_t any_size = bytes_field_size(info.state_type_url) + bytes_field_size(message);
  const size_t size = bytes_field_size(info.name) + 1 + WireFormatLite::LengthDelimitedSize(any_size);
  AppendLengthDelimited(field, size, [&](uint8_t* at) {
    if (!info.name.empty()) at = WireFormatLite::WriteStringToArray(v1::GameState::kGameFieldNumber, info.name, at);
    at = WireFormatLite::WriteTagToArray(v1::GameState::kStateFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, at);
    at = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(any_size), at);
    if (!info.state_type_url.empty())
      at = WireFormatLite::WriteStringToArray(google::protobuf::Any::kTypeUrlFieldNumber, info.state_type_url, at);
    if (!message.empty()) WireFormatLite::WriteBytesToArray(google::protobuf::Any::kValueFieldNumber, message, at);
  }, out);
  return ByteRange{.begin = out->size() - size, .size = size};
}

// A new table's token for `state`, whose message is `bytes`, and the capabilities for its
// owner and each seat. Returns the version of the key ring that sealed it.
absl::StatusOr<uint64_t> SealNewTable(const State& state, absl::string_view bytes, const Sealer& sealer,
                                      v1::SealedTable* out) {
  const TableId table = Sealer::NewTable();
  uint64_t key_ring = 0;
  GAVEL_ASSIGN_OR_RETURN(std::string token,
                         sealer.Seal({.game = state.game().name(), .table = table}, bytes, &key_ring));
  out->set_token(std::move(token));
  out->set_owner_capability(sealer.Capability(table, Access{.owner = true}));
  for (Seat seat = 0; seat < state.seats(); ++seat)
    out->add_seat_capabilities(sealer.Capability(table, Access{.owner = false, .seat = seat}));
  return key_ring;
}

// The token after one more move at the same table, for the state whose message is `bytes`,
// into `*token`. Returns the version of the key ring that sealed it.
absl::StatusOr<uint64_t> Reseal(absl::string_view bytes, const TokenHeader& before, const Sealer& sealer,
                                std::string* token) {
  TokenHeader after = before;
  after.move_number = before.move_number + 1;
  uint64_t key_ring = 0;
  GAVEL_ASSIGN_OR_RETURN(*token, sealer.Seal(after, bytes, &key_ring));
  return key_ring;
}

// Keeps the state a response carries under its GameState's bytes in `out`, for the next
// call that sends them back.
void Keep(StateCache* states, const std::string& out, ByteRange game_state, std::unique_ptr<State> state) {
  if (states != nullptr)
    states->Add(KeptAs::kFullState, absl::string_view(out).substr(game_state.begin, game_state.size), std::move(state));
}

// Keeps a sealed table's state under the token returned for it (SealedStateKey).
void KeepSealed(StateCache* states, absl::string_view token, uint64_t key_ring, std::unique_ptr<State> state) {
  if (states != nullptr) states->Add(KeptAs::kSealedToken, SealedStateKey(token, key_ring), std::move(state));
}

// Refuses a move the caller may not make now: the game is over, or another seat moves.
template <typename ApplyRequest>
absl::Status CheckMayMove(const State& state, const Caller& caller, const ApplyRequest& request) {
  if (state.finished()) return absl::FailedPreconditionError("the game is over; no move can be applied");
  if (!caller.owner() && caller.access.seat != state.to_move())
    return absl::PermissionDeniedError(absl::StrCat("it is seat ", state.to_move(),
                                                    "'s turn; this capability is seat ",
                                                    caller.access.seat, "'s"));
  if (!request.has_seat()) return absl::OkStatus();
  GAVEL_RETURN_IF_ERROR(CheckSeat(state, request.seat()));
  GAVEL_RETURN_IF_ERROR(CheckActsFor(caller, request.seat()));
  if (request.seat() != state.to_move())
    return absl::InvalidArgumentError(
        absl::StrCat("it is seat ", state.to_move(), "'s turn, not seat ", request.seat(), "'s"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> SealState(const State& state, const TokenHeader& header, const Sealer& sealer) {
  return sealer.Seal(header, StateMessage(state));
}

absl::StatusOr<TokenHeader> OpenToken(absl::string_view token, const Sealer& sealer, v1::GameState* full) {
  google::protobuf::Any* any = full->mutable_state();
  GAVEL_ASSIGN_OR_RETURN(const TokenHeader header, sealer.Open(token, any->mutable_value()));
  GAVEL_ASSIGN_OR_RETURN(const Game* game, GameNamed(header.game));
  full->set_game(header.game);
  any->set_type_url(game->info().state_type_url);
  return header;
}

std::string SealedStateKey(absl::string_view token, uint64_t key_ring) {
  std::string key;
  key.reserve(token.size() + sizeof key_ring);
  key.append(token.data(), token.size());
  for (size_t byte = 0; byte < sizeof key_ring; ++byte) key.push_back(static_cast<char>(key_ring >> (8 * byte)));
  return key;
}

ResponseTail& ReusedTail() {
  thread_local ResponseTail tail;
  // Field by field: assigning a new tail and moving the bytes back cost 54 more instructions.
  ClearReusedBuffer(&tail.bytes);
  tail.finished = false;
  tail.game = {};
  return tail;
}

size_t SizeWithTail(const google::protobuf::MessageLite& response, const ResponseTail& tail) {
  return response.ByteSizeLong() + tail.bytes.size();
}

uint8_t* WriteWithTail(const google::protobuf::MessageLite& response, const ResponseTail& tail, uint8_t* out) {
  uint8_t* end = response.SerializeWithCachedSizesToArray(out);
  std::memcpy(end, tail.bytes.data(), tail.bytes.size());
  return end + tail.bytes.size();
}

absl::Status ListGames(const v1::ListGamesRequest&, v1::ListGamesResponse* response) {
  for (const Game* game : AllGames()) FillInfo(game->info(), response->add_games());
  return absl::OkStatus();
}

absl::Status NewGame(const v1::NewGameRequest& request, v1::NewGameResponse* response,
                     const Sealer* sealer, ResponseTail* tail, StateCache* states) {
  if (request.seal() && sealer == nullptr)
    return absl::UnimplementedError("sealed states are not enabled on this server (--sealing_keys)");
  GAVEL_ASSIGN_OR_RETURN(auto game, GameNamed(request.game()));
  OptionMap options(request.options().begin(), request.options().end());
  EventLog& log = ReusedEventLog();
  GAVEL_ASSIGN_OR_RETURN(auto state,
                         game->NewGame(request.players(), request.seed(), options, &log));
  const Caller owner;
  ResponseTail own;
  ResponseTail& out = tail ? *tail : own;
  GAVEL_RETURN_IF_ERROR(FillIncluded(request.include(), *state, owner, response, out));
  const std::string& bytes = StateMessage(*state);
  uint64_t key_ring = 0;
  ByteRange game_state;
  if (request.seal()) {
    GAVEL_ASSIGN_OR_RETURN(key_ring, SealNewTable(*state, bytes, *sealer, response->mutable_sealed()));
  } else {
    game_state = AppendGameState(v1::NewGameResponse::kStateFieldNumber, *state, bytes, &out.bytes);
  }
  AppendStatus(*state, owner, v1::NewGameResponse::kStatusFieldNumber, &out.bytes);
  AppendEvents<v1::NewGameResponse>(log, state->seats(), request.per_seat_events(), owner, &out.bytes);
  if (request.seal()) KeepSealed(states, response->sealed().token(), key_ring, std::move(state));
  else Keep(states, out.bytes, game_state, std::move(state));
  return tail ? absl::OkStatus() : MergeTail(own, response);
}

namespace {

template <typename LegalMovesRequest>
absl::Status LegalMovesFor(const LegalMovesRequest& request, v1::LegalMovesResponse* response,
                           const Sealer* sealer, ResponseTail* tail, StateCache* states) {
  GAVEL_ASSIGN_OR_RETURN(auto opened, OpenState(request.state(), sealer, states, tail));
  const State& state = *opened.state;
  GAVEL_RETURN_IF_ERROR(CheckSeat(state, request.seat()));
  GAVEL_RETURN_IF_ERROR(CheckActsFor(opened.caller, request.seat()));
  ResponseTail own;
  ResponseTail& out = tail ? *tail : own;
  AppendStatus(state, opened.caller, v1::LegalMovesResponse::kStatusFieldNumber, &out.bytes);
  if (state.to_move() == request.seat())
    AppendLegalMoves(state, v1::LegalMovesResponse::kMovesFieldNumber, &out.bytes);
  return tail ? absl::OkStatus() : MergeTail(own, response);
}

}  // namespace

absl::Status LegalMoves(const v1::LegalMovesRequest& request, v1::LegalMovesResponse* response,
                        const Sealer* sealer, ResponseTail* tail, StateCache* states) {
  return LegalMovesFor(request, response, sealer, tail, states);
}

absl::Status LegalMoves(const LegalMovesRequestWire& request, v1::LegalMovesResponse* response,
                        const Sealer* sealer, ResponseTail* tail, StateCache* states) {
  return LegalMovesFor(request, response, sealer, tail, states);
}

namespace {

template <typename ApplyRequest>
absl::Status ApplyFor(const ApplyRequest& request, v1::ApplyResponse* response, const Sealer* sealer,
                      ResponseTail* tail, StateCache* states) {
  GAVEL_ASSIGN_OR_RETURN(auto opened, OpenState(request.state(), sealer, states, tail));
  State& state = *opened.state;
  const Caller& caller = opened.caller;
  GAVEL_RETURN_IF_ERROR(CheckMayMove(state, caller, request));
  if (!request.has_move()) return absl::InvalidArgumentError("the request carries no move");
  GAVEL_ASSIGN_OR_RETURN(auto move, state.game().ParseMove(request.move()));
  EventLog& log = ReusedEventLog();
  GAVEL_RETURN_IF_ERROR(state.Apply(move, &log));
  ResponseTail own;
  ResponseTail& out = tail ? *tail : own;
  GAVEL_RETURN_IF_ERROR(FillIncluded(request.include(), state, caller, response, out));
  const std::string& bytes = StateMessage(state);
  uint64_t key_ring = 0;
  ByteRange game_state;
  if (caller.sealed) {
    GAVEL_ASSIGN_OR_RETURN(key_ring, Reseal(bytes, caller.token, *sealer, response->mutable_token()));
  } else {
    game_state = AppendGameState(v1::ApplyResponse::kStateFieldNumber, state, bytes, &out.bytes);
  }
  AppendStatus(state, caller, v1::ApplyResponse::kStatusFieldNumber, &out.bytes);
  AppendEvents<v1::ApplyResponse>(log, state.seats(), request.per_seat_events(), caller, &out.bytes);
  out.finished = state.finished();
  if (caller.sealed) KeepSealed(states, response->token(), key_ring, std::move(opened.state));
  else Keep(states, out.bytes, game_state, std::move(opened.state));
  return tail ? absl::OkStatus() : MergeTail(own, response);
}

}  // namespace

absl::Status Apply(const v1::ApplyRequest& request, v1::ApplyResponse* response, const Sealer* sealer,
                   ResponseTail* tail, StateCache* states) {
  return ApplyFor(request, response, sealer, tail, states);
}

absl::Status Apply(const ApplyRequestWire& request, v1::ApplyResponse* response, const Sealer* sealer,
                   ResponseTail* tail, StateCache* states) {
  return ApplyFor(request, response, sealer, tail, states);
}

namespace {

template <typename ObserveRequest>
absl::Status ObserveFor(const ObserveRequest& request, v1::ObserveResponse* response, const Sealer* sealer,
                        ResponseTail* tail, StateCache* states) {
  GAVEL_ASSIGN_OR_RETURN(auto opened, OpenState(request.state(), sealer, states, tail));
  const State& state = *opened.state;
  GAVEL_RETURN_IF_ERROR(CheckSeat(state, request.seat()));
  GAVEL_RETURN_IF_ERROR(CheckActsFor(opened.caller, request.seat()));
  state.Observe(request.seat(), response->mutable_view());
  ResponseTail own;
  ResponseTail& out = tail ? *tail : own;
  AppendStatus(state, opened.caller, v1::ObserveResponse::kStatusFieldNumber, &out.bytes);
  return tail ? absl::OkStatus() : MergeTail(own, response);
}

}  // namespace

absl::Status Observe(const v1::ObserveRequest& request, v1::ObserveResponse* response,
                     const Sealer* sealer, StateCache* states) {
  return ObserveFor(request, response, sealer, nullptr, states);
}

absl::Status Observe(const ObserveRequestWire& request, v1::ObserveResponse* response,
                     const Sealer* sealer, ResponseTail* tail, StateCache* states) {
  return ObserveFor(request, response, sealer, tail, states);
}

absl::Status Resample(const v1::ResampleRequest& request, v1::ResampleResponse* response) {
  GAVEL_ASSIGN_OR_RETURN(auto game, GameNamed(request.view().game()));
  GAVEL_ASSIGN_OR_RETURN(auto state, game->Resample(request.view(), request.seed()));
  state->Serialize(response->mutable_state());
  return absl::OkStatus();
}

}  // namespace gavel::service
