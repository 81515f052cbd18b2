#include "bots/learned_policy.h"

#include <filesystem>
#include <regex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bots/dirk/dirk.h"
#include "bots/in_process.h"
#include "engine/core/registry.h"
#include "spdlog/spdlog.h"

namespace gavel::bots {
namespace {

std::vector<Move> Ids(const LegalMoves& legal) {
  std::vector<Move> ids;
  ids.reserve(static_cast<size_t>(legal.size()));
  for (const v1::Move& move : legal) ids.push_back(Move{move.id()});
  return ids;
}

// The seats of the table a network was trained for, from its metadata.
absl::StatusOr<int> TrainedSeats(const Game& game, const learn::QPolicy& network,
                                 const std::string& path) {
  int players = 0;
  if (!absl::SimpleAtoi(network.Metadata("players"), &players))
    return absl::DataLossError(absl::StrCat(path, ": the metadata has no player count"));
  auto state = game.NewGame(players, 1, {});
  if (!state.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", state.status().message()));
  return (*state)->seats();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LearnedPolicy>> LearnedPolicy::Load(const std::string& folder) {
  std::error_code error;
  std::filesystem::directory_iterator entries(folder, error);
  if (error)
    return absl::NotFoundError(absl::StrCat("cannot read the weights folder ", folder, ": ",
                                            error.message()));
  std::unique_ptr<LearnedPolicy> policy(new LearnedPolicy());
  const std::regex file_name(R"(([a-z_]+)-([0-9]+)p\.gmlp)");
  for (const auto& entry : entries) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, match, file_name)) continue;
    const Game* game = FindGame(match[1].str());
    if (game == nullptr) {  // the build may hold a subset of the games (GAVEL_GAMES)
      spdlog::debug("{}: {} is not in this build; skipped", entry.path().string(), match[1].str());
      continue;
    }
    auto network = learn::QPolicy::Load(*game, entry.path().string());
    if (!network.ok()) return network.status();
    if (network->AdvisorName() == "dirk") {
      auto advisor = DirkAdvisor(game->name());
      if (!advisor.ok()) return advisor.status();
      network->set_advisor(*advisor);
    } else if (!network->AdvisorName().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(entry.path().string(), " needs the advisor ",
                                                     network->AdvisorName(), ", which this build lacks"));
    }
    auto seats = TrainedSeats(*game, *network, entry.path().string());
    if (!seats.ok()) return seats.status();
    policy->networks_[game->name()].push_back(Network{*seats, std::move(*network)});
  }
  if (policy->networks_.empty())
    return absl::NotFoundError(absl::StrCat("no <game>-<players>p.gmlp weights file in ", folder));
  return policy;
}

std::vector<std::string> LearnedPolicy::Games() const {
  std::vector<std::string> games;
  for (const auto& [game, networks] : networks_) games.push_back(game);
  return games;
}

const learn::QPolicy* LearnedPolicy::NetworkFor(const v1::View& view) const {
  auto it = networks_.find(view.game());
  if (it == networks_.end()) return nullptr;
  const Game& game = *FindGame(view.game());
  const int seats = view.seats();  // automata included
  for (const Network& network : it->second) {
    if (network.seats != seats) continue;
    // Weights made for another feature layout are never fed features they do not fit.
    auto size = learn::InputSize(game, view, network.policy.layout());
    if (size.ok() && *size == network.policy.network().input_size()) return &network.policy;
  }
  return nullptr;
}

bool LearnedPolicy::HasNetworkFor(const v1::View& view) const { return NetworkFor(view) != nullptr; }

absl::StatusOr<uint32_t> LearnedPolicy::ChooseOrError(const v1::View& view,
                                                      const LegalMoves& legal) const {
  if (legal.empty()) return absl::InvalidArgumentError("no legal move to choose from");
  const std::vector<Move> ids = Ids(legal);
  if (const learn::QPolicy* network = NetworkFor(view); network != nullptr) {
    auto move = network->Choose(learn::Turn(view, ids, legal));
    if (!move.ok()) return move.status();
    return move->id;
  }
  auto dirk = dirk::Policies().find(view.game());
  if (dirk == dirk::Policies().end())
    return absl::NotFoundError(absl::StrCat("no network and no Dirk rules for ", view.game()));
  {
    std::lock_guard lock(warned_mutex_);
    const int seats = view.seats();
    if (warned_.insert(absl::StrCat(view.game(), "/", seats)).second)
      spdlog::warn("no network for {} at {} seats; playing Dirk's rules", std::string(view.game()),
                   seats);
  }
  return dirk->second(view, legal);
}

uint32_t LearnedPolicy::Choose(const v1::View& view, const LegalMoves& legal) {
  auto move = ChooseOrError(view, legal);
  if (move.ok()) return *move;
  spdlog::error("learned: {}; playing the first legal move", move.status().ToString());
  return legal.Get(0).id();
}

}  // namespace gavel::bots
