#pragma once
// The wire bytes of the v1::Move (id, detail, text) of every move whose description depends
// on its id alone, built once per game. The service lists every legal move of each turn it
// answers; copying a move's bytes costs a tenth of describing it through a Move message.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "engine/core/move_texts.h"
#include "engine/core/proto_util.h"
#include "engine/core/types.h"
#include "gavel/v1/engine.pb.h"

namespace gavel {

class EncodedMoves {
 public:
  // Every id below `ids` whose `text(move)` is fixed (not empty, see FixedMoveTexts), with
  // the game's move message `build` makes for it as the detail: the functions behind the
  // game's MoveText and MoveDetail, so that the bytes are what those give.
  template <typename Text, typename Message>
  EncodedMoves(uint32_t ids, const Text& text, void (*build)(Move move, Message* out)) : bytes_(ids) {
    for (uint32_t id = 0; id < ids; ++id) {
      v1::Move message;
      message.set_text(text(Move{id}));
      if (message.text().empty()) continue;
      message.set_id(id);
      Message detail;
      build(Move{id}, &detail);
      PackAny(detail, message.mutable_detail());
      message.SerializeToString(&bytes_[id]);
    }
  }
  // The bytes of `move`'s v1::Move, or empty when it is not cached.
  absl::string_view Find(Move move) const {
    return move.id < bytes_.size() ? absl::string_view(bytes_[move.id]) : absl::string_view();
  }

 private:
  std::vector<std::string> bytes_;
};

// The same for a game whose move texts name one piece of the state besides the id (Sultan's
// bid names the jewel on its cushion, Mercado's placement the tile at its position): one
// table per value of that piece, `variants` of them, built from `text(move, variant)`.
class VariantEncodedMoves {
 public:
  template <typename Text, typename Message>
  VariantEncodedMoves(uint32_t ids, int variants, const Text& text, void (*build)(Move move, Message* out)) {
    tables_.reserve(variants);
    for (int variant = 0; variant < variants; ++variant)
      tables_.emplace_back(ids, [&](Move move) { return text(move, variant); }, build);
  }
  // The bytes of `move`'s v1::Move where its text names `variant`, or empty.
  absl::string_view Find(Move move, int variant) const { return tables_[variant].Find(move); }

 private:
  std::vector<EncodedMoves> tables_;
};

}  // namespace gavel
