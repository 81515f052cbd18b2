#pragma once
// A learned policy: Q(s, a) from a seat's view features and a move's features, scored by
// an Mlp; the policy plays the move with the highest Q.
#include <random>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "learn/mlp.h"

namespace gavel::learn {

class QPolicy {
 public:
  QPolicy(const Game& game, Mlp network) : game_(&game), network_(std::move(network)) {}
  // Loads weights saved for `game` (the metadata names the game).
  static absl::StatusOr<QPolicy> Load(const Game& game, const std::string& path);

  // Q of every move in `legal`, in order.
  absl::StatusOr<std::vector<float>> Scores(const v1::View& view, std::span<const Move> legal) const;
  // The move with the highest Q (the first among equals).
  absl::StatusOr<Move> Choose(const v1::View& view, std::span<const Move> legal) const;

  const Mlp& network() const { return network_; }
  Mlp& mutable_network() { return network_; }

 private:
  const Game* game_;
  Mlp network_;
};

// The network's input rows for a decision: the observation followed by each move's features.
absl::Status FeatureRows(const Game& game, const v1::View& view, std::span<const Move> legal,
                         Mlp::Matrix* rows);

}  // namespace gavel::learn
