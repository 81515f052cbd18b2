#include "learn/q_policy.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gavel::learn {

absl::Status FeatureRows(const Game& game, const v1::View& view, std::span<const Move> legal,
                         Mlp::Matrix* rows) {
  Features features;
  if (auto status = game.Featurize(view, legal, &features); !status.ok()) return status;
  const int obs = static_cast<int>(features.observation.size());
  rows->resize(static_cast<Eigen::Index>(legal.size()), obs + features.move_size);
  for (size_t i = 0; i < legal.size(); ++i) {
    float* row = rows->row(static_cast<Eigen::Index>(i)).data();
    std::copy(features.observation.begin(), features.observation.end(), row);
    std::copy(features.moves.begin() + static_cast<std::ptrdiff_t>(i * features.move_size),
              features.moves.begin() + static_cast<std::ptrdiff_t>((i + 1) * features.move_size),
              row + obs);
  }
  return absl::OkStatus();
}

absl::StatusOr<QPolicy> QPolicy::Load(const Game& game, const std::string& path) {
  auto network = Mlp::Load(path);
  if (!network.ok()) return network.status();
  if (!absl::StrContains(network->metadata, absl::StrCat("game=", game.name(), "\n")))
    return absl::FailedPreconditionError(
        absl::StrCat("weights file ", path, " was not trained for ", game.name()));
  return QPolicy(game, std::move(*network));
}

absl::StatusOr<std::vector<float>> QPolicy::Scores(const v1::View& view,
                                                   std::span<const Move> legal) const {
  Mlp::Matrix rows;
  if (auto status = FeatureRows(*game_, view, legal, &rows); !status.ok()) return status;
  if (rows.cols() != network_.input_size())
    return absl::FailedPreconditionError(absl::StrCat("the network expects ", network_.input_size(),
                                                      " inputs; this view gives ", rows.cols()));
  const Eigen::VectorXf q = network_.Forward(rows);
  return std::vector<float>(q.data(), q.data() + q.size());
}

absl::StatusOr<Move> QPolicy::Choose(const v1::View& view, std::span<const Move> legal) const {
  if (legal.empty()) return absl::InvalidArgumentError("no legal move to choose from");
  auto scores = Scores(view, legal);
  if (!scores.ok()) return scores.status();
  size_t best = 0;
  for (size_t i = 1; i < scores->size(); ++i)
    if ((*scores)[i] > (*scores)[best]) best = i;
  return legal[best];
}

}  // namespace gavel::learn
