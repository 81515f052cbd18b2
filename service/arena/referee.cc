#include "service/arena/referee.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/core/hash.h"
#include "engine/core/rng.h"
#include "engine/core/status.h"
#include "spdlog/spdlog.h"

#ifndef GAVEL_VERSION
#define GAVEL_VERSION "unknown"
#endif

namespace gavel::arena {
namespace {

using Clock = std::chrono::steady_clock;

// The fallback's move: uniform over the legal moves from a generator seeded by the match
// seed and the move number.
uint32_t FallbackMove(uint64_t seed, size_t ply, const Moves& legal) {
  Rng rng(Rng::FromSeed(seed ^ (0x9E3779B97F4A7C15ull * (ply + 1))));
  return legal.Get(static_cast<int>(rng.Below(legal.size()))).id();
}

bool IsLegal(uint32_t id, const Moves& legal) {
  for (const v1::Move& move : legal)
    if (move.id() == id) return true;
  return false;
}

// What the referee needs after each engine call: the next mover's legal moves and view, and
// the new state's hash for the replay. One engine call per move.
v1::Include NextTurn() {
  v1::Include include;
  include.set_legal_moves(true);
  include.set_mover_view(true);
  include.set_state_hash(true);
  return include;
}

template <typename Response>
Referee::Turn TurnOf(Response& response) {
  Referee::Turn turn;
  turn.legal = std::move(*response.mutable_legal_moves());
  if (response.views_size() > 0) turn.view = std::move(*response.mutable_views(0));
  return turn;
}

std::string HashText(uint64_t hash) { return absl::StrFormat("%016x", hash); }

}  // namespace

std::string BytesHash(const std::string& bytes) { return HashText(Fnv1a64(bytes)); }

absl::StatusOr<MatchRecord> Referee::Play(
    const MatchPlan& plan, const std::function<absl::Status(const MatchRecord&)>& finish) {
  v1::NewGameRequest request;
  request.set_game(plan.game);
  request.set_players(static_cast<int>(plan.bots.size()));
  request.set_seed(plan.seed);
  for (const auto& [name, value] : plan.options) (*request.mutable_options())[name] = value;
  *request.mutable_include() = NextTurn();
  v1::NewGameResponse created;
  GAVEL_RETURN_IF_ERROR(engine_->NewGame(request, &created));
  v1::GameState state = std::move(*created.mutable_state());
  v1::GameStatus status = created.status();
  Turn turn = TurnOf(created);

  MatchRecord match;
  match.tournament_id = plan.tournament_id;
  match.game = plan.game;
  match.players = static_cast<int>(plan.bots.size());
  match.seed = plan.seed;
  match.options = plan.options;
  match.engine_version = GAVEL_VERSION;
  match.initial_hash = HashText(created.state_hash());
  std::vector<Seat> seats(status.seats());
  size_t next_bot = 0;
  for (int seat = 0; seat < status.seats(); ++seat) {
    if (status.results(seat).automaton() || next_bot == plan.bots.size()) continue;
    seats[seat].bot = plan.bots[next_bot++];
    seats[seat].bank_ms = options_.bank_ms;
  }
  for (const Seat& seat : seats) match.bots.push_back(seat.bot);
  GAVEL_RETURN_IF_ERROR(store_->StartMatch(&match));
  if (metrics_) metrics_->MatchStarted(plan.game);
  if (live_) live_->Begin(match);
  struct InProgress {  // ends the match in the metrics and the live view on every return
    ArenaMetrics* metrics;
    LiveMatches* live;
    const std::string& game;
    int64_t id;
    bool finished = false;
    ~InProgress() {
      if (metrics) metrics->MatchEnded(game, finished);
      if (live) live->End(id);
    }
  } in_progress{metrics_, live_, plan.game, match.id};

  while (!status.finished()) {
    const int seat = status.to_move();
    auto move = Decide(match, seat, seats[seat], turn);
    if (!move.ok()) return move.status();
    v1::ApplyRequest apply;
    *apply.mutable_state()->mutable_full() = std::move(state);
    apply.mutable_move()->set_id(move->move_id);
    apply.set_seat(seat);
    *apply.mutable_include() = NextTurn();
    v1::ApplyResponse applied;
    GAVEL_RETURN_IF_ERROR(engine_->Apply(apply, &applied));
    state = std::move(*applied.mutable_state());
    status = applied.status();
    turn = TurnOf(applied);
    move->state_hash = HashText(applied.state_hash());
    match.moves.push_back(*move);
    if (live_) live_->Append(match.id, *move);
  }
  match.finished = true;
  for (const v1::SeatResult& result : status.results()) {
    match.scores.push_back(result.score());
    match.ranks.push_back(result.rank());
  }
  for (const Seat& seat : seats) match.strikes.push_back(seat.strikes);
  GAVEL_RETURN_IF_ERROR(finish ? finish(match) : store_->FinishMatch(match));
  in_progress.finished = true;
  SendResults(match, status);
  return match;
}

absl::StatusOr<MoveRecord> Referee::Decide(const MatchRecord& match, int seat, Seat& player,
                                           Turn& turn) {
  const Moves& legal = turn.legal;
  if (legal.empty() || turn.view.seat() != seat)
    return absl::InternalError(absl::StrCat("the engine gave seat ", seat, " no legal move or view"));
  MoveRecord move;
  move.seat = seat;
  TurnAnswer answer;
  if (player.bot.empty()) {
    answer.status = v1::MOVE_STATUS_REPLACED;  // an automaton seat the engine left to us
  } else if (player.strikes >= options_.max_strikes) {
    answer.status = v1::MOVE_STATUS_REPLACED;
  } else {
    auto asked = AskBot(match, seat, player, turn);
    if (!asked.ok()) return asked.status();
    answer = *asked;
    if (answer.status == v1::MOVE_STATUS_OK && !IsLegal(answer.move_id, legal))
      answer.status = v1::MOVE_STATUS_INVALID;
    if (answer.status != v1::MOVE_STATUS_OK) {
      ++player.strikes;
      if (metrics_) metrics_->BotFault(match.game, answer.status);
      spdlog::info("match {}: {} (seat {}) {} at move {}", match.id, player.bot, seat,
                   v1::MoveStatus_Name(answer.status), match.moves.size());
    }
  }
  move.status = answer.status;
  move.move_id = answer.status == v1::MOVE_STATUS_OK
                     ? answer.move_id
                     : FallbackMove(match.seed, match.moves.size(), legal);
  return move;
}

absl::StatusOr<TurnAnswer> Referee::AskBot(const MatchRecord& match, int seat, Seat& player,
                                           Turn& turn) {
  std::shared_ptr<BotConnection> bot = hub_->Find(player.bot);
  if (!bot) return TurnAnswer{v1::MOVE_STATUS_DISCONNECTED, 0};

  v1::TurnRequest request;
  request.set_match_id(absl::StrCat(match.id));
  request.set_game(match.game);
  request.set_seat(seat);
  request.set_ply(static_cast<uint32_t>(match.moves.size()));
  *request.mutable_view() = std::move(turn.view);  // asked once per turn
  *request.mutable_legal_moves() = turn.legal;
  request.mutable_time()->set_move_ms(options_.move_ms);
  request.mutable_time()->set_bank_ms(static_cast<uint32_t>(player.bank_ms));
  const Clock::time_point start = Clock::now();
  const TurnAnswer answer = bot->Ask(
      std::move(request), start + std::chrono::milliseconds(options_.move_ms + player.bank_ms));
  const int64_t used_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  player.bank_ms = answer.status == v1::MOVE_STATUS_TIMEOUT
                       ? 0
                       : std::max<int64_t>(0, player.bank_ms - std::max<int64_t>(0, used_ms - options_.move_ms));
  return answer;
}

void Referee::SendResults(const MatchRecord& match, const v1::GameStatus& status) {
  v1::ArenaMessage message;
  v1::MatchResult& result = *message.mutable_result();
  result.set_match_id(absl::StrCat(match.id));
  result.set_game(match.game);
  for (const std::string& bot : match.bots) result.add_players(bot);
  *result.mutable_results() = status.results();
  for (int strikes : match.strikes) result.add_strikes(strikes);
  std::set<std::string> told;
  for (const std::string& name : match.bots) {
    if (name.empty() || !told.insert(name).second) continue;
    std::shared_ptr<BotConnection> bot = hub_->Find(name);
    if (!bot) continue;
    v1::ArenaMessage own = message;
    for (size_t seat = 0; seat < match.bots.size(); ++seat)
      if (match.bots[seat] == name) own.mutable_result()->add_seats(static_cast<int>(seat));
    bot->Send(own);
  }
}

}  // namespace gavel::arena
