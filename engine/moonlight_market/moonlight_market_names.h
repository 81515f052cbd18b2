#pragma once
// Internal to engine/moonlight_market/: the names of colours, tiles and seats in
// events and move texts.
#include <array>
#include <string>

#include "engine/moonlight_market/moonlight_market.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {

inline constexpr std::array<const char*, kColours> kColourNames = {"Blue", "Red", "White",
                                                                   "Green", "Yellow"};

// The wire enum of colour index 0..4.
inline v1::MoonlightColour ToColour(int colour) {
  return static_cast<v1::MoonlightColour>(colour + 1);
}

// "Red 7", "Blue doubler", "Blue/White 4", "worthless tile", "seal tile", "hammer".
std::string TileName(int tile);
// "seat 2", or the automaton's name.
std::string SeatName(const Data& data, int seat);

}  // namespace gavel::moonlight_market
