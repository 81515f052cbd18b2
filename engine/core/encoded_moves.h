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
  // Every id below `ids` whose `text` is fixed (not empty, see FixedMoveTexts), with the
  // game's move message `build` makes for it as the detail: the arguments of the game's
  // FixedMoveTexts and PackedMoveDetails, so that the bytes are what MoveText and MoveDetail
  // give.
  template <typename Message>
  EncodedMoves(uint32_t ids, FixedMoveTexts::Text text, void (*build)(Move move, Message* out)) : bytes_(ids) {
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

}  // namespace gavel
