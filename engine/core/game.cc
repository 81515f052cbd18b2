#include "engine/core/game.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "engine/core/hash.h"
#include "engine/core/status.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"

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

namespace {
using google::protobuf::io::CodedOutputStream;
using google::protobuf::internal::WireFormatLite;

// A length-delimited field's tag and length, fields numbered under 16 (one byte of tag).
uint8_t* WriteShortTag(int field, size_t size, uint8_t* out) {
  out = WireFormatLite::WriteTagToArray(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, out);
  return CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(size), out);
}
size_t ShortFieldSize(size_t size) { return 1 + CodedOutputStream::VarintSize32(static_cast<uint32_t>(size)) + size; }

// v1::Event's visible_to (packed; seats under 128 take a byte each): its bytes, the seats
// among 0..seats-1 in `audience`.
size_t VisibleToSize(SeatMask audience, int seats) {
  const int count = std::popcount(audience & ((SeatMask{1} << seats) - 1));
  return count == 0 ? 0 : ShortFieldSize(static_cast<size_t>(count));
}
uint8_t* WriteVisibleTo(SeatMask audience, int seats, uint8_t* out) {
  const int count = std::popcount(audience & ((SeatMask{1} << seats) - 1));
  if (count == 0) return out;
  out = WriteShortTag(v1::Event::kVisibleToFieldNumber, static_cast<size_t>(count), out);
  for (Seat seat = 0; seat < seats; ++seat)
    if (audience & OnlySeat(seat)) *out++ = static_cast<uint8_t>(seat);
  return out;
}

uint8_t* Grow(std::string* out, size_t size) {
  const size_t at = out->size();
  out->resize(at + size);
  return reinterpret_cast<uint8_t*>(out->data()) + at;
}
}  // namespace

// The bytes protobuf writes for v1::Event{detail, text}: detail (an Any: type URL, value)
// always, text unless empty.
void EventLog::Record(SeatMask audience, const std::string& type_url,
                      const google::protobuf::MessageLite& detail, absl::string_view text) {
  static_assert(v1::Event::kDetailFieldNumber < 16 && v1::Event::kTextFieldNumber < 16);
  const size_t value_size = detail.ByteSizeLong();
  const size_t any_size = ShortFieldSize(type_url.size()) + (value_size == 0 ? 0 : ShortFieldSize(value_size));
  const size_t size = ShortFieldSize(any_size) + (text.empty() ? 0 : ShortFieldSize(text.size()));
  if (bytes_.empty()) bytes_.reserve(1024);
  const uint32_t begin = static_cast<uint32_t>(bytes_.size());
  uint8_t* out = Grow(&bytes_, size);
  out = WriteShortTag(v1::Event::kDetailFieldNumber, any_size, out);
  out = WriteShortTag(google::protobuf::Any::kTypeUrlFieldNumber, type_url.size(), out);
  out = CodedOutputStream::WriteRawToArray(type_url.data(), static_cast<int>(type_url.size()), out);
  if (value_size != 0) {
    out = WriteShortTag(google::protobuf::Any::kValueFieldNumber, value_size, out);
    out = detail.SerializeWithCachedSizesToArray(out);
  }
  if (!text.empty()) {
    out = WriteShortTag(v1::Event::kTextFieldNumber, text.size(), out);
    CodedOutputStream::WriteRawToArray(text.data(), static_cast<int>(text.size()), out);
  }
  events_.push_back({begin, static_cast<uint32_t>(size), audience});
}

void EventLog::AppendAll(int field, int seats, std::string* out) const {
  const auto entry_size = [&](const Recorded& event) { return event.size + VisibleToSize(event.audience, seats); };
  const size_t tag_size = WireFormatLite::TagSize(field, WireFormatLite::TYPE_MESSAGE);
  size_t total = 0;
  for (const Recorded& event : events_) total += tag_size + WireFormatLite::LengthDelimitedSize(entry_size(event));
  uint8_t* to = Grow(out, total);  // one resize for all: a call's events are a few hundred bytes
  for (const Recorded& event : events_) {
    to = WireFormatLite::WriteTagToArray(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, to);
    to = CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(entry_size(event)), to);
    to = CodedOutputStream::WriteRawToArray(bytes_.data() + event.begin, static_cast<int>(event.size), to);
    to = WriteVisibleTo(event.audience, seats, to);
  }
}

void EventLog::AppendSeatEvents(int field, Seat seat, std::string* out) const {
  static_assert(v1::SeatEvents::kSeatFieldNumber < 16 && v1::SeatEvents::kEventsFieldNumber < 16);
  size_t size = seat == 0 ? 0 : 1 + CodedOutputStream::VarintSize32SignExtended(seat);
  for (const Recorded& event : events_)
    if (Sees(seat, event)) size += ShortFieldSize(event.size);
  AppendLengthDelimited(field, size, [&](uint8_t* to) {
    if (seat != 0) to = WireFormatLite::WriteInt32ToArray(v1::SeatEvents::kSeatFieldNumber, seat, to);
    for (const Recorded& event : events_) {
      if (!Sees(seat, event)) continue;
      to = WriteShortTag(v1::SeatEvents::kEventsFieldNumber, event.size, to);
      to = CodedOutputStream::WriteRawToArray(bytes_.data() + event.begin, static_cast<int>(event.size), to);
    }
  }, out);
}

std::vector<v1::Event> EventLog::All(int seats) const {
  std::vector<v1::Event> all(events_.size());
  for (size_t i = 0; i < events_.size(); ++i) {
    const std::string_view fields = Fields(events_[i]);
    all[i].ParseFromArray(fields.data(), static_cast<int>(fields.size()));
    for (Seat seat = 0; seat < seats; ++seat)
      if (events_[i].audience & OnlySeat(seat)) all[i].add_visible_to(seat);
  }
  return all;
}

std::vector<v1::Event> EventLog::Where(absl::FunctionRef<bool(const Recorded&)> sees) const {
  std::vector<v1::Event> visible;
  for (const Recorded& event : events_)
    if (sees(event)) visible.emplace_back().ParseFromArray(bytes_.data() + event.begin, static_cast<int>(event.size));
  return visible;
}

std::vector<v1::Event> EventLog::ForSeat(Seat seat) const {
  return Where([this, seat](const Recorded& event) { return Sees(seat, event); });
}

std::vector<v1::Event> EventLog::ForSpectator() const {
  return Where([](const Recorded& event) { return SpectatorSees(event.audience); });
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

namespace {

class ViewResampler : public Resampler {
 public:
  ViewResampler(const Game& game, const v1::View& view) : game_(game), view_(view) {}
  absl::StatusOr<std::unique_ptr<State>> Draw(uint64_t seed) const override {
    return game_.Resample(view_, seed);
  }

 private:
  const Game& game_;
  const v1::View view_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Resampler>> Game::MakeResampler(const v1::View& view) const {
  return std::make_unique<ViewResampler>(*this, view);
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
