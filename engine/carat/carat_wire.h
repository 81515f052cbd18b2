#pragma once
// Conversions between Carat's native values and its proto messages, shared by the rules
// (events, move details), the codec and the features.
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/carat/carat.h"
#include "gavel/v1/carat.pb.h"

namespace gavel::carat {

inline v1::CaratColour ProtoColour(int colour) {
  return colour == kNoColour ? v1::CARAT_COLOUR_UNSPECIFIED
                             : static_cast<v1::CaratColour>(colour + 1);
}

inline void TileToProto(int tile, v1::CaratTile* out) {
  out->set_type(static_cast<v1::CaratTileType>(TileType(tile) + 1));
  out->set_value(static_cast<uint32_t>(TileValue(tile)));
}

// The tile id of a proto tile, or -1 when its type or value is out of range.
inline int TileFromProto(const v1::CaratTile& tile) {
  const int type = static_cast<int>(tile.type());
  if (type < 1 || type > kTypes || tile.value() < 1 || tile.value() > kMaxValue) return -1;
  return TileId(type - 1, static_cast<int>(tile.value()));
}

// Decodes a view's public part and the viewer's hand into `data` (ranges checked, no
// invariants: other hands and the supply stay empty).
absl::Status DecodeView(const v1::View& view_proto, v1::CaratView* view, Data* data);

// "A5": the tile's type letter and carat value.
inline std::string TileName(int tile) {
  return absl::StrCat(std::string(1, static_cast<char>('A' + TileType(tile))), TileValue(tile));
}

}  // namespace gavel::carat
