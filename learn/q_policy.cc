#include "learn/q_policy.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/core/status.h"

namespace gavel::learn {

namespace {

constexpr std::pair<InputLayout, absl::string_view> kLayoutNames[] = {
    {InputLayout::kViewMove, "view,move"},
    {InputLayout::kViewMoveAdvised, "view,move,advised"},
    {InputLayout::kViewAdviceMoveAdvised, "view,advice_move,move,advised"},
};

absl::string_view LayoutName(InputLayout layout) {
  for (const auto& [known, name] : kLayoutNames)
    if (known == layout) return name;
  return "";
}

bool Advised(InputLayout layout) { return layout != InputLayout::kViewMove; }

}  // namespace

InputLayout LayoutFor(const std::string& advisor_name) {
  return advisor_name.empty() ? InputLayout::kViewMove : InputLayout::kViewAdviceMoveAdvised;
}

absl::StatusOr<int> InputSize(const Game& game, const v1::View& view, InputLayout layout) {
  Features features;
  GAVEL_RETURN_IF_ERROR(game.Featurize(view, {}, &features));
  const int move_blocks = layout == InputLayout::kViewAdviceMoveAdvised ? 2 : 1;
  return static_cast<int>(features.observation.size()) + move_blocks * features.move_size +
         (Advised(layout) ? 1 : 0);
}

QPolicy::QPolicy(const Game& game, Mlp network, std::string advisor_name, Advisor advisor)
    : game_(&game),
      network_(std::move(network)),
      layout_(LayoutFor(advisor_name)),
      advisor_name_(std::move(advisor_name)),
      advisor_(std::move(advisor)) {}

absl::StatusOr<QPolicy> QPolicy::Load(const Game& game, const std::string& path) {
  auto network = Mlp::Load(path);
  if (!network.ok()) return network.status();
  if (network->MetadataValue("game") != game.name())
    return absl::FailedPreconditionError(
        absl::StrCat("weights file ", path, " was not trained for ", game.name()));
  QPolicy policy(game, std::move(*network));
  policy.advisor_name_ = policy.Metadata("advice");
  // Files written before the layout was named hold the view, the move and the advice bit.
  const std::string inputs = policy.Metadata("inputs");
  bool known = inputs.empty();
  policy.layout_ = policy.advisor_name_.empty() ? InputLayout::kViewMove : InputLayout::kViewMoveAdvised;
  for (const auto& [layout, name] : kLayoutNames)
    if (inputs == name) known = true, policy.layout_ = layout;
  if (!known)
    return absl::FailedPreconditionError(
        absl::StrCat("weights file ", path, " has the input layout '", inputs, "', unknown to this build"));
  if (Advised(policy.layout_) == policy.advisor_name_.empty())
    return absl::DataLossError(absl::StrCat("weights file ", path, ": input layout '", inputs,
                                            "' does not fit advice '", policy.advisor_name_, "'"));
  if (const std::string margin = policy.Metadata("margin");
      !margin.empty() && !absl::SimpleAtod(margin, &policy.advice_margin_))
    return absl::DataLossError(absl::StrCat("weights file ", path, ": margin is not a number"));
  return policy;
}

absl::Status QPolicy::Save(const std::string& path) const {
  Mlp copy = network_;
  // The layout and margin last, whatever the network was loaded with.
  copy.EraseMetadataValue("inputs");
  copy.EraseMetadataValue("margin");
  copy.SetMetadataValue("inputs", LayoutName(layout_));
  if (!advisor_name_.empty()) copy.SetMetadataValue("margin", absl::StrCat(advice_margin_));
  return copy.Save(path);
}

std::string QPolicy::Metadata(const std::string& key) const { return network_.MetadataValue(key); }

absl::Status QPolicy::Inputs(const Turn& turn, std::span<const Move> moves,
                             Eigen::VectorXf* observation, Mlp::Matrix* move_rows,
                             std::optional<Move>* advice_out) const {
  const bool advised = Advised(layout_);
  std::optional<Move> advice;
  if (advised) {
    if (!advisor_)
      return absl::FailedPreconditionError(
          absl::StrCat("the network needs the advisor ", advisor_name_, ", which is not set"));
    auto move = advisor_(turn);
    if (!move.ok()) return move.status();
    advice = *move;
  }
  // The advised move's features come last, after those of `moves`.
  const bool compared = layout_ == InputLayout::kViewAdviceMoveAdvised;
  std::vector<Move> featurized(moves.begin(), moves.end());
  if (compared) featurized.push_back(*advice);
  Features features;
  GAVEL_RETURN_IF_ERROR(game_->Featurize(turn.view(), featurized, &features));
  const int obs = static_cast<int>(features.observation.size());
  const int shared = obs + (compared ? features.move_size : 0);
  const int move_columns = features.move_size + (advised ? 1 : 0);
  if (shared + move_columns != network_.input_size())
    return absl::FailedPreconditionError(absl::StrCat("the network expects ", network_.input_size(),
                                                      " inputs; this view gives ", shared + move_columns));
  observation->resize(shared);
  std::copy(features.observation.begin(), features.observation.end(), observation->data());
  if (compared)
    std::copy(features.moves.end() - features.move_size, features.moves.end(), observation->data() + obs);
  move_rows->resize(static_cast<Eigen::Index>(moves.size()), move_columns);
  for (size_t i = 0; i < moves.size(); ++i) {
    float* row = move_rows->row(static_cast<Eigen::Index>(i)).data();
    std::copy(features.moves.begin() + static_cast<std::ptrdiff_t>(i * features.move_size),
              features.moves.begin() + static_cast<std::ptrdiff_t>((i + 1) * features.move_size), row);
    if (advised) row[move_columns - 1] = moves[i] == *advice ? 1.f : 0.f;
  }
  if (advice_out != nullptr) *advice_out = advice;
  return absl::OkStatus();
}

absl::Status QPolicy::Rows(const Turn& turn, std::span<const Move> moves, Mlp::Matrix* rows,
                          std::optional<Move>* advice) const {
  Eigen::VectorXf observation;
  Mlp::Matrix move_rows;
  GAVEL_RETURN_IF_ERROR(Inputs(turn, moves, &observation, &move_rows, advice));
  rows->resize(move_rows.rows(), observation.size() + move_rows.cols());
  rows->leftCols(observation.size()).rowwise() = observation.transpose();
  rows->rightCols(move_rows.cols()) = move_rows;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> QPolicy::Scores(const Turn& turn,
                                                   std::optional<Move>* advice) const {
  Eigen::VectorXf observation;
  Mlp::Matrix move_rows;
  GAVEL_RETURN_IF_ERROR(Inputs(turn, turn.legal(), &observation, &move_rows, advice));
  const Eigen::VectorXf q = network_.ForwardShared(observation, move_rows);
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
