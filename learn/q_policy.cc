#include "learn/q_policy.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gavel::learn {

absl::StatusOr<int> InputSize(const Game& game, const v1::View& view, bool advised) {
  Features features;
  if (auto status = game.Featurize(view, {}, &features); !status.ok()) return status;
  return static_cast<int>(features.observation.size()) + features.move_size + (advised ? 1 : 0);
}

absl::StatusOr<QPolicy> QPolicy::Load(const Game& game, const std::string& path) {
  auto network = Mlp::Load(path);
  if (!network.ok()) return network.status();
  if (!absl::StrContains(network->metadata, absl::StrCat("game=", game.name(), "\n")))
    return absl::FailedPreconditionError(
        absl::StrCat("weights file ", path, " was not trained for ", game.name()));
  QPolicy policy(game, std::move(*network));
  policy.advisor_name_ = policy.Metadata("advice");
  if (const std::string margin = policy.Metadata("margin");
      !margin.empty() && !absl::SimpleAtod(margin, &policy.advice_margin_))
    return absl::DataLossError(absl::StrCat("weights file ", path, ": margin is not a number"));
  return policy;
}

absl::Status QPolicy::Save(const std::string& path) const {
  Mlp copy = network_;
  copy.metadata.clear();
  for (absl::string_view line : absl::StrSplit(network_.metadata, '\n', absl::SkipEmpty()))
    if (!absl::StartsWith(line, "margin=")) absl::StrAppend(&copy.metadata, line, "\n");
  if (!advisor_name_.empty()) absl::StrAppend(&copy.metadata, "margin=", advice_margin_, "\n");
  return copy.Save(path);
}

std::string QPolicy::Metadata(const std::string& key) const {
  for (absl::string_view line : absl::StrSplit(network_.metadata, '\n')) {
    std::pair<std::string, std::string> entry = absl::StrSplit(line, absl::MaxSplits('=', 1));
    if (entry.first == key) return entry.second;
  }
  return "";
}

absl::Status QPolicy::Rows(const Turn& turn, std::span<const Move> moves, Mlp::Matrix* rows,
                          std::optional<Move>* advice_out) const {
  Features features;
  if (auto status = game_->Featurize(turn.view(), moves, &features); !status.ok()) return status;
  const bool advised = !advisor_name_.empty();
  std::optional<Move> advice;
  if (advised) {
    if (!advisor_)
      return absl::FailedPreconditionError(
          absl::StrCat("the network needs the advisor ", advisor_name_, ", which is not set"));
    auto move = advisor_(turn);
    if (!move.ok()) return move.status();
    advice = *move;
  }
  const int obs = static_cast<int>(features.observation.size());
  const int columns = obs + features.move_size + (advised ? 1 : 0);
  if (columns != network_.input_size())
    return absl::FailedPreconditionError(absl::StrCat("the network expects ", network_.input_size(),
                                                      " inputs; this view gives ", columns));
  rows->resize(static_cast<Eigen::Index>(moves.size()), columns);
  for (size_t i = 0; i < moves.size(); ++i) {
    float* row = rows->row(static_cast<Eigen::Index>(i)).data();
    std::copy(features.observation.begin(), features.observation.end(), row);
    std::copy(features.moves.begin() + static_cast<std::ptrdiff_t>(i * features.move_size),
              features.moves.begin() + static_cast<std::ptrdiff_t>((i + 1) * features.move_size),
              row + obs);
    if (advised) row[columns - 1] = moves[i] == *advice ? 1.f : 0.f;
  }
  if (advice_out != nullptr) *advice_out = advice;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> QPolicy::Scores(const Turn& turn,
                                                   std::optional<Move>* advice) const {
  Mlp::Matrix rows;
  if (auto status = Rows(turn, turn.legal(), &rows, advice); !status.ok()) return status;
  const Eigen::VectorXf q = network_.Forward(rows);
  return std::vector<float>(q.data(), q.data() + q.size());
}

absl::StatusOr<Move> QPolicy::Choose(const Turn& turn) const {
  if (turn.legal().empty()) return absl::InvalidArgumentError("no legal move to choose from");
  std::optional<Move> advice;
  auto scores = Scores(turn, &advice);
  if (!scores.ok()) return scores.status();
  const std::span<const Move> legal = turn.legal();
  size_t best = 0;
  for (size_t i = 1; i < scores->size(); ++i)
    if ((*scores)[i] > (*scores)[best]) best = i;
  if (advice) {
    const size_t advised = static_cast<size_t>(std::find(legal.begin(), legal.end(), *advice) - legal.begin());
    if (advised < legal.size() && (*scores)[best] <= (*scores)[advised] + advice_margin_) best = advised;
  }
  return legal[best];
}

}  // namespace gavel::learn
