#pragma once
// FNV-1a 64: the state hash replays record after every move. Detects divergence between a
// replay and the engine; it is not a cryptographic hash and guards nothing against an
// adversary (sealed states use authenticated encryption for that).
#include <cstdint>
#include <string_view>

namespace gavel {

constexpr uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char byte : bytes) hash = (hash ^ byte) * 0x100000001b3ull;
  return hash;
}

}  // namespace gavel
