#pragma once
// Mercado's edition data (rules §10): goods and market tiles, privileges, track layouts.
// Everything an edition changes lives in the one table in mercado_data.cc.
#include <array>
#include <cstdint>

namespace gavel::mercado {

// Coin colours; gold..white are placeable (and encode Place moves), black never is.
enum Coin : uint8_t { kGold, kSilver, kCopper, kTurquoise, kWhite, kBlack };
inline constexpr int kCoinKinds = 6;
inline constexpr int kPlaceable = 5;
inline constexpr int kColoured = 4;  // gold..turquoise: 5 per seat, no supply

// Track symbols and tile effects (rules §7); values match MercadoEffect in the proto.
enum Effect : uint8_t {
  kNoEffect,
  kGainJoker,
  kGainCounterfeit,
  kLoseCounterfeit,
  kGainPrivilege,
  kGainSeal,
  kExtraTurn,
  kAdvanceThree,
  kOpponentsCounterfeit,
  kOpponentsJoker,
  kOpponentsTwoCounterfeit,
  kOpponentsDiscard,
};
inline constexpr int kEffectKinds = 12;

// One price group (rules §2).
enum class Group : uint8_t { kFixed, kSame, kDifferent, kJoker };
struct PriceGroup {
  Group kind = Group::kFixed;
  uint8_t colour = 0;  // kFixed only
  uint8_t slots = 0;
};
inline constexpr int kMaxGroups = 2;
inline constexpr int kMaxSlots = 4;
struct Price {
  std::array<PriceGroup, kMaxGroups> groups{};
  uint8_t group_count = 0;
  uint8_t slots = 0;  // total
};

inline constexpr int8_t kRankPoints = -1;    // scores the buyer's rank
inline constexpr int8_t kRevealPoints = -2;  // scores a revealed item's points

struct TileData {
  const char* name;
  Price price;
  int8_t points;
  std::array<Effect, 2> buyer;      // kNoEffect for unused entries
  std::array<Effect, 2> opponents;
  bool no_seal;
};

inline constexpr int kItems = 24;
inline constexpr int kPerfumes = 12;
inline constexpr int kOverseer = kItems + kPerfumes;  // tile id 36
inline constexpr int kChanger = kOverseer + 1;         // tile id 37
inline constexpr int kTiles = kChanger + 1;

// Display positions.
inline constexpr int kItemSlots = 4;
inline constexpr int kPerfumeSlots = 2;
inline constexpr int kOverseerPosition = kItemSlots + kPerfumeSlots;  // 6
inline constexpr int kChangerPosition = kOverseerPosition + 1;        // 7
inline constexpr int kPositions = kChangerPosition + 1;

struct PrivilegeType {
  uint8_t value;
  Effect extra;
  uint8_t count;
};
inline constexpr int kPrivilegeTypes = 8;
inline constexpr int kPrivileges = 18;

inline constexpr int kSpaces = 30;
inline constexpr int kCoinsPerColour = 5;   // per seat
inline constexpr int kCounterfeits = 38;
inline constexpr int kJokers = 14;
inline constexpr int kSeals = 15;

struct Edition {
  std::array<TileData, kTiles> tiles;
  std::array<PrivilegeType, kPrivilegeTypes> privileges;
  std::array<std::array<Effect, kSpaces>, 2> tracks;  // side A, side B
};

const Edition& TheEdition();
inline const TileData& Tile(int id) { return TheEdition().tiles[id]; }
inline const PrivilegeType& Privilege(int type) { return TheEdition().privileges[type]; }

const char* CoinName(int coin);
const char* EffectName(int effect);

}  // namespace gavel::mercado
