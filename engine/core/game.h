#pragma once
// The game interface every game implements. A Game describes a game and creates and
// decodes States; a State is one position, with the rules as its methods.
//
// Principles (docs/design.md):
// - Apply is a pure function of (state, move): all chance is drawn inside from the RNG
//   stored in the state.
// - Exactly one seat decides in every non-terminal state.
// - Moves are atomic and encoded as compact per-game ids.
// - Observe is the one view filter: everything sent to a seat is built from its view.
// - Every incoming state is untrusted: Game::Deserialize validates it completely.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/core/options.h"
#include "engine/core/proto_util.h"
#include "engine/core/types.h"
#include "gavel/v1/engine.pb.h"
#include "google/protobuf/arena.h"

namespace google::protobuf {
class Any;
class Arena;
class Message;
}  // namespace google::protobuf

namespace gavel {

class Game;

// Receives the events of NewGame / Apply. A game emits an event only when a sink is
// given, so the hot path (random play, search) pays nothing for them.
class EventSink {
 public:
  virtual ~EventSink() = default;
  // `audience`: the seats allowed to see this event. An event with hidden content is
  // emitted twice, the full form to its owner and a redacted form to everybody else.
  // `text` is copied: a temporary or a string used again may be given alike.
  template <typename Detail>
  void Emit(SeatMask audience, const Detail& detail, absl::string_view text) {
    Record(audience, TypeUrl<Detail>(), detail, text);
  }

 protected:
  // `type_url`: the detail's, as an Any carries it (built once per message type, not per event).
  virtual void Record(SeatMask audience, const std::string& type_url,
                      const google::protobuf::MessageLite& detail, absl::string_view text) = 0;
};

// The arena event drafts are built on: one per thread, reset now and then when no draft is open.
class EventScratch {
 public:
  static google::protobuf::Arena& Open();
  static void Close();
};

// An event's detail message while a game builds it, on the thread's event arena instead of
// the heap, where its message, each part and each list took an allocation of their own
// (the events were most of a call's allocations). Lives no longer than the scope it is
// built in: Emit serializes it.
template <typename Message>
class EventDraft {
 public:
  EventDraft() : message_(google::protobuf::Arena::CreateMessage<Message>(&EventScratch::Open())) {}
  ~EventDraft() { EventScratch::Close(); }
  EventDraft(const EventDraft&) = delete;
  EventDraft& operator=(const EventDraft&) = delete;
  Message& operator*() { return *message_; }
  Message* operator->() { return message_; }

 private:
  Message* message_;
};

// Collects events as their wire bytes: each event's detail and text are written once, when
// the game emits it, and copied into a response's fields by the service (building them as
// Event messages first took a third to a half of an Apply call's instructions).
class EventLog : public EventSink {
 public:
  // Appends every event as an entry of the repeated Event field `field`, with `visible_to`
  // listing the seats among 0..seats-1 that may see it.
  void AppendAll(int field, int seats, std::string* out) const;
  // Appends a SeatEvents message as an entry of field `field`: `seat` and the events it may
  // see (without `visible_to`). Goes only by the audience the game declared.
  void AppendSeatEvents(int field, Seat seat, std::string* out) const;
  // The same as messages, for tests and logs.
  std::vector<v1::Event> All(int seats) const;
  std::vector<v1::Event> ForSeat(Seat seat) const;
  // The events a spectator may see: those to every seat and the public forms (SpectatorSees).
  std::vector<v1::Event> ForSpectator() const;
  size_t size() const { return events_.size(); }
  // Forgets every event, keeping the buffer for a log reused from call to call.
  void Clear() {
    ClearReusedBuffer(&bytes_);
    events_.clear();
  }

 private:
  struct Recorded {
    uint32_t begin, size;  // the Event's fields in `bytes_`, visible_to left out
    SeatMask audience;
  };
  bool Sees(Seat seat, const Recorded& event) const {
    return seat >= 0 && seat < kMaxSeats && (event.audience & OnlySeat(seat));
  }
  std::vector<v1::Event> Where(absl::FunctionRef<bool(const Recorded&)> sees) const;
  std::string_view Fields(const Recorded& event) const { return std::string_view(bytes_).substr(event.begin, event.size); }
  void Record(SeatMask audience, const std::string& type_url, const google::protobuf::MessageLite& detail,
              absl::string_view text) override;

  std::string bytes_;
  absl::InlinedVector<Recorded, 16> events_;  // a move's events fit without an allocation
};

// One value per seat, held inline: the service asks for the outcome in every call and the
// searches at the end of every play-out, so it must not allocate.
template <typename T>
using PerSeat = absl::InlinedVector<T, kMaxSeats>;

// Score and place of every seat. Ranks are 1-based; equal ranks share a place.
struct Outcome {
  PerSeat<double> scores;
  PerSeat<int> ranks;  // all 0 until the game is finished
};

// Learning features computed from a view only (never from a full state).
struct Features {
  std::vector<float> observation;
  int move_size = 0;
  std::vector<float> moves;  // move_size floats per move, in the order given
};

struct GameInfo {
  std::string name;
  std::string display_name;
  int min_players = 0;
  int max_players = 0;
  std::vector<OptionSpec> options;
  std::string players_note;
  // The type URL of the game's state message, which GameState.state packs (a sealed token
  // carries only that message; the server re-wraps it when it opens the token).
  std::string state_type_url;
};

class State {
 public:
  virtual ~State() = default;

  virtual const Game& game() const = 0;
  virtual std::unique_ptr<State> Clone() const = 0;

  // All seats, automated participants included.
  virtual int seats() const = 0;
  // The one seat to decide now, or kNoSeat when the game is over.
  virtual Seat to_move() const = 0;
  bool finished() const { return to_move() == kNoSeat; }
  // A seat whose decisions the rules make (Moonlight Market's Dirk and Beate).
  virtual bool IsAutomaton(Seat) const { return false; }
  // The player count the table was created with: the seats less the automata.
  virtual int players() const { return seats(); }

  // The legal moves of the seat to move (none when finished), replacing `out`'s content.
  virtual void LegalMoves(std::vector<Move>& out) const = 0;
  virtual bool IsLegal(Move move) const;

  // Applies a move that IsLegal accepted, then resolves the chance that follows.
  virtual void ApplyLegal(Move move, EventSink* events) = 0;
  // Checked Apply: FAILED_PRECONDITION when finished, INVALID_ARGUMENT for an illegal
  // move; the state is unchanged on error.
  absl::Status Apply(Move move, EventSink* events = nullptr);

  virtual Outcome outcome() const = 0;

  virtual std::string MoveText(Move move) const = 0;
  // The game's move message for `move`, packed.
  virtual void MoveDetail(Move move, google::protobuf::Any* detail) const = 0;
  // The serialized v1::Move of `move` (its id, MoveDetail and MoveText) when the game keeps
  // it ready because it depends on the id alone (engine/core/encoded_moves.h), else empty.
  virtual absl::string_view EncodedMove(Move) const { return {}; }

  // The full state, hidden information and RNG included, for trusted callers.
  virtual void Serialize(v1::GameState* out) const = 0;
  // THE view filter: what `seat` may know, nothing else. The envelope (game, seat, number
  // of seats) is the core's; the game's own view message comes from PackView.
  void Observe(Seat seat, v1::View* out) const;
  // The spectator's view: the same filter for a viewer who holds no seat (View.seat is
  // kNoSeat), so it shows only what no seat holds privately. The arena's pages show it.
  void ObserveAsSpectator(v1::View* out) const { Observe(kNoSeat, out); }

  // Canonical bytes of the full state (deterministic serialization).
  // Built on `arena` when given (a server call's arena), else on the heap.
  std::string Bytes(google::protobuf::Arena* arena = nullptr) const;
  // FNV-1a 64 of Bytes(): what replays record after every move.
  uint64_t Hash() const;
  // A game whose state message changed form: the version Serialize writes, and the full state
  // in any version from 1 on (the engine reads them all). Games with one form keep these.
  virtual int FormatVersion() const { return 1; }
  virtual void SerializeFormat(int /*version*/, v1::GameState* out) const { Serialize(out); }
  // The full state in the format version its game wrote `versions_back` versions before the
  // current one (1: the previous), false where the game has no such version; and the
  // canonical bytes of that format (empty then). Records made before the current format keep
  // their hashes of those bytes.
  bool SerializeEarlierFormat(int versions_back, v1::GameState* out) const;
  std::string EarlierFormatBytes(int versions_back) const;

 protected:
  // The game's view message for `seat` (e.g. gavel.v1.SultanView), packed into `out`.
  // `seat` may be kNoSeat: the spectator, who sees nothing private of any seat.
  virtual void PackView(Seat seat, google::protobuf::Any* out) const = 0;
};

// Full states consistent with one view, drawn one after another: a search draws thousands
// from the same view, which a game's own resampler decodes and checks once, when it is made.
class Resampler {
 public:
  virtual ~Resampler() = default;
  // The same state as Game::Resample(view, seed).
  virtual absl::StatusOr<std::unique_ptr<State>> Draw(uint64_t seed) const = 0;
};

class Game {
 public:
  virtual ~Game() = default;
  virtual const GameInfo& info() const = 0;
  const std::string& name() const { return info().name; }

  // Checks the player count and options, then creates the game.
  absl::StatusOr<std::unique_ptr<State>> NewGame(int players, uint64_t seed,
                                                 const OptionMap& options,
                                                 EventSink* events = nullptr) const;

  // Decodes and fully validates an untrusted state (ranges, component conservation,
  // phase consistency). The message says what is wrong.
  virtual absl::StatusOr<std::unique_ptr<State>> Deserialize(const v1::GameState& proto) const;

  // The move a client sent: by id, by detail, or both (they must agree). Does not check
  // legality; State::Apply does.
  absl::StatusOr<Move> ParseMove(const v1::Move& move) const;

  // A full state consistent with `view`: hidden information of the other seats and all
  // future chance re-drawn from `seed`.
  virtual absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view,
                                                          uint64_t seed) const = 0;
  // Draws Resample(view, seed) for many seeds. A game may refuse a malformed view here or at
  // each draw, which checks its state as Resample does. By default each draw is a Resample
  // of a copy of `view`.
  virtual absl::StatusOr<std::unique_ptr<Resampler>> MakeResampler(const v1::View& view) const;

  // Observation features of a view and move features of the given moves.
  virtual absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                                 Features* out) const = 0;

 protected:
  // Creates a game with checked players and options.
  virtual absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed,
                                                        const Options& options,
                                                        EventSink* events) const = 0;
  // Decodes a game-specific state message (already unpacked from GameState).
  virtual absl::StatusOr<std::unique_ptr<State>> DecodeState(
      const google::protobuf::Any& state) const = 0;
  // Decodes the game's move message into a move id.
  virtual absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const = 0;
};

}  // namespace gavel
