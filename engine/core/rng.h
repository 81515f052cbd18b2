#pragma once
// Deterministic random numbers. The generator's whole state is one 64-bit word that is
// stored in every game state, so Apply(state, move) is a pure function of its input and a
// replay re-derives every chance event from the seed.
#include <bit>
#include <cstdint>

namespace gavel {

// SplitMix64 (Steele, Lea, Flood 2014): tiny state, passes BigCrush, trivially portable.
// Bounded draws use multiply-shift with rejection, so results never depend on the
// standard library's distributions (which differ between implementations).
class Rng {
 public:
  explicit Rng(uint64_t state) : state_(state) {}

  // The state to start a game from a caller's seed.
  static uint64_t FromSeed(uint64_t seed) {
    Rng mix(seed ^ 0x6761'7665'6C2D'7631ull);  // "gavel-v1"
    return mix.Next();
  }

  uint64_t state() const { return state_; }

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n); n must be at least 1.
  uint32_t Below(uint32_t n) {
    uint64_t product = uint64_t{static_cast<uint32_t>(Next())} * n;
    uint32_t low = static_cast<uint32_t>(product);
    if (low < n) {
      const uint32_t threshold = static_cast<uint32_t>(-n) % n;
      while (low < threshold) {
        product = uint64_t{static_cast<uint32_t>(Next())} * n;
        low = static_cast<uint32_t>(product);
      }
    }
    return static_cast<uint32_t>(product >> 32);
  }

  // Draws one item uniformly from a multiset given as counts per kind; returns the kind.
  // `total` must equal the sum of counts and be at least 1.
  template <typename Count>
  int PickWeighted(const Count* counts, int kinds, int total) {
    int r = static_cast<int>(Below(static_cast<uint32_t>(total)));
    for (int kind = 0; kind < kinds; ++kind) {
      r -= static_cast<int>(counts[kind]);
      if (r < 0) return kind;
    }
    return kinds - 1;  // unreachable when total is the sum of counts
  }

  // The index of a uniformly drawn member of a set of bits; `set` must not be empty.
  int PickMember(uint64_t set) {
    for (uint32_t skip = Below(static_cast<uint32_t>(std::popcount(set))); skip > 0; --skip)
      set &= set - 1;
    return std::countr_zero(set);
  }

  // Fisher-Yates shuffle of [first, first + n).
  template <typename T>
  void Shuffle(T* first, int n) {
    for (int i = n - 1; i > 0; --i) {
      const int j = static_cast<int>(Below(static_cast<uint32_t>(i + 1)));
      T tmp = first[i];
      first[i] = first[j];
      first[j] = tmp;
    }
  }

 private:
  uint64_t state_;
};

}  // namespace gavel
