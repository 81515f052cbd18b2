#include "learn/learned_policy.h"

#include <filesystem>
#include <memory>
#include <regex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "policy/dirk/dirk.h"
#include "engine/core/status.h"
#include "spdlog/spdlog.h"

namespace gavel::learn {
namespace {

// The player count and seats of the table a network was trained for, from its metadata;
// refuses weights whose input size is not what this build's features give at that table
// (weights trained before a change to the game's features), which would otherwise never fit.
absl::StatusOr<std::pair<int, int>> TrainedTable(const Game& game, const QPolicy& network,
                                                 const std::string& path) {
  int players = 0;
  if (!absl::SimpleAtoi(network.Metadata("players"), &players))
    return absl::DataLossError(absl::StrCat(path, ": the metadata has no player count"));
  auto state = game.NewGame(players, 1, {});
  if (!state.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", state.status().message()));
  v1::View view;
  (*state)->Observe((*state)->to_move(), &view);
  auto inputs = InputSize(game, view, network.layout());
  if (!inputs.ok()) return inputs.status();
  if (*inputs != network.network().input_size())
    return absl::FailedPreconditionError(absl::StrCat(
        path, " takes ", network.network().input_size(), " inputs, but this build's ", game.name(),
        " features make ", *inputs, " at ", players,
        " players with its default options: the weights are from another version of the features "
        "(or from game options the metadata does not record); train them again"));
  return std::pair(players, (*state)->seats());
}

// A network file's advisor, by the name in its metadata.
absl::Status SetAdvisor(const Game& game, QPolicy& network, const std::string& path) {
  if (network.AdvisorName().empty()) return absl::OkStatus();
  if (network.AdvisorName() != "dirk")
    return absl::InvalidArgumentError(
        absl::StrCat(path, " needs the advisor ", network.AdvisorName(), ", which this build lacks"));
  auto advisor = policy::dirk::Dirk(game.name());
  if (!advisor.ok()) return advisor.status();
  network.set_advisor(*std::move(advisor));
  return absl::OkStatus();
}

}  // namespace

bool TrainedNetwork::TrainedFor(const v1::View& view) const {
  return static_cast<int>(view.seats()) == seats && (view.players() == 0 || view.players() == players);
}

absl::StatusOr<TrainedNetwork> LoadTrainedNetwork(const Game& game, const std::string& path) {
  auto network = QPolicy::Load(game, path);
  if (!network.ok()) return network.status();
  GAVEL_RETURN_IF_ERROR(SetAdvisor(game, *network, path));
  auto table = TrainedTable(game, *network, path);
  if (!table.ok()) return table.status();
  const auto [players, seats] = *table;
  return TrainedNetwork{seats, players, *std::move(network)};
}

absl::StatusOr<std::unique_ptr<LearnedPolicy>> LearnedPolicy::Load(const std::string& folder) {
  std::error_code error;
  std::filesystem::directory_iterator entries(folder, error);
  if (error)
    return absl::NotFoundError(absl::StrCat("cannot read the weights folder ", folder, ": ",
                                            error.message()));
  std::unique_ptr<LearnedPolicy> learned(new LearnedPolicy());
  const std::regex file_name(R"(([a-z_]+)-([0-9]+)p\.(gmlp|value))");
  for (const auto& entry : entries) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, match, file_name)) continue;
    const std::string path = entry.path().string();
    const Game* game = FindGame(match[1].str());
    if (game == nullptr) {  // the build may hold a subset of the games (GAVEL_GAMES)
      spdlog::debug("{}: {} is not in this build; skipped", path, match[1].str());
      continue;
    }
    if (match[3] == "value") {
      auto value = ValueNetwork::Load(*game, path);
      if (!value.ok()) return value.status();
      learned->values_[game->name()].push_back(*std::move(value));
      continue;
    }
    auto network = LoadTrainedNetwork(*game, path);
    if (!network.ok()) return network.status();
    learned->networks_[game->name()].push_back(*std::move(network));
  }
  if (learned->networks_.empty())
    return absl::NotFoundError(absl::StrCat("no <game>-<players>p.gmlp weights file in ", folder));
  return learned;
}

std::vector<std::string> LearnedPolicy::Games() const {
  std::vector<std::string> games;
  for (const auto& [game, networks] : networks_) games.push_back(game);
  return games;
}

// The network trained for this view's table (one file per table). Its input size is not
// checked here, which would featurize the view once more on every decision: loading checked
// it at the trained table, and a view of that table from a forged or older engine whose
// features differ or fail is refused by the network itself, never fed to it (Choose then
// plays Dirk's rules, as for a table without a network).
const QPolicy* LearnedPolicy::NetworkFor(const v1::View& view) const {
  auto it = networks_.find(view.game());
  if (it == networks_.end()) return nullptr;
  for (const TrainedNetwork& network : it->second)
    if (network.TrainedFor(view)) return &network.policy;
  return nullptr;
}

const ValueNetwork* LearnedPolicy::ValueFor(const v1::View& view) const {
  auto it = values_.find(view.game());
  if (it == values_.end()) return nullptr;
  for (const ValueNetwork& value : it->second)
    if (value.TrainedFor(view)) return &value;
  return nullptr;
}

bool LearnedPolicy::HasNetworkFor(const v1::View& view) const {
  const QPolicy* network = NetworkFor(view);
  if (network == nullptr) return false;
  auto size = InputSize(*FindGame(view.game()), view, network->layout());
  return size.ok() && *size == network->network().input_size();
}

absl::StatusOr<std::vector<float>> LearnedPolicy::Scores(const Turn& turn) const {
  const QPolicy* network = NetworkFor(turn.view());
  if (network == nullptr)
    return absl::NotFoundError(absl::StrCat("no network for ", turn.view().game(), " at ",
                                            turn.view().seats(), " seats, ", turn.view().players(),
                                            " players"));
  return network->Scores(turn);
}

void LearnedPolicy::WarnOnceAboutFallback(const v1::View& view) const {
  std::lock_guard lock(warned_mutex_);
  if (warned_.insert(absl::StrCat(view.game(), "/", view.seats(), "/", view.players())).second)
    spdlog::warn("no network fits {} at {} seats, {} players; playing Dirk's rules",
                 std::string(view.game()), view.seats(), view.players());
}

absl::StatusOr<Move> LearnedPolicy::Choose(const Turn& turn) const {
  if (turn.legal().empty()) return absl::InvalidArgumentError("no legal move to choose from");
  if (const QPolicy* network = NetworkFor(turn.view()); network != nullptr) {
    auto move = network->Choose(turn);
    if (move.ok()) return move;
  }
  auto dirk = policy::dirk::Dirk(turn.view().game());
  if (!dirk.ok())
    return absl::NotFoundError(absl::StrCat("no network and no Dirk rules for ", turn.view().game()));
  WarnOnceAboutFallback(turn.view());
  return (*dirk)(turn);
}

Policy LearnedPolicy::AsPolicy() const {
  return [this](const Turn& turn) { return Choose(turn); };
}

absl::StatusOr<Policy> NetworkFilePolicy(const Game& game, const std::string& path) {
  auto network = LoadTrainedNetwork(game, path);
  if (!network.ok()) return network.status();
  auto shared = std::make_shared<const TrainedNetwork>(*std::move(network));
  return Policy([shared, path](const Turn& turn) -> absl::StatusOr<Move> {
    if (!shared->TrainedFor(turn.view()))
      return absl::FailedPreconditionError(absl::StrCat(path, " was trained for ", shared->players,
                                                        " players, not for this table"));
    return shared->policy.Choose(turn);
  });
}

}  // namespace gavel::learn
