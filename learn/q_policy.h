#pragma once
// A learned policy: Q(s, a) from a seat's view features and a move's features, scored by
// an Mlp; the policy plays the move with the highest Q.
//
// An advised network also sees the move an advisor (a policy of the view only, e.g. Dirk's
// rules) recommends: each row holds the view's features, the advised move's features, the
// scored move's features and whether the two are the same move. Trained on each move's
// gain over the advice, it compares two moves in context instead of having to work out
// from the view alone what the advisor would play. Its weights name the advisor and the
// input layout in their metadata (`advice=<name>`, `inputs=<layout>`, see InputLayout).
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "learn/mlp.h"
#include "learn/play.h"

namespace gavel::learn {

// What a network's input row holds, in order; the weights' metadata names it (`inputs=`).
enum class InputLayout {
  kViewMove,                // inputs=view,move (no advisor)
  kViewMoveAdvised,         // inputs=view,move,advised (files without `inputs=`)
  kViewAdviceMoveAdvised,   // inputs=view,advice_move,move,advised (what gavel-train writes)
};

// The layout a network is built with: with an advisor, the advice's features beside the move's.
InputLayout LayoutFor(const std::string& advisor_name);

// An advisor is a policy whose move a network sees as advice.
using Advisor = Policy;

class QPolicy {
 public:
  // `advisor_name` empty: a network without advice. The input layout follows.
  QPolicy(const Game& game, Mlp network, std::string advisor_name = "", Advisor advisor = {});
  // Loads weights saved for `game` (the metadata names the game). An advised network needs
  // its advisor set before it plays.
  static absl::StatusOr<QPolicy> Load(const Game& game, const std::string& path);

  // Saves the weights with the advice margin in their metadata.
  absl::Status Save(const std::string& path) const;

  // The value of `key` in the weights' metadata (key=value lines), empty if absent.
  std::string Metadata(const std::string& key) const;
  // The advisor this network was trained with, empty if none.
  const std::string& AdvisorName() const { return advisor_name_; }
  InputLayout layout() const { return layout_; }
  void set_advisor(Advisor advisor) { advisor_ = std::move(advisor); }
  // An advised network plays another move than the advice only when that move's Q exceeds
  // the advice's by more than this margin: Monte-Carlo estimates are noisy, and many small
  // mistaken deviations cost more than the few good ones win (metadata `margin=`).
  double advice_margin() const { return advice_margin_; }
  void set_advice_margin(double margin) { advice_margin_ = margin; }

  // The network's input rows for `moves` (a subset of the turn's legal moves); `advice`,
  // if given, receives the advisor's move.
  absl::Status Rows(const Turn& turn, std::span<const Move> moves, Mlp::Matrix* rows,
                    std::optional<Move>* advice = nullptr) const;
  // Q of every legal move, in order.
  absl::StatusOr<std::vector<float>> Scores(const Turn& turn,
                                            std::optional<Move>* advice = nullptr) const;
  // The move with the highest Q (the first among equals).
  absl::StatusOr<Move> Choose(const Turn& turn) const;

  const Mlp& network() const { return network_; }
  Mlp& mutable_network() { return network_; }

 private:
  // The part of every row the moves share (the view's features, then the advised move's
  // in the compared layout) and, per move, its features and the advice bit.
  absl::Status Inputs(const Turn& turn, std::span<const Move> moves, Eigen::VectorXf* observation,
                      Mlp::Matrix* move_rows, std::optional<Move>* advice) const;

  const Game* game_;
  Mlp network_;
  InputLayout layout_;
  std::string advisor_name_;
  Advisor advisor_;
  double advice_margin_ = 0;
};

// The length of a row in `layout` for this view's game.
absl::StatusOr<int> InputSize(const Game& game, const v1::View& view, InputLayout layout);

}  // namespace gavel::learn
