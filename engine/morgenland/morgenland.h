#pragma once
// Morgenland (docs/rules/morgenland.md): place numbered tokens face down on caves, city
// buildings and palace rooms, tally the spaces in order, buy artifacts with treasure.
#include <array>
#include <cstdint>

#include "engine/core/game.h"
#include "engine/core/rng.h"

namespace gavel::v1 {
class MorgenlandEvent;
class MorgenlandState;
}  // namespace gavel::v1

namespace gavel::morgenland {

// ---------------------------------------------------------------------------
// Components (rules §1, §2)

inline constexpr int kKinds = 5;            // R W B K Y, in cave order
inline constexpr int kUnitsPerKind = 29;
inline constexpr int kTokens = 8;           // per seat
inline constexpr std::array<int, kTokens> kTokenValues = {1, 2, 4, 5, 6, 7, 8, 9};
inline constexpr int kMaxPlayers = 5;
inline constexpr int kMaxShelves = 4;       // n - 1 shelves at most
inline constexpr int kCardsPerDeck = 15;
inline constexpr int kArtifactTypes = 6;
inline constexpr int kArtifactsPerType = 5;
inline constexpr int kSpells = 21;
inline constexpr int kMaxStack = 6;
inline constexpr int kMaxRoomTokens = 5;
inline constexpr int kCarpetValue = 3;
inline constexpr int kSmugglerValue = 3;

// Spaces in tally order.
enum Space : int8_t {
  kCaveR = 0, kCaveY = 4, kTent = 5, kDjinn = 6, kMarket = 7, kCaravan = 8, kGate = 9,
  kRoom1 = 10
};
inline constexpr int kSpaces = 15;
inline bool IsCave(int space) { return space >= kCaveR && space <= kCaveY; }
inline bool IsRoom(int space) { return space >= kRoom1; }
// City spaces: TENT, DJINN, MARKET, CARAVAN (the GATE is never a spell's concern).
inline bool IsCity(int space) { return space >= kTent && space <= kCaravan; }

enum Artifact : int8_t { kLamp, kCounterspell, kDouble, kCarpet, kKey, kScroll };

enum Spell : int8_t {
  kAbracadabra, kLastFirst, kCharity, kCityTax, kDonation, kDragonLeaves, kDragonsReturn,
  kEyeForAnEye, kLunarEclipse, kSolarEclipse, kApprentice, kMirage, kParasite, kSacrifice,
  kSecondChance, kSmuggler, kSpy, kSultansTax, kTaboo, kTeleport, kTrade
};

// Token locations besides a space id.
inline constexpr int8_t kInHand = -1;
inline constexpr int8_t kSetAside = -2;

enum class Phase : uint8_t {
  kPick = 1,        // setup: the active seat picks one starting unit
  kPlace = 2,       // placement turn (pro: with the placement window)
  kWindow = 3,      // pro: tally window of `space`, priority at `active`
  kCounter = 4,     // pro: counter window of the top pending spell, `active` asked
  kBribe = 5,       // gate: `active` bribes or declines
  kPay = 6,         // `active` pays `units_left` units to the bank, one per move
  kTake = 7,        // `active` takes `units_left` units from the bank, one per move
  kMarket = 8,      // the market winner declines or returns one unit
  kCaravan = 9,     // caravan winner: name the camel's holder, or take/decline it
  kTent = 10,       // the tent winner keeps one of the drawn spells
  kOffer = 11,      // room: `active` buys or declines
  kRoomPay = 12,    // room: `active` assigns a kind to the next payment item
  kBuyer = 13,      // pro: buyer window (Abracadabra) before taking the artifact
  kChoose = 14,     // pro: a spell's private choice (Mirage, Abracadabra)
  kFinished = 15,
  kTax = 16,        // pro: a taxed seat pays or sets tokens aside (City Tax, Sultan's Tax)
};

// Why units are paid or taken: decides what happens once the count reaches 0.
enum class Purpose : uint8_t {
  kNone = 0, kBribe, kMarketTake, kCharity, kDonation, kCityTax, kSultansTax, kTeleport, kTrade
};

// A spell played and waiting for its counter window (rules §6.2); Parasite may stack.
struct Pending {
  int8_t spell = -1;
  int8_t caster = -1;
  int8_t copied = -1;       // Parasite: the copied artifact type
  uint16_t target = 0;      // the target code of the spell move (see morgenland.proto)
  uint8_t asked = 0;        // seats of the counter window already asked, in player order
};

struct SeatData {
  std::array<int8_t, kTokens> token_space{};   // kInHand, kSetAside or a space
  uint8_t face_up = 0;                          // bit per token
  std::array<uint8_t, kTokens> copies{};        // Double copies attached to each token
  std::array<uint8_t, kKinds> treasure{};
  std::array<uint8_t, kKinds> start{};          // hidden starting picks (rules §3.3)
  std::array<uint8_t, kArtifactTypes> owned{};
  std::array<uint8_t, kArtifactTypes> invoked{};
  std::array<uint8_t, kSpaces> carpets{};       // carpets on each space this round
  uint8_t parasite_uses = 0;                    // not counted toward the limit
  uint16_t scroll_spaces = 0;                   // spaces where a Scroll was invoked
  uint16_t smuggler_spaces = 0;
  uint32_t spells = 0;                          // spell cards in hand, bit per spell
  std::array<uint32_t, kMaxPlayers> known_by{}; // spells of this hand seen by another seat
  bool entered = false;                         // entered the palace this round
  bool djinn = false;                           // artifact limit 2 this round
};

constexpr std::array<std::array<int8_t, kMaxStack>, kMaxPlayers> EmptyStacks() {
  std::array<std::array<int8_t, kMaxStack>, kMaxPlayers> stacks{};
  for (auto& stack : stacks)
    for (int8_t& artifact : stack) artifact = -1;
  return stacks;
}

struct Data {
  uint8_t players = 0;
  bool pro = true;
  bool choose_camel = false;      // caravanserai=choose
  bool scroll_power = true;
  uint8_t max_rounds = 40;
  Phase phase = Phase::kPick;
  uint8_t round = 0;              // rounds completed
  int8_t camel = 0;               // start player
  int8_t active = 0;              // seat deciding in the current phase
  int8_t placer = 0;              // seat whose placement turn it is (during kPlace)
  int8_t space = -1;              // space being tallied, -1 during placement
  uint8_t cursor = 0;             // gate: seat offset; room: rank offset; City Tax: tokens paid
  uint8_t passes = 0;             // tally window: passes in a row
  uint8_t units_left = 0;         // kPay / kTake
  Purpose purpose = Purpose::kNone;
  int8_t guard = 0;               // 0 until revealed at the gate
  int8_t card = -1;               // this round's treasure card (0..14)
  uint16_t deck = 0;              // treasure cards not yet used, bit per card
  std::array<std::array<uint8_t, kMaxShelves>, kKinds> shelves{};
  std::array<uint8_t, kKinds> bank{};
  std::array<std::array<int8_t, kMaxStack>, kMaxPlayers> stack = EmptyStacks();  // [0] = bottom
  std::array<uint8_t, kMaxPlayers> stack_size{};
  std::array<int8_t, kMaxPlayers> face_up{-1, -1, -1, -1, -1};  // pro: face-up artifact, -1 none
  std::array<uint8_t, kArtifactTypes> box{};    // artifacts out of the game
  // Room payment in progress: the items (values) still to pay, highest first.
  std::array<uint8_t, 16> items{};
  uint8_t item_count = 0;
  uint8_t kinds_used = 0;         // kinds already used by this payment, bit per kind
  // Pro magic.
  uint32_t spell_deck = 0;        // face-down spell deck (a set: its order is unknown to all)
  uint32_t discards = 0;          // face-up discard pile
  std::array<int8_t, 2> tent{-1, -1};  // spells drawn at the TENT awaiting the keep decision
  int8_t tent_second = -1;        // who receives the other tent card, -1: the discards
  uint16_t taboo = 0;
  uint8_t spy = 0;                // seats whose Spy is active
  bool last_first = false;
  std::array<Pending, 2> pending{};
  uint8_t pending_count = 0;
  int8_t resume_seat = 0;         // seat offset in player order for multi-seat resolutions
  int8_t priority = 0;            // tally window: the seat whose action is being completed
  int8_t buyer = -1;              // buyer window: the buyer
  int8_t target_seat = -1;        // Trade: the opponent being paid back
  int8_t target_token = -1;       // Trade: the kind the caster may not give back
  int8_t target_space = -1;       // Mirage / Abracadabra: the room being looked at
  // Who knows a room's face-down artifacts: as a set (Abracadabra) or in order (Mirage).
  std::array<uint8_t, kMaxPlayers> set_known{};
  std::array<uint8_t, kMaxPlayers> order_known{};
  std::array<SeatData, kMaxPlayers> seats{};
  uint64_t rng = 0;
};

// ---------------------------------------------------------------------------
// Move encoding (see morgenland.proto)

inline constexpr uint32_t kKindBase = 0;       // 0..4: a kind (pick, pay, take, item, market)
inline constexpr uint32_t kPassId = 10;        // pass / decline
inline constexpr uint32_t kAcceptId = 11;      // bribe / buy / take the camel
inline constexpr uint32_t kSeatBase = 20;      // 20..24: name a seat (caravanserai=choose)
inline constexpr uint32_t kPlaceBase = 30;     // 30 + 15*token + space
inline constexpr uint32_t kInvokeBase = 150;   // 150 + artifact (Lamp, Carpet, Key, Scroll)
inline constexpr uint32_t kDoubleBase = 160;   // 160 + token: Double on that token
inline constexpr uint32_t kCounterId = 170;    // invoke Counterspell in a counter window
inline constexpr uint32_t kKeepBase = 180;     // 180 + spell: keep this tent card
inline constexpr uint32_t kPickArtifactBase = 210;  // 210 + stack position (Mirage, Abracadabra)
inline constexpr uint32_t kSpellBase = 1000;   // 1000 + 100000*spell + target
inline constexpr uint32_t kSpellStride = 100000;
inline constexpr uint32_t kMaxMoveId = kSpellBase + kSpellStride * kSpells;

inline Move KindMove(int kind) { return Move{kKindBase + static_cast<uint32_t>(kind)}; }
inline Move PassMove() { return Move{kPassId}; }
inline Move AcceptMove() { return Move{kAcceptId}; }
inline Move SeatMove(int seat) { return Move{kSeatBase + static_cast<uint32_t>(seat)}; }
inline Move PlaceMove(int token, int space) {
  return Move{kPlaceBase + 15 * static_cast<uint32_t>(token) + static_cast<uint32_t>(space)};
}
inline Move InvokeMove(int artifact) { return Move{kInvokeBase + static_cast<uint32_t>(artifact)}; }
inline Move DoubleMove(int token) { return Move{kDoubleBase + static_cast<uint32_t>(token)}; }
inline Move CounterMove() { return Move{kCounterId}; }
inline Move KeepMove(int spell) { return Move{kKeepBase + static_cast<uint32_t>(spell)}; }
inline Move PickArtifactMove(int position) {
  return Move{kPickArtifactBase + static_cast<uint32_t>(position)};
}
inline Move SpellMove(int spell, int target) {
  return Move{kSpellBase + kSpellStride * static_cast<uint32_t>(spell) + static_cast<uint32_t>(target)};
}
inline int SpellOf(Move move) { return static_cast<int>((move.id - kSpellBase) / kSpellStride); }
inline int TargetOf(Move move) { return static_cast<int>((move.id - kSpellBase) % kSpellStride); }

// ---------------------------------------------------------------------------
// Edition data (rules §10)

// Shelves per cave, top first, of one treasure card.
using TreasureCard = std::array<std::array<uint8_t, kMaxShelves>, kKinds>;
const TreasureCard& CardFor(int players, int index);

// ---------------------------------------------------------------------------
// Shared rule helpers (morgenland.cc)

int TokenValue(int token);
// Seat at `offset` in player order (the camel holder first).
inline int SeatInOrder(const Data& data, int offset) { return (data.camel + offset) % data.players; }
inline int OrderOf(const Data& data, int seat) {
  return (seat - data.camel + data.players) % data.players;
}
int Total(const std::array<uint8_t, kKinds>& units);
int Strength(const Data& data, int seat, int space);
bool HasPresence(const Data& data, int seat, int space);
bool HasToken(const Data& data, int seat, int space);
// Seats with presence in `space`, best first (rules §2); returns how many.
int RankSpace(const Data& data, int space, std::array<int8_t, kMaxPlayers>& order);
bool RoomHasArtifact(const Data& data, int room);
int ArtifactsLeft(const Data& data);
// Whether `seat` may put a token on `space` now (rules §4.2, §6.1 for the owner test).
bool SpaceOpenFor(const Data& data, int seat, int space);
// Payment items of `seat` in `room`, highest first; returns the count.
int PaymentItems(const Data& data, int seat, int room, std::array<uint8_t, 16>& items);
// Whether items[from..count) can be paid with distinct kinds not in `used`.
bool CanAssign(const std::array<uint8_t, kKinds>& treasure, const uint8_t* items, int count,
               uint8_t used);
int ArtifactLimit(const SeatData& seat);
int InvokedCount(const SeatData& seat);

class MorgenlandState final : public State {
 public:
  explicit MorgenlandState(const Data& data) : data_(data) {}

  const Game& game() const override;
  std::unique_ptr<State> Clone() const override {
    return std::make_unique<MorgenlandState>(*this);
  }
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
  // Version 5 (morgenland.proto) writes version 4's fields with the rooms and seats last; 4
  // carries a seat's tokens as bytes, 3 the unit lists as bytes, 2 as messages; 2 packs a
  // seat's tokens into numbers, 1 lists them as messages.
  void SerializeFormat(int version, v1::GameState* out) const override;
  void PackView(Seat seat, google::protobuf::Any* out) const override;

  const Data& data() const { return data_; }
  Data& mutable_data() { return data_; }

  // The rule steps below are shared by the rules (morgenland.cc), the artifacts and the
  // spells; each runs the automatic steps that follow it until a seat must decide.
  void StartRound(EventSink* events);
  void NextPlacer(EventSink* events);
  void BeginTally(EventSink* events);
  void RevealSpace(EventSink* events);
  void SkipSilentWindowSeats(EventSink* events);
  void ResolveSpace(EventSink* events);
  void ResolveCave(const std::array<int8_t, kMaxPlayers>& order, int count, EventSink* events);
  void ResolveTent(const std::array<int8_t, kMaxPlayers>& order, int count, EventSink* events);
  void ResolveGateFrom(EventSink* events);
  void EnterPalace(int seat, int bribe, EventSink* events);
  void StayOut(int seat, EventSink* events);
  void ResolveRoomFrom(EventSink* events);
  bool CanBuy(int seat) const;
  void StartPayment(EventSink* events);
  void PayItem(int kind, EventSink* events);
  bool ItemKindLegal(int kind) const;
  void CompletePurchase(EventSink* events);
  void GrantPurchase(int artifact, EventSink* events);
  void FinishSpace(EventSink* events);
  void EndRound(EventSink* events);
  void Finish(EventSink* events);
  void MoveCamel(int seat, EventSink* events);
  void SetAsideToken(int seat, int token, EventSink* events, const char* why);
  // The tokens of `seat` with a bit in `tokens`, in an order that tells nothing hidden.
  void SetAsideTokens(int seat, uint8_t tokens, EventSink* events, const char* why);
  void AfterUnits(EventSink* events);
  int DrawGuard();

  // Magic (morgenland_magic.cc, morgenland_artifacts.cc, morgenland_spells.cc).
  void AppendMagic(std::vector<Move>& out) const;
  bool MagicLegal(Move move) const;
  void ApplyMagic(Move move, EventSink* events);
  void PlaySpell(int seat, int spell, int target, int copied, EventSink* events);
  void AdvanceCounter(EventSink* events);
  void PassCounter(EventSink* events);
  void Counter(int seat, EventSink* events);
  void FinishSpell(EventSink* events);
  void EmitSpellStage(EventSink* events, const Pending& spell, const char* stage, int by) const;
  void ApplyPower(int seat, int artifact, int token, EventSink* events);
  void ApplyArtifactMove(Move move, EventSink* events);
  void ApplySpellMove(Move move, EventSink* events);
  // An action in a window is complete: back to the window it was taken in.
  void ReturnToWindow(EventSink* events);
  void ResolvePending(const Pending& spell, EventSink* events);
  void ContinueSpell(Purpose purpose, EventSink* events);
  void ApplyTaxDecision(bool pay, EventSink* events);
  void ApplyChoice(int position, EventSink* events);
  void MoveToken(int seat, int token, int dest, EventSink* events);

  void Emit(EventSink* events, SeatMask audience, const v1::MorgenlandEvent& event,
            std::string text) const;
  void EmitUnits(EventSink* events, int seat, int kind, int units, const char* reason) const;
  void EmitResolved(EventSink* events, int space, const std::string& result) const;

 private:
  static constexpr int kFormat = 5;

  void ApplyKind(int kind, EventSink* events);
  void ApplyPlace(int token, int space, EventSink* events);
  void ApplyPassOrAccept(bool accept, EventSink* events);
  void EmitDecision(bool accept, EventSink* events) const;
  void ApplyKeep(int spell, EventSink* events);
  void AppendPlacements(std::vector<Move>& out) const;
  void RoomsAndSeatsToProto(int version, v1::MorgenlandState* proto) const;
  void WriteFormat5Fields(std::string* out) const;
  void AppendRoomsAndSeats(std::string* out) const;

  Data data_;
};

const char* PurposeName(Purpose purpose);

// Checks every invariant of a decoded state; the message names the first violation.
absl::Status Validate(const Data& data);

const Game& MorgenlandGame();

}  // namespace gavel::morgenland
