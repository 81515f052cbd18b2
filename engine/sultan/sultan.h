#pragma once
// Sultan (docs/rules/sultan.md): bid face-down money cards for jewels on cushions.
#include <array>
#include <cstdint>

#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel::sultan {

// Jewel colours in canonical order; points = colour + 1.
enum Colour : uint8_t { kWhite, kRed, kYellow, kGreen, kBlue };
inline constexpr int kColours = 5;
inline constexpr std::array<int, kColours> kJewelsPerColour = {12, 11, 10, 9, 8};
inline constexpr int kMaxCard = 15;
inline constexpr int kPasses = 3;
inline constexpr int kMaxCushions = 3;

enum class Phase : uint8_t { kReturn = 1, kBid = 2, kFinished = 3 };

// Everything that depends on the player count (rules §2).
struct Params {
  int cushions;          // k
  int hand_size;         // cards drawn per pass
  int rounds_per_pass;
  int max_card;          // 12 with two players, else 15
  int copies;            // copies of each value per seat (two sets with two players)
  int bids_per_round;    // all seats' bids in one round
};
Params ParamsFor(int players);

using Counts = std::array<uint8_t, kColours>;
using CardCounts = std::array<uint8_t, kMaxCard + 1>;  // index = card value

struct Bid {
  int8_t seat = 0;
  uint8_t cushion = 0;
  uint8_t value = 0;
};

struct SeatData {
  CardCounts pile{}, hand{}, played{};
  Counts collection{};
};

struct Data {
  uint8_t players = 0;
  Phase phase = Phase::kReturn;
  uint8_t pass = 0;
  uint8_t round = 0;
  int8_t start_player = 0;
  uint8_t bids_made = 0;
  Counts bag{};
  Counts drawn{};
  std::array<int8_t, kMaxCushions> cushions{-1, -1, -1};
  std::array<Bid, 5> bids{};
  std::array<SeatData, 5> seats{};
  uint64_t rng = 0;
};

// Move encoding (see sultan.proto).
inline Move ReturnMove(int colour) { return Move{static_cast<uint32_t>(colour)}; }
constexpr Move BidMove(int value, int cushion) {
  return Move{static_cast<uint32_t>(16 + 4 * value + cushion)};
}
inline bool IsBid(Move move) { return move.id >= 16; }
inline int BidValue(Move move) { return static_cast<int>((move.id - 16) / 4); }
inline int BidCushion(Move move) { return static_cast<int>((move.id - 16) % 4); }

// Scoring (rules §5), inline: every call's status scores every seat.
inline int ColourBonus(int count, int players) {
  static constexpr std::array<int, 8> kMany = {0, 0, 0, 2, 5, 10, 20, 20};
  static constexpr std::array<int, 8> kTwo = {0, 0, 0, 0, 2, 5, 10, 20};
  const int index = count < 7 ? count : 7;
  return players == 2 ? kTwo[index] : kMany[index];
}

inline int CollectionScore(const Counts& collection, int players) {
  int score = 0;
  for (int colour = 0; colour < kColours; ++colour)
    score += collection[colour] * (colour + 1) + ColourBonus(collection[colour], players);
  return score;
}

class SultanState final : public State {
 public:
  explicit SultanState(const Data& data) : data_(data) {}

  const Game& game() const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<SultanState>(*this); }
  int seats() const override { return data_.players; }
  Seat to_move() const override;
  void LegalMoves(std::vector<Move>& out) const override;
  bool IsLegal(Move move) const override;
  void ApplyLegal(Move move, EventSink* events) override;
  Outcome outcome() const override;
  std::string MoveText(Move move) const override;
  void MoveDetail(Move move, google::protobuf::Any* detail) const override;
  absl::string_view EncodedMove(Move move) const override;
  void Serialize(v1::GameState* out) const override;
  int FormatVersion() const override { return kFormat; }
  // Version 2 (sultan.proto) carries the seats' cards as counts in bytes, version 1 as lists.
  void SerializeFormat(int version, v1::GameState* out) const override;
  void PackView(Seat seat, google::protobuf::Any* out) const override;

  const Data& data() const { return data_; }
  Data& mutable_data() { return data_; }

  // Starts a round: the start player draws k+1 jewels.
  void StartRound(EventSink* events);
  // Each seat draws its pass hand from its pile.
  void DrawHands(EventSink* events);

 private:
  static constexpr int kFormat = 2;
  // The current format's message bytes (sultan_wire.cc).
  void WriteFormat2(std::string* out) const;
  void ResolveRound(EventSink* events);
  void FinishRound(EventSink* events);

  Data data_;
};

// Checks every invariant of a decoded state; the message names the first violation.
absl::Status Validate(const Data& data);

const Game& SultanGame();

}  // namespace gavel::sultan
