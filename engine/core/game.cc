#include "engine/core/game.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "engine/core/hash.h"
#include "engine/core/status.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace gavel {

namespace {

struct EventArena {
  static google::protobuf::ArenaOptions FirstBlock(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = sizeof(first_block);
    return options;
  }
  // Resetting an arena costs more than a few heap allocations, so it is reset only after
  // this many drafts, whose messages fit in the first block.
  static constexpr int kDraftsPerReset = 32;
  alignas(16) char first_block[16384];
  google::protobuf::Arena arena{FirstBlock(first_block)};
  int open_drafts = 0;
  int drafts_since_reset = 0;
};

EventArena& ThreadEventArena() {
  thread_local EventArena events;
  return events;
}

}  // namespace

google::protobuf::Arena& EventScratch::Open() {
  EventArena& events = ThreadEventArena();
  ++events.open_drafts;
  return events.arena;
}

void EventScratch::Close() {
  EventArena& events = ThreadEventArena();
  if (--events.open_drafts == 0 && ++events.drafts_since_reset == EventArena::kDraftsPerReset) {
    events.arena.Reset();
    events.drafts_since_reset = 0;
  }
}

void EventLog::Record(SeatMask audience, const std::string& type_url,
                      const google::protobuf::MessageLite& detail, std::string text) {
  v1::Event& event = *events_.Add();
  google::protobuf::Any* packed = event.mutable_detail();  // as Any::PackFrom packs it
  packed->set_type_url(type_url);
  detail.SerializeToString(packed->mutable_value());
  event.set_text(std::move(text));
  audiences_.push_back(audience);
}

void EventLog::MoveAllTo(int seats, google::protobuf::RepeatedPtrField<v1::Event>* out) {
  const SeatMask all_seats = (SeatMask{1} << seats) - 1;
  for (int i = 0; i < events_.size(); ++i) {
    auto* visible_to = events_[i].mutable_visible_to();
    visible_to->Reserve(std::popcount(audiences_[i] & all_seats));
    for (Seat seat = 0; seat < seats; ++seat)
      if (audiences_[i] & OnlySeat(seat)) visible_to->Add(seat);
  }
  if (out->empty()) {
    out->Swap(&events_);  // free when both live on the same arena
  } else {
    out->MergeFrom(events_);
  }
  events_.Clear();
  audiences_.clear();
}

std::vector<v1::Event> EventLog::All(int seats) const {
  std::vector<v1::Event> all(events_.begin(), events_.end());
  for (size_t i = 0; i < all.size(); ++i)
    for (Seat seat = 0; seat < seats; ++seat)
      if (audiences_[i] & OnlySeat(seat)) all[i].add_visible_to(seat);
  return all;
}

std::vector<v1::Event> EventLog::ForSeat(Seat seat) const {
  std::vector<v1::Event> visible;
  ForEachVisible(seat, [&](int i) { visible.push_back(events_[i]); });
  return visible;
}

void EventLog::AppendForSeat(Seat seat, google::protobuf::RepeatedPtrField<v1::Event>* out) const {
  ForEachVisible(seat, [&](int i) { *out->Add() = events_[i]; });
}

void EventLog::MoveForSeatTo(Seat seat, google::protobuf::RepeatedPtrField<v1::Event>* out) {
  ForEachVisible(seat, [&](int i) { out->Add()->Swap(events_.Mutable(i)); });
  events_.Clear();
  audiences_.clear();
}

bool State::IsLegal(Move move) const {
  std::vector<Move> legal;
  LegalMoves(legal);
  return std::find(legal.begin(), legal.end(), move) != legal.end();
}

absl::Status State::Apply(Move move, EventSink* events) {
  if (finished()) return absl::FailedPreconditionError("the game is over; no move can be applied");
  if (!IsLegal(move)) {
    return absl::InvalidArgumentError(absl::StrCat("move ", move.id, " (", MoveText(move),
                                                   ") is not legal for seat ", to_move(),
                                                   " now"));
  }
  ApplyLegal(move, events);
  return absl::OkStatus();
}

void State::Observe(Seat seat, v1::View* out) const {
  out->set_game(game().name());
  out->set_seat(seat);
  out->set_seats(seats());
  out->set_players(players());
  PackView(seat, out->mutable_view());
}

namespace {

std::string DeterministicBytes(const v1::GameState& proto) {
  // Sized once, written in place: a growing string would be zero-filled and copied as it grows.
  std::string bytes(proto.ByteSizeLong(), '\0');
  {  // the stream writes its last bytes when it closes
    google::protobuf::io::ArrayOutputStream stream(bytes.data(), static_cast<int>(bytes.size()));
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    proto.SerializeWithCachedSizes(&coded);
  }
  return bytes;
}

}  // namespace

std::string State::Bytes(google::protobuf::Arena* arena) const {
  auto* proto = google::protobuf::Arena::CreateMessage<v1::GameState>(arena);
  Serialize(proto);
  std::string bytes = DeterministicBytes(*proto);
  if (arena == nullptr) delete proto;
  return bytes;
}

bool State::SerializeEarlierFormat(int versions_back, v1::GameState* out) const {
  const int version = FormatVersion() - versions_back;
  if (versions_back < 1 || version < 1) return false;
  SerializeFormat(version, out);
  return true;
}

std::string State::EarlierFormatBytes(int versions_back) const {
  v1::GameState proto;
  return SerializeEarlierFormat(versions_back, &proto) ? DeterministicBytes(proto) : std::string();
}

uint64_t State::Hash() const { return Fnv1a64(Bytes()); }

absl::StatusOr<std::unique_ptr<State>> Game::NewGame(int players, uint64_t seed,
                                                     const OptionMap& options,
                                                     EventSink* events) const {
  const GameInfo& game = info();
  if (players < game.min_players || players > game.max_players) {
    return absl::InvalidArgumentError(absl::StrCat(game.name, " is played by ", game.min_players,
                                                   " to ", game.max_players,
                                                   " players, not ", players));
  }
  GAVEL_ASSIGN_OR_RETURN(const Options resolved, Options::Resolve(game.options, options));
  return Create(players, seed, resolved, events);
}

absl::StatusOr<std::unique_ptr<State>> Game::Deserialize(const v1::GameState& proto) const {
  if (proto.game() != name()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the state is of game '", proto.game(), "', not ", name()));
  }
  if (!proto.has_state()) return absl::InvalidArgumentError("the state holds no game data");
  return DecodeState(proto.state());
}

absl::StatusOr<Move> Game::ParseMove(const v1::Move& move) const {
  if (!move.has_detail()) return Move{move.id()};
  GAVEL_ASSIGN_OR_RETURN(const Move decoded, DecodeMove(move.detail()));
  if (move.id() != 0 && decoded.id != move.id()) {
    return absl::InvalidArgumentError(absl::StrCat("the move's id ", move.id(),
                                                   " does not match its detail (id ",
                                                   decoded.id, ")"));
  }
  return decoded;
}

}  // namespace gavel
