// Morgenland's edition data: the 45 treasure cards (rules §10), one table.
#include <cctype>

#include "engine/morgenland/morgenland.h"

namespace gavel::morgenland {
namespace {

// Row i: card i+1 for 3, 4 and 5 players; shelves top first, "0" = an empty cave.
constexpr const char* kCards[kCardsPerDeck][3] = {
    {"R5-2 W4-2 B3-1 K6 Y0", "R5-3-1 W4-2 B6-2-1 K3 Y0", "R6-4-2-1 W5-2 B4-3-1 K3 Y0"},
    {"R4-2 W3-1 B6 K0 Y5-2", "R4-2 W6-2-1 B3 K0 Y5-3-1", "R5-2 W4-3-1 B3 K0 Y6-4-2-1"},
    {"R3-1 W6 B0 K5-2 Y4-2", "R6-2-1 W3 B0 K5-3-1 Y4-2", "R4-3-1 W3 B0 K6-4-2-1 Y5-2"},
    {"R6 W0 B5-2 K4-2 Y3-1", "R3 W0 B5-3-1 K4-2 Y6-2-1", "R3 W0 B6-4-2-1 K5-2 Y4-3-1"},
    {"R0 W5-2 B4-2 K3-1 Y6", "R0 W5-3-1 B4-2 K6-2-1 Y3", "R0 W6-4-2-1 B5-2 K4-3-1 Y3"},
    {"R4-3 W2-2 B0 K5-1 Y3", "R6-3 W3-2 B0 K4-2-1 Y5-2-1", "R5-3-2-1 W4-2 B0 K6-3 Y3-2-1"},
    {"R2-2 W0 B5-1 K3 Y4-3", "R3-2 W0 B4-2-1 K5-2-1 Y6-3", "R4-2 W0 B6-3 K3-2-1 Y5-3-2-1"},
    {"R0 W5-1 B3 K4-3 Y2-2", "R0 W4-2-1 B5-2-1 K6-3 Y3-2", "R0 W6-3 B3-2-1 K5-3-2-1 Y4-2"},
    {"R5-1 W3 B4-3 K2-2 Y0", "R4-2-1 W5-2-1 B6-3 K3-2 Y0", "R6-3 W3-2-1 B5-3-2-1 K4-2 Y0"},
    {"R3 W4-3 B2-2 K0 Y5-1", "R5-2-1 W6-3 B3-2 K0 Y4-2-1", "R3-2-1 W5-3-2-1 B4-2 K0 Y6-3"},
    {"R6-2 W2-1 B3-2 K0 Y4", "R5-2 W6-3-1 B4-3-2 K0 Y2-1", "R6-3-2 W2 B4-3-2-1 K0 Y5-1"},
    {"R2-1 W3-2 B0 K4 Y6-2", "R6-3-1 W4-3-2 B0 K2-1 Y5-2", "R2 W4-3-2-1 B0 K5-1 Y6-3-2"},
    {"R3-2 W0 B4 K6-2 Y2-1", "R4-3-2 W0 B2-1 K5-2 Y6-3-1", "R4-3-2-1 W0 B5-1 K6-3-2 Y2"},
    {"R0 W4 B6-2 K2-1 Y3-2", "R0 W2-1 B5-2 K6-3-1 Y4-3-2", "R0 W5-1 B6-3-2 K2 Y4-3-2-1"},
    {"R4 W6-2 B2-1 K3-2 Y0", "R2-1 W5-2 B6-3-1 K4-3-2 Y0", "R5-1 W6-3-2 B2 K4-3-2-1 Y0"},
};

// "R5-2 W4-2 ..." -> shelves per cave in R W B K Y order.
TreasureCard Parse(const char* text) {
  TreasureCard card{};
  int kind = -1, shelf = 0;
  for (const char* c = text; *c; ++c) {
    if (std::isalpha(static_cast<unsigned char>(*c))) {
      ++kind;
      shelf = 0;
    } else if (std::isdigit(static_cast<unsigned char>(*c))) {
      card[kind][shelf++] = static_cast<uint8_t>(*c - '0');
    }
  }
  return card;
}

}  // namespace

const TreasureCard& CardFor(int players, int index) {
  static const auto* table = [] {
    auto* parsed = new std::array<std::array<TreasureCard, kCardsPerDeck>, 3>();
    for (int count = 0; count < 3; ++count)
      for (int card = 0; card < kCardsPerDeck; ++card)
        (*parsed)[count][card] = Parse(kCards[card][count]);
    return parsed;
  }();
  return (*table)[players - 3][index];
}

}  // namespace gavel::morgenland
