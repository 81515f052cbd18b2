#pragma once
// Move texts that depend on the move id alone, built once per game: the service describes
// every legal move of every turn it answers, and formatting each text per call was 17% of
// Carat's combined call.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/types.h"

namespace gavel {

class FixedMoveTexts {
 public:
  // `text(move)` is the text of a move whose text is fixed by its id, or empty when the text
  // depends on the state (it is then built per call by the game). Ids from `ids` on are
  // never fixed.
  using Text = std::string (*)(Move move);
  FixedMoveTexts(uint32_t ids, Text text) : texts_(ids) {
    for (uint32_t id = 0; id < ids; ++id) texts_[id] = text(Move{id});
  }
  // The fixed text of `move`, or nullptr.
  const std::string* Find(Move move) const {
    if (move.id >= texts_.size() || texts_[move.id].empty()) return nullptr;
    return &texts_[move.id];
  }

 private:
  std::vector<std::string> texts_;
};

}  // namespace gavel
