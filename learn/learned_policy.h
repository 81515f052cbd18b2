#pragma once
// The learned bot's policy: Q(s, a) networks trained by gavel-train, one weights file per
// game and player count, `<game>-<players>p.gmlp` in a weights folder. A turn is played by
// the network of its game trained for its table (View.seats and View.players: in Moonlight
// Market one, two and three players all sit at three seats) whose input size fits the
// view's features. A table no network was trained for is played by Dirk's rules,
// with a warning in the log, so the bot never stalls a match. Networks trained with Dirk's
// advice (metadata `advice=dirk`) get Dirk as their advisor.
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "learn/q_policy.h"
#include "learn/value_network.h"
#include "policy/policy.h"

namespace gavel::learn {

// One weights file with the table it was trained for.
struct TrainedNetwork {
  int seats = 0;    // of the table it was trained for, automata included
  int players = 0;  // the player count it was trained for
  QPolicy policy;
  // Whether `view` is of that table (a view without a player count, from an engine older
  // than View.players, goes by its seats).
  bool TrainedFor(const v1::View& view) const;
};

// Loads a weights file of `game` with its advisor (from the metadata) set. An error names
// the file.
absl::StatusOr<TrainedNetwork> LoadTrainedNetwork(const Game& game, const std::string& path);

class LearnedPolicy {
 public:
  // Loads every `<game>-<players>p.gmlp` in `folder`; weights of games not in this build are
  // skipped. An error names the file that failed.
  static absl::StatusOr<std::unique_ptr<LearnedPolicy>> Load(const std::string& folder);

  // The games with at least one network.
  std::vector<std::string> Games() const;
  // The move, or an error for a turn of a game it neither has a network nor Dirk's rules
  // for. Safe to call from several threads at once.
  absl::StatusOr<Move> Choose(const Turn& turn) const;
  // Whether a network (not Dirk's fallback) plays this view.
  bool HasNetworkFor(const v1::View& view) const;
  // The network's score of each of the turn's legal moves (higher is better); NotFound where
  // no network fits the table.
  absl::StatusOr<std::vector<float>> Scores(const Turn& turn) const;
  // Choose() as a Policy; this object must outlive it.
  Policy AsPolicy() const;
  // The value network of this view's table (`<game>-<players>p.value` in the folder, for the
  // search bot), or null.
  const ValueNetwork* ValueFor(const v1::View& view) const;
  // Whether the folder held a value network of `game` for any table.
  bool HasValueNetworks(const std::string& game) const { return values_.contains(game); }

 private:
  LearnedPolicy() = default;
  const QPolicy* NetworkFor(const v1::View& view) const;
  void WarnOnceAboutFallback(const v1::View& view) const;

  std::map<std::string, std::vector<TrainedNetwork>> networks_;  // by game
  std::map<std::string, std::vector<ValueNetwork>> values_;       // by game
  mutable std::mutex warned_mutex_;
  mutable std::set<std::string> warned_;
};

// One weights file played on its own, e.g. a past snapshot of a network in a league of
// opponents (PolicyNamed's "learned:<file>"). Its advisor comes from its metadata; a view of
// another table than the one it was trained for is an error. An error names the file.
absl::StatusOr<Policy> NetworkFilePolicy(const Game& game, const std::string& path);

}  // namespace gavel::learn
