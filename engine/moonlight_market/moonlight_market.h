#pragma once
// Moonlight Market (docs/rules/moonlight_market.md): bid gold cards for columns of
// chain-link tiles, attach them to five gem chains, score each colour 4/2/1 per pass.
// Dirk and Beate, the rulebook's automata, are played by the engine inside ApplyLegal.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel::moonlight_market {

inline constexpr int kColours = 5;  // Blue, Red, White, Green, Yellow
inline constexpr int kMaxParticipants = 5;
inline constexpr int kCards = 13;
inline constexpr int kPasses = 4;
inline constexpr int kRounds = 3;  // per pass; round r uses column r
inline constexpr int kColumns = 3;
inline constexpr int kChainLimit = 3;
inline constexpr int kSealTokens = 29;
inline constexpr int kStartSeals = 3;
inline constexpr int kHandSize = 4;
inline constexpr int kDiscardSealValue = 20;

// Tile codes (see moonlight_market.proto).
inline constexpr int kDoublerBase = 50;
inline constexpr int kTwoGem4Base = 55;
inline constexpr int kTwoGem7Base = 65;
inline constexpr int kWorthless = 75;
inline constexpr int kSealTile = 76;
inline constexpr int kHammer = 77;
inline constexpr int kTileKinds = 78;
inline constexpr int kTotalTiles = 150;
inline constexpr uint8_t kNoTile = 255;

enum class TileType : uint8_t { kSingle, kDoubler, kTwoGem, kWorthless, kSeal, kHammer };

struct TileInfo {
  TileType type;
  int8_t colour;  // single, doubler: its colour; two-gem: the left colour; else 0
  int8_t second;  // two-gem: the right colour; else 0
  uint8_t value;  // single: 1..10; two-gem: 4 or 7; else 0
};

// The ten colour pairs in tile-code order.
inline constexpr std::array<std::array<int8_t, 2>, 10> kPairs = {
    {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}};

constexpr TileInfo Describe(int tile) {
  if (tile < kDoublerBase)
    return {TileType::kSingle, static_cast<int8_t>(tile / 10), 0, static_cast<uint8_t>(tile % 10 + 1)};
  if (tile < kTwoGem4Base) return {TileType::kDoubler, static_cast<int8_t>(tile - kDoublerBase), 0, 0};
  if (tile < kWorthless) {
    const int pair = (tile - kTwoGem4Base) % 10;
    return {TileType::kTwoGem, kPairs[pair][0], kPairs[pair][1],
            static_cast<uint8_t>(tile < kTwoGem7Base ? 4 : 7)};
  }
  if (tile == kWorthless) return {TileType::kWorthless, 0, 0, 0};
  if (tile == kSealTile) return {TileType::kSeal, 0, 0, 0};
  return {TileType::kHammer, 0, 0, 0};
}
constexpr int SingleGem(int colour, int value) { return colour * 10 + value - 1; }
constexpr int TwoGem(int value, int colour_a, int colour_b) {
  for (int pair = 0; pair < 10; ++pair)
    if ((kPairs[pair][0] == colour_a && kPairs[pair][1] == colour_b) ||
        (kPairs[pair][0] == colour_b && kPairs[pair][1] == colour_a))
      return (value == 4 ? kTwoGem4Base : kTwoGem7Base) + pair;
  return -1;
}
// Single gems per colour by value 1..10 (edition data, docs/rules/moonlight_market.md §1).
inline constexpr std::array<uint8_t, 10> kSinglesPerValue = {3, 3, 3, 2, 2, 2, 2, 2, 2, 1};
// How many tiles of each code the game has (a table: validation counts every code per call).
inline constexpr std::array<uint8_t, kTileKinds> kInitialCounts = [] {
  std::array<uint8_t, kTileKinds> counts{};
  for (int tile = 0; tile < kTileKinds; ++tile) {
    const TileInfo info = Describe(tile);
    counts[tile] = info.type == TileType::kSingle ? kSinglesPerValue[info.value - 1]
                   : info.type == TileType::kWorthless || info.type == TileType::kSeal ||
                           info.type == TileType::kHammer
                       ? 5
                       : 1;
  }
  return counts;
}();
constexpr int InitialCount(int tile) { return kInitialCounts[tile]; }
// Whether `tile` may lie in the chain of `colour`.
bool Attachable(int tile, int colour);

// Tiles per cushion column: 3 on the moon cushion, 2 elsewhere.
constexpr int Rows(int cushion) { return cushion == 0 ? 3 : 2; }
// Tiles used per pass with n participants (docs/rules/moonlight_market.md §4).
constexpr int PassTiles(int participants) { return kColumns * (3 + 2 * (participants - 1)); }

using TileCounts = std::array<uint8_t, kTileKinds>;
using CardSet = uint16_t;  // bit v for card v (1..13)
inline constexpr CardSet kAllCards = 0x3FFE;
inline constexpr CardSet CardBit(int card) { return static_cast<CardSet>(1u << card); }
int CardCount(CardSet cards);
// The k-th (0-based) card of a set in ascending order, 0 when there is none.
int NthCard(CardSet cards, int k);
// Removes a uniformly drawn card from a non-empty set and returns it.
int DrawCard(CardSet& from, Rng& rng);

struct Chain {
  std::array<uint8_t, kChainLimit> tiles{};
  uint8_t size = 0;
};

// Chain value (docs/rules/moonlight_market.md §6.5): gem values, doubled when the chain holds a
// doubler (unless `doubled` is false, the face value used by discard_value=face).
int ChainValue(std::span<const uint8_t> tiles, bool doubled = true);
// A full chain goes to the box when a tile is attached to it, and earns a seal if its value
// (its face value under discard_value=face) reaches kDiscardSealValue (docs/rules/moonlight_market.md
// §6.4). False for a chain that is not full.
bool DiscardEarnsSeal(std::span<const uint8_t> chain, bool face_discard);
// Eligible for a pass scoring: holds at least one gem tile (docs/rules/moonlight_market.md §7.2).
bool Eligible(std::span<const uint8_t> tiles);
inline std::span<const uint8_t> Tiles(const Chain& chain) { return {chain.tiles.data(), chain.size}; }

// 4/2/1 awards by `keys` among the eligible entries (docs/rules/moonlight_market.md §7.4-7.5);
// others get 0.
std::vector<int> Awards(const std::vector<int>& keys, const std::vector<bool>& eligible,
                        bool competition);

struct Data;
// One colour's pass-scoring points per seat (docs/rules/moonlight_market.md §7); optionally the
// chain values and eligibility they came from.
std::vector<int> ColourPoints(const Data& data, int colour, std::vector<int>* values = nullptr,
                              std::vector<bool>* eligible = nullptr);
// A final scoring (docs/rules/moonlight_market.md §8): by seals (`seals`) or by the last card.
std::vector<int> FinalPoints(const Data& data, bool seals, std::vector<int>* values = nullptr,
                             std::vector<bool>* eligible = nullptr);

struct SeatData {
  CardSet pile = 0;     // human: never-held cards; bot: unrevealed cards but `hand`
  CardSet under = 0;    // human: cards put under the pile
  CardSet hand = 0;     // human: its hand; bot: this round's face-down card
  CardSet discard = 0;  // played cards, face up
  uint8_t displaced = 0;
  uint8_t seals = 0;
  int16_t prestige = 0;
  int8_t taken = -1;  // chain phase: the cushion taken this round
  std::array<Chain, kColours> chains{};
  std::array<uint8_t, kColumns> held{};  // taken tiles not yet resolved
  uint8_t held_count = 0;
};

struct CushionBid {
  int8_t seat = -1;
  uint8_t card = 0;
};

enum class Phase : uint8_t { kBid = 1, kChain = 2, kFinished = 3 };

struct Data {
  uint8_t humans = 0;
  uint8_t bots = 0;
  bool competition = false;    // ranking=competition
  bool unlimited_seals = false;
  bool face_discard = false;   // discard_value=face
  Phase phase = Phase::kBid;
  uint8_t pass = 0;
  uint8_t round = 0;
  int8_t turn = 0;
  int8_t coin_holder = 0;      // -1 while bidding
  uint8_t seal_supply = 0;
  TileCounts supply{};
  TileCounts box{};
  // [cushion][column][row]; kNoTile where empty.
  using Column = std::array<uint8_t, 3>;
  std::array<std::array<Column, kColumns>, kMaxParticipants> slots = [] {
    std::array<std::array<Column, kColumns>, kMaxParticipants> empty;
    for (auto& cushion : empty)
      for (Column& column : cushion) column.fill(kNoTile);
    return empty;
  }();
  std::array<CushionBid, kMaxParticipants> bids{};
  std::array<SeatData, kMaxParticipants> seats{};
  uint64_t rng = 0;

  int participants() const { return humans + bots; }
  bool IsBot(int seat) const { return seat >= humans; }
};

// The seat names of the automata: Dirk always last, Beate before him when both play.
inline constexpr char kDirk[] = "Dirk", kBeate[] = "Beate";
inline constexpr size_t kLongestBotName = std::max(sizeof(kDirk), sizeof(kBeate)) - 1;
const char* BotName(const Data& data, int seat);

// Move encoding (see moonlight_market.proto).
inline constexpr uint32_t kHammerBase = 128;
inline constexpr uint32_t kHammerDiscard = 143;
inline constexpr uint32_t kAttachBase = 256;
inline constexpr uint32_t kMaxMoveId = kAttachBase + 8 * kWorthless + kColours;
inline Move BidMove(int card, int cushion) { return Move{static_cast<uint32_t>(8 * card + cushion)}; }
inline Move HammerMove(int colour, int position) {
  return Move{kHammerBase + static_cast<uint32_t>(3 * colour + position)};
}
inline Move HammerDiscardMove() { return Move{kHammerDiscard}; }
inline Move AttachMove(int tile, int colour) {
  return Move{kAttachBase + static_cast<uint32_t>(8 * tile + colour)};
}
inline bool IsBid(Move move) { return move.id < kHammerBase; }
inline bool IsHammer(Move move) { return move.id >= kHammerBase && move.id <= kHammerDiscard; }
inline bool IsAttach(Move move) { return move.id >= kAttachBase; }
inline int BidCard(Move move) { return static_cast<int>(move.id / 8); }
inline int BidCushion(Move move) { return static_cast<int>(move.id % 8); }
inline int HammerColour(Move move) { return static_cast<int>(move.id - kHammerBase) / 3; }
inline int HammerPosition(Move move) { return static_cast<int>(move.id - kHammerBase) % 3; }
inline int AttachTile(Move move) { return static_cast<int>((move.id - kAttachBase) / 8); }
inline int AttachColour(Move move) { return static_cast<int>((move.id - kAttachBase) % 8); }
// A move's text as its id alone gives it (a bid's without the card it displaces), or empty
// for an id that is no move.
std::string IdText(Move move);

class MoonlightState final : public State {
 public:
  explicit MoonlightState(const Data& data) : data_(data) {}

  const Game& game() const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<MoonlightState>(*this); }
  int seats() const override { return data_.participants(); }
  Seat to_move() const override { return data_.phase == Phase::kFinished ? kNoSeat : data_.turn; }
  bool IsAutomaton(Seat seat) const override { return data_.IsBot(seat); }
  int players() const override { return data_.humans; }
  void LegalMoves(std::vector<Move>& out) const override;
  bool IsLegal(Move move) const override;
  void ApplyLegal(Move move, EventSink* events) override;
  Outcome outcome() const override;
  std::string MoveText(Move move) const override;
  void MoveDetail(Move move, google::protobuf::Any* detail) const override;
  absl::string_view EncodedMove(Move move) const override;
  void Serialize(v1::GameState* out) const override;
  int FormatVersion() const override { return kFormat; }
  // Version 3 (moonlight_market.proto) writes a seat's cards as bits and its tiles as bytes,
  // 2 as lists; 2 writes the tile counts as bytes, 1 as numbers.
  void SerializeFormat(int version, v1::GameState* out) const override;
  void PackView(Seat seat, google::protobuf::Any* out) const override;

  const Data& data() const { return data_; }
  Data& mutable_data() { return data_; }

  // Fills the cushions, draws hands and starts the pass's first round (NewGame).
  void StartPass(EventSink* events);

  // Exposed for tests: the automata's procedures (docs/rules/moonlight_market.md §9) on the current
  // state.
  void BotBid(int seat, EventSink* events);
  void BotPlaceTiles(int seat, EventSink* events);
  // The 3-tile limit and attachment (docs/rules/moonlight_market.md §6.4), as both humans and bots
  // attach.
  void Attach(int seat, int tile, int colour, EventSink* events);

 private:
  static constexpr int kFormat = 4;
  // The current format's message bytes (moonlight_market_wire.cc).
  void WriteFormat4(std::string* out) const;

  // A bid on a cushion another card holds: its text names the card it displaces.
  bool Displaces(Move move) const;

  void FillCushions(EventSink* events);
  void DrawHands(EventSink* events);
  void StartRound(EventSink* events);
  void RunBidding(int from, EventSink* events);
  void PlaceBid(int seat, int card, int cushion, bool revealed, EventSink* events);
  void Distribute(EventSink* events);
  void RunChainPhase(int from, EventSink* events);
  void ResolveSealTiles(int seat, EventSink* events);
  void UseHammer(int seat, int colour, int position, EventSink* events);
  void GainSeal(int seat, bool from_discard, EventSink* events);
  void EndRound(EventSink* events);
  void ScorePass(EventSink* events);
  void ScoreFinal(EventSink* events);
  void TakeHeld(int seat, int tile);
  void AddPrestige(const std::vector<int>& points);

  Data data_;
};

// Checks every invariant of a decoded state; the message names the first violation.
absl::Status Validate(const Data& data);

const Game& MoonlightMarketGame();

}  // namespace gavel::moonlight_market
