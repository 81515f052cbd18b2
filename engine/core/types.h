#pragma once
#include <cstdint>

namespace gavel {

// Seats are numbered 0..seats-1. kNoSeat marks "nobody" (a finished game's seat to move).
using Seat = int;
inline constexpr Seat kNoSeat = -1;
inline constexpr int kMaxSeats = 8;

// A set of seats, bit s for seat s.
using SeatMask = uint32_t;
inline constexpr SeatMask kEveryone = 0xFFFFFFFFu;
inline constexpr SeatMask OnlySeat(Seat seat) { return SeatMask{1} << seat; }
inline constexpr SeatMask AllBut(Seat seat) { return ~OnlySeat(seat); }
// Whether a viewer who holds no seat (a spectator) may see an event for `audience`: one for
// everybody, or the public form of a private one (AllBut(owner): "seat 1 bids face down"
// beside the owner's "with a 7"). Not one for chosen seats, which may carry what only they
// know; at two seats AllBut(0) and OnlySeat(1) name the same seats, and only the former
// leaves the bits beyond kMaxSeats set.
static_assert(kMaxSeats < 32, "a seat's bit must leave the top bit to the public forms");
inline constexpr bool SpectatorSees(SeatMask audience) { return (audience >> 31) != 0; }

// One atomic decision, as a compact per-game code. Each game documents its encoding;
// the core treats it as opaque.
struct Move {
  uint32_t id = 0;
  friend bool operator==(Move a, Move b) { return a.id == b.id; }
  friend bool operator!=(Move a, Move b) { return a.id != b.id; }
};

}  // namespace gavel
