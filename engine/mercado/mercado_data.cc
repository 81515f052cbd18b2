// Mercado's edition data (rules §10). A different edition edits this table only.
#include "engine/mercado/mercado_data.h"

namespace gavel::mercado {
namespace {

constexpr PriceGroup Fixed(Coin colour, int slots) {
  return {Group::kFixed, colour, static_cast<uint8_t>(slots)};
}
constexpr PriceGroup Same(int slots) { return {Group::kSame, 0, static_cast<uint8_t>(slots)}; }
constexpr PriceGroup Different(int slots) {
  return {Group::kDifferent, 0, static_cast<uint8_t>(slots)};
}
constexpr PriceGroup JokerSlot() { return {Group::kJoker, 0, 1}; }

constexpr Price P(PriceGroup a) { return {{a, {}}, 1, a.slots}; }
constexpr Price P(PriceGroup a, PriceGroup b) {
  return {{a, b}, 2, static_cast<uint8_t>(a.slots + b.slots)};
}

constexpr Coin G = kGold, S = kSilver, C = kCopper, T = kTurquoise;
constexpr Effect _ = kNoEffect;

constexpr Edition kEdition = {
    .tiles = {{
        // Items (rules §10).
        {"Cloth", P(Fixed(G, 2), Fixed(T, 2)), 4, {kGainPrivilege, _}, {_, _}, false},
        {"Jug", P(Fixed(S, 2)), 4, {kGainCounterfeit, _}, {_, _}, false},
        {"Golden goblet", P(Fixed(G, 3)), 4, {_, _}, {_, _}, false},
        {"Letter opener", P(Fixed(C, 2)), 2, {kGainJoker, _}, {_, _}, false},
        {"Pocket watch", P(Different(4)), 4, {kGainSeal, _}, {_, _}, false},
        {"Elegant shoe", P(Fixed(T, 2)), 3, {_, _}, {_, _}, false},
        {"Vase", P(Fixed(C, 3)), 4, {_, _}, {_, _}, false},
        {"Rare book", P(Different(3)), 3, {_, _}, {_, _}, false},
        {"Music box", P(Same(4)), 5, {_, _}, {_, _}, false},
        {"Painting", P(Fixed(S, 2), Fixed(C, 2)), 6, {_, _}, {_, _}, false},
        {"Diadem", P(Fixed(G, 4)), 7, {_, _}, {_, _}, false},
        {"Ring", P(Same(2)), 2, {_, _}, {_, _}, false},
        {"Mirror", P(Same(3)), 3, {kGainSeal, _}, {_, _}, false},
        {"Carpet", P(Fixed(T, 3)), 4, {_, _}, {_, _}, false},
        {"Candlestick", P(Fixed(S, 3)), 4, {_, _}, {_, _}, false},
        {"Necklace", P(Fixed(T, 2), Fixed(C, 2)), 5, {_, _}, {_, _}, true},
        {"Fan", P(Fixed(C, 1), Fixed(T, 1)), 2, {kGainJoker, _}, {_, _}, false},
        {"Hat", P(Fixed(G, 1), Fixed(T, 1)), 3, {_, _}, {_, _}, false},
        {"Jewel casket", P(Different(4)), 3, {kGainPrivilege, _}, {_, _}, false},
        {"Lute", P(Same(2)), kRankPoints, {_, _}, {_, _}, false},
        {"Globe", P(Different(3)), kRankPoints, {kGainJoker, _}, {_, _}, false},
        {"Telescope", P(Fixed(S, 1), Fixed(C, 1)), kRankPoints, {_, _}, {_, _}, false},
        {"Sceptre", P(Fixed(G, 2), Fixed(S, 2)), 6, {_, _}, {_, _}, false},
        {"Brooch", P(Fixed(S, 2), Fixed(T, 1)), 3, {kGainJoker, _}, {_, _}, false},
        // Perfumes.
        {"Rose", P(Different(3)), 0, {kGainSeal, kGainPrivilege}, {kOpponentsDiscard, _}, true},
        {"Musk", P(JokerSlot(), Same(2)), 0, {kExtraTurn, _}, {kOpponentsTwoCounterfeit, _},
         true},
        {"Amber", P(Same(2)), 0, {_, _}, {kOpponentsTwoCounterfeit, _}, false},
        {"Jasmine", P(Different(2)), 0, {kGainJoker, _}, {kOpponentsDiscard, _}, true},
        {"Lavender", P(Different(3)), kRevealPoints, {_, _}, {_, _}, false},
        {"Violet", P(Same(3)), kRevealPoints, {_, _}, {_, _}, false},
        {"Citrus", P(Same(2)), 0, {kLoseCounterfeit, kLoseCounterfeit}, {_, _}, false},
        {"Sandalwood", P(Different(3)), 0, {kGainJoker, kGainJoker}, {_, _}, false},
        {"Orchid", P(Same(3)), 0, {kGainPrivilege, kGainPrivilege}, {_, _}, false},
        {"Vanilla", P(JokerSlot(), Same(1)), 0, {kExtraTurn, kGainSeal}, {_, _}, false},
        {"Myrrh", P(Different(2)), 0, {kGainSeal, kGainSeal}, {_, _}, false},
        {"Frankincense", P(JokerSlot(), Different(2)), 0, {kExtraTurn, kLoseCounterfeit},
         {_, _}, true},
        // Market tiles (rules §5.2): no points, no seals; their effects are special.
        {"Market Overseer", P(Different(3)), 0, {_, _}, {_, _}, true},
        {"Coin Changer", P(Same(3)), 0, {_, _}, {_, _}, true},
    }},
    .privileges = {{
        {3, _, 6},
        {2, _, 2},
        {2, kGainSeal, 2},
        {2, kGainJoker, 1},
        {2, kLoseCounterfeit, 1},
        {1, kGainSeal, 2},
        {1, kGainJoker, 2},
        {1, kLoseCounterfeit, 2},
    }},
    .tracks = {{
        // Side A, spaces 0..29.
        {kGainCounterfeit, _, _, kGainPrivilege, _, kGainJoker, _, kAdvanceThree,
         kLoseCounterfeit, _, _, kGainSeal, _, kGainCounterfeit, _,
         _, kGainPrivilege, _, kExtraTurn, _, kAdvanceThree, _, kLoseCounterfeit, _, kGainJoker,
         _, kGainSeal, _, kGainCounterfeit, _},
        // Side B.
        {kGainCounterfeit, _, kGainPrivilege, _, kOpponentsCounterfeit, kGainJoker, _,
         kAdvanceThree, kLoseCounterfeit, _, _, kGainSeal, kOpponentsJoker, kGainCounterfeit, _,
         kExtraTurn, kGainPrivilege, _, kOpponentsCounterfeit, kAdvanceThree, kLoseCounterfeit,
         _, _, kGainJoker, kOpponentsJoker, kGainSeal, kGainCounterfeit, kExtraTurn, _,
         kOpponentsCounterfeit},
    }},
};

constexpr int PrivilegeTotal() {
  int total = 0;
  for (const PrivilegeType& type : kEdition.privileges) total += type.count;
  return total;
}
static_assert(PrivilegeTotal() == kPrivileges);

}  // namespace

const Edition& TheEdition() { return kEdition; }

const char* CoinName(int coin) {
  static constexpr const char* kNames[kCoinKinds] = {"gold",  "silver", "copper",
                                                     "turquoise", "white", "black"};
  return coin >= 0 && coin < kCoinKinds ? kNames[coin] : "?";
}

const char* EffectName(int effect) {
  static constexpr const char* kNames[kEffectKinds] = {
      "none", "+J", "+F", "-F", "+P", "+S", "TURN", "+3", "opp+F", "opp+J", "opp+2F",
      "oppdiscard"};
  return effect >= 0 && effect < kEffectKinds ? kNames[effect] : "?";
}

}  // namespace gavel::mercado
