#include "service/engine_handler.h"

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/core/status.h"

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

// Decodes and validates the state a request carries.
absl::StatusOr<std::unique_ptr<State>> OpenState(const v1::StateRef& ref) {
  switch (ref.form_case()) {
    case v1::StateRef::kFull:
      break;
    case v1::StateRef::kSealed:
      return absl::UnimplementedError("sealed states are not enabled on this server");
    case v1::StateRef::FORM_NOT_SET:
      return absl::InvalidArgumentError("the request carries no state");
  }
  GAVEL_ASSIGN_OR_RETURN(auto game, GameNamed(ref.full().game()));
  return game->Deserialize(ref.full());
}

absl::Status CheckSeat(const State& state, int seat) {
  if (seat < 0 || seat >= state.seats())
    return absl::InvalidArgumentError(
        absl::StrCat("seat ", seat, " is out of range; this game has seats 0 to ", state.seats() - 1));
  return absl::OkStatus();
}

void FillStatus(const State& state, v1::GameStatus* status) {
  status->set_finished(state.finished());
  status->set_to_move(state.to_move());
  status->set_seats(state.seats());
  const Outcome outcome = state.outcome();
  for (Seat seat = 0; seat < state.seats(); ++seat) {
    auto* result = status->add_results();
    result->set_seat(seat);
    result->set_score(outcome.scores[seat]);
    result->set_rank(outcome.ranks[seat]);
    result->set_automaton(state.IsAutomaton(seat));
  }
}

// The moves of the seat to move, with id, detail and text.
void AddLegalMoves(const State& state, google::protobuf::RepeatedPtrField<v1::Move>* out) {
  std::vector<Move> moves;
  state.LegalMoves(moves);
  out->Reserve(static_cast<int>(moves.size()));
  for (Move move : moves) {
    v1::Move* described = out->Add();
    described->set_id(move.id);
    state.MoveDetail(move, described->mutable_detail());
    described->set_text(state.MoveText(move));
  }
}

// The seats whose views `include` asks for; an error names a seat out of range.
absl::StatusOr<SeatMask> ViewSeats(const v1::Include& include, const State& state) {
  SeatMask seats = 0;
  if (include.all_views()) seats = (SeatMask{1} << state.seats()) - 1;
  if (include.mover_view() && !state.finished()) seats |= OnlySeat(state.to_move());
  for (int seat : include.view_seats()) {
    GAVEL_RETURN_IF_ERROR(CheckSeat(state, seat));
    seats |= OnlySeat(seat);
  }
  return seats;
}

// What `include` asks for about the new state: the mover's legal moves, views, the hash.
template <typename Response>
absl::Status FillIncluded(const v1::Include& include, const State& state, Response* response) {
  GAVEL_ASSIGN_OR_RETURN(const SeatMask view_seats, ViewSeats(include, state));
  if (include.legal_moves() && !state.finished())
    AddLegalMoves(state, response->mutable_legal_moves());
  for (Seat seat = 0; seat < state.seats(); ++seat)
    if (view_seats & OnlySeat(seat)) state.Observe(seat, response->add_views());
  if (include.state_hash()) response->set_state_hash(state.Hash());
  return absl::OkStatus();
}

template <typename Response>
void FillEvents(EventLog& log, int seats, bool per_seat, Response* response) {
  if (per_seat) {
    for (Seat seat = 0; seat < seats; ++seat) {
      auto* seat_events = response->add_seat_events();
      seat_events->set_seat(seat);
      for (v1::Event& event : log.ForSeat(seat)) seat_events->add_events()->Swap(&event);
    }
  }
  log.MoveAllTo(seats, response->mutable_events());
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

}  // namespace

absl::Status ListGames(const v1::ListGamesRequest&, v1::ListGamesResponse* response) {
  for (const Game* game : AllGames()) FillInfo(game->info(), response->add_games());
  return absl::OkStatus();
}

absl::Status NewGame(const v1::NewGameRequest& request, v1::NewGameResponse* response) {
  GAVEL_ASSIGN_OR_RETURN(auto game, GameNamed(request.game()));
  OptionMap options(request.options().begin(), request.options().end());
  EventLog log(response->GetArena());
  GAVEL_ASSIGN_OR_RETURN(auto state,
                         game->NewGame(request.players(), request.seed(), options, &log));
  GAVEL_RETURN_IF_ERROR(FillIncluded(request.include(), *state, response));
  state->Serialize(response->mutable_state());
  FillStatus(*state, response->mutable_status());
  FillEvents(log, state->seats(), request.per_seat_events(), response);
  return absl::OkStatus();
}

absl::Status LegalMoves(const v1::LegalMovesRequest& request, v1::LegalMovesResponse* response) {
  GAVEL_ASSIGN_OR_RETURN(auto state, OpenState(request.state()));
  GAVEL_RETURN_IF_ERROR(CheckSeat(*state, request.seat()));
  FillStatus(*state, response->mutable_status());
  if (state->to_move() == request.seat()) AddLegalMoves(*state, response->mutable_moves());
  return absl::OkStatus();
}

absl::Status Apply(const v1::ApplyRequest& request, v1::ApplyResponse* response) {
  GAVEL_ASSIGN_OR_RETURN(auto state, OpenState(request.state()));
  State& game_state = *state;
  if (game_state.finished())
    return absl::FailedPreconditionError("the game is over; no move can be applied");
  if (request.has_seat()) {
    GAVEL_RETURN_IF_ERROR(CheckSeat(game_state, request.seat()));
    if (request.seat() != game_state.to_move())
      return absl::InvalidArgumentError(absl::StrCat("it is seat ", game_state.to_move(),
                                                     "'s turn, not seat ", request.seat(), "'s"));
  }
  if (!request.has_move()) return absl::InvalidArgumentError("the request carries no move");
  GAVEL_ASSIGN_OR_RETURN(auto move, game_state.game().ParseMove(request.move()));
  EventLog log(response->GetArena());
  GAVEL_RETURN_IF_ERROR(game_state.Apply(move, &log));
  GAVEL_RETURN_IF_ERROR(FillIncluded(request.include(), game_state, response));
  game_state.Serialize(response->mutable_state());
  FillStatus(game_state, response->mutable_status());
  FillEvents(log, game_state.seats(), request.per_seat_events(), response);
  return absl::OkStatus();
}

absl::Status Observe(const v1::ObserveRequest& request, v1::ObserveResponse* response) {
  GAVEL_ASSIGN_OR_RETURN(auto state, OpenState(request.state()));
  GAVEL_RETURN_IF_ERROR(CheckSeat(*state, request.seat()));
  state->Observe(request.seat(), response->mutable_view());
  FillStatus(*state, response->mutable_status());
  return absl::OkStatus();
}

absl::Status Resample(const v1::ResampleRequest& request, v1::ResampleResponse* response) {
  GAVEL_ASSIGN_OR_RETURN(auto game, GameNamed(request.view().game()));
  GAVEL_ASSIGN_OR_RETURN(auto state, game->Resample(request.view(), request.seed()));
  state->Serialize(response->mutable_state());
  return absl::OkStatus();
}

}  // namespace gavel::service
