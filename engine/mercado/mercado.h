#pragma once
// Mercado (docs/rules/mercado.md): draw coins, complete prices on goods tiles, race a
// marker around a loop of 30 spaces.
#include <array>
#include <cstdint>

#include "engine/core/game.h"
#include "engine/core/rng.h"
#include "engine/mercado/mercado_data.h"

namespace gavel::v1 {
class MercadoCoins;
}  // namespace gavel::v1

namespace gavel::mercado {

inline constexpr int kMaxPlayers = 4;
// Progress is clamped here so it fits its byte; a real game stays far below.
inline constexpr int kMaxProgress = 250;
// Turns in a row without a marker moving or a goods tile being bought after which the
// end is triggered: the rules as written can loop forever (see mercado.proto). Random
// play's longest such stretch in finished games is about 15 turns per seat.
inline constexpr int kIdleRoundsLimit = 30;
inline int IdleTurnLimit(int players) { return kIdleRoundsLimit * players; }

enum class Phase : uint8_t {
  kPrivilege = 1,
  kSymbol = 2,
  kAction = 3,
  kSeal = 4,
  kPlace = 5,
  kJoker = 6,
  kScore = 7,
  kDiscard = 8,
  kFinished = 9,
};

using CoinCounts = std::array<uint8_t, kCoinKinds>;
using PrivilegeCounts = std::array<uint8_t, kPrivilegeTypes>;

struct SeatData {
  CoinCounts bag{};
  CoinCounts person{};
  std::array<CoinCounts, kPositions> edges{};
  PrivilegeCounts privileges{};
  uint8_t seals = 0;
  uint8_t progress = 0;  // d, the distance from the start tile
  uint8_t height = 0;    // 0 = bottom of the stack on its physical space
};

struct Data {
  uint8_t players = 0;
  uint8_t side = 0;  // 0 = A, 1 = B
  uint8_t start_space = 0;
  Phase phase = Phase::kPrivilege;
  int8_t active = 0;
  uint8_t extra_turns = 0;
  bool end_triggered = false;
  uint16_t idle_turns = 0;  // turns since a marker moved or a goods tile was bought
  Effect privilege_extra = kNoEffect;  // due after the symbol decision
  bool placed_this_turn = false;
  CoinCounts drawn{};
  bool joker_in_hand = false;
  int8_t scoring_position = -1;  // the tile waiting for opponents' discards
  int8_t discarder = -1;
  std::array<int8_t, kPositions> display{};
  uint32_t item_deck = 0;  // bit i: item i; unordered sets, drawn uniformly
  uint32_t item_discards = 0;
  uint16_t perfume_deck = 0;  // bit i: perfume kItems + i
  uint16_t perfume_discards = 0;
  CoinCounts supply{};  // white and black only
  uint8_t seal_supply = 0;
  PrivilegeCounts privilege_supply{};
  PrivilegeCounts privileges_gone{};
  std::array<SeatData, kMaxPlayers> seats{};
  uint64_t rng = 0;
};

// Move encoding (see mercado.proto).
inline constexpr uint32_t kNoPrivilege = 0, kUseSymbol = 1, kSkipSymbol = 2, kActionA = 3,
                          kActionB = 4, kUseSeal = 5, kNoSeal = 6, kStop = 7;
inline constexpr uint32_t kPlayPrivilegeBase = 8, kDiscardBase = 16, kScoreBase = 24,
                          kPlaceJokerBase = 32, kPlaceBase = 64;
inline constexpr uint32_t kMoveLimit = kPlaceBase + 8 * kPlaceable;
inline Move PlayPrivilegeMove(int type) { return Move{kPlayPrivilegeBase + type}; }
inline Move DiscardMove(int type) { return Move{kDiscardBase + type}; }
inline Move ScoreMove(int position) { return Move{kScoreBase + position}; }
inline Move PlaceJokerMove(int position) { return Move{kPlaceJokerBase + position}; }
inline Move PlaceMove(int coin, int position) {
  return Move{kPlaceBase + 8 * static_cast<uint32_t>(coin) + position};
}

int CoinTotal(const CoinCounts& coins);
void CoinsToProto(const CoinCounts& coins, v1::MercadoCoins* out);

// Price rules (rules §2). `coins` are one seat's coins on a tile (black must be 0).
bool Fits(const Price& price, const CoinCounts& coins);
// Fits for the price of tile `tile`, looked up in a table worked out once (a search asks
// millions of times whether a coin fits a tile).
bool TileFits(int tile, const CoinCounts& coins);
bool Completes(const Price& price, const CoinCounts& coins);
// Whether `coin` may be added to `coins` on a tile with `price`.
bool MayPlace(const Price& price, const CoinCounts& coins, int coin);

// The physical space (0..29) of progress d.
inline int SpaceOf(const Data& data, int progress) {
  return (data.start_space + progress) % kSpaces;
}
// 1 + the number of markers ahead (rules §3).
int RankOf(const Data& data, int seat);
int PrivilegeCount(const PrivilegeCounts& counts);
int PrivilegeValue(const PrivilegeCounts& counts);

class MercadoState final : public State {
 public:
  explicit MercadoState(const Data& data) : data_(data) {}

  const Game& game() const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<MercadoState>(*this); }
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
  // Version 2 (mercado.proto) carries the coins and held privileges as bytes, version 1 as messages.
  void SerializeFormat(int version, v1::GameState* out) const override;
  void PackView(Seat seat, google::protobuf::Any* out) const override;

  const Data& data() const { return data_; }
  Data& mutable_data() { return data_; }

  // Deals the display from the decks (setup) and starts seat 0's turn.
  void Setup(EventSink* events);
  // Whether the active seat may place a drawn coin anywhere / `coin` at `position`.
  bool CanPlaceAny() const;
  bool CanPlace(int coin, int position) const;
  // Whether the active seat's coins complete the tile at `position`.
  bool IsPending(int position) const;

 private:
  static constexpr int kFormat = 2;
  // The current format's message bytes (mercado_wire.cc).
  void WriteFormat2(std::string* out) const;
  // How a marker move treats the symbol it lands on (rules §3).
  enum class Landing { kMandatory, kOptional, kNoSymbol };

  // ApplyLegal by phase.
  void ApplyPrivilegeChoice(uint32_t id, EventSink* events);
  void ApplySymbolChoice(uint32_t id, EventSink* events);
  void ApplyActionChoice(uint32_t id, EventSink* events);
  void ApplySealChoice(uint32_t id, EventSink* events);
  void ApplyPlacement(uint32_t id, EventSink* events);
  void ApplyJokerPlacement(uint32_t id, EventSink* events);
  void ApplyDiscard(uint32_t id, EventSink* events);

  void StartTurn(bool extra, EventSink* events);
  void StartAction(EventSink* events);
  void StartScoring(EventSink* events);
  void EndTurn(EventSink* events);
  void FinishPrivilege(EventSink* events);
  void DrawCoins(int count, bool with_seal, EventSink* events);
  void ContinuePlacement(EventSink* events);
  void EndPlacement(EventSink* events);
  void ScoreTile(int position, EventSink* events);
  void ScoreMarketTile(int position, EventSink* events);
  void FinishGoodsTile(int position, EventSink* events);
  void NextDiscarder(EventSink* events);
  void BuyerCoinsToPersonTile(int position);
  void Refill(int position, EventSink* events);
  int RevealItem(EventSink* events);
  bool MoveMarker(int seat, int steps, Landing mode, EventSink* events);
  bool ApplySymbol(int seat, Effect symbol, Landing mode, EventSink* events);
  void ApplyEffect(int seat, Effect effect, EventSink* events);
  void GiveCoins(int seat, int coin, int count, Effect effect, EventSink* events);
  void DrawPrivilege(int seat, EventSink* events);
  void GiveSeal(int seat, Effect effect, EventSink* events);
  void FinishGame(EventSink* events);
  int DrawKind(const uint8_t* counts, int kinds);

  Data data_;
};

// Checks every invariant of a decoded state; the message names the first violation.
absl::Status Validate(const Data& data);

const Game& MercadoGame();

}  // namespace gavel::mercado
