#include "policy/policy.h"

namespace gavel::policy {

const LegalMoves& Turn::Described() const {
  if (described_given_ != nullptr) return *described_given_;
  if (!described_) {
    described_.emplace();
    for (Move move : legal_) {
      v1::Move* described = (*described_)->Add();
      described->set_id(move.id);
      state_->MoveDetail(move, described->mutable_detail());
    }
  }
  return **described_;
}

Policy RandomPolicy() {
  return [](const Turn& turn) -> absl::StatusOr<Move> {
    if (turn.legal().empty()) return absl::InvalidArgumentError("no legal move to choose from");
    return turn.legal()[turn.rng().Below(static_cast<uint32_t>(turn.legal().size()))];
  };
}

}  // namespace gavel::policy
