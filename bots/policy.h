#pragma once
// What a bot decides with: a policy sees only its seat's view and the legal moves.
#include <cstdint>
#include <string>
#include <vector>

#include "gavel/v1/engine.pb.h"

namespace gavel::bots {

using LegalMoves = google::protobuf::RepeatedPtrField<v1::Move>;

class Policy {
 public:
  virtual ~Policy() = default;
  // The games it plays (what the bot claims in its hello).
  virtual std::vector<std::string> Games() const = 0;
  // The id of one of `legal` (never empty) for the seat whose view is `view`.
  virtual uint32_t Choose(const v1::View& view, const LegalMoves& legal) = 0;
};

}  // namespace gavel::bots
