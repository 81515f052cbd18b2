#pragma once
// The learned bot: Q(s, a) networks trained by gavel-train (learn/), one weights file per
// game and player count, `<game>-<players>p.gmlp` in a weights folder. A view is played by
// the network of its game trained for its table's seat count (read from a state resampled
// from the view) whose input size fits the view's features. A table no network was trained for is played by Dirk's rules, with a
// warning in the log, so the bot never stalls a match.
// Networks trained with Dirk's advice (metadata `advice=dirk`) get Dirk as their advisor.
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bots/policy.h"
#include "learn/q_policy.h"

namespace gavel::bots {

class LearnedPolicy final : public Policy {
 public:
  // Loads every `<game>-<players>p.gmlp` in `folder`; an error names the file that failed.
  static absl::StatusOr<std::unique_ptr<LearnedPolicy>> Load(const std::string& folder);

  // The games with at least one network.
  std::vector<std::string> Games() const override;
  // Thread-safe.
  uint32_t Choose(const v1::View& view, const LegalMoves& legal) override;
  // The move, or an error for a view that is not of a game or shape it knows.
  absl::StatusOr<uint32_t> ChooseOrError(const v1::View& view, const LegalMoves& legal) const;
  // Whether a network (not the fallback) plays this view.
  bool HasNetworkFor(const v1::View& view) const;

 private:
  LearnedPolicy() = default;
  const learn::QPolicy* NetworkFor(const v1::View& view) const;

  struct Network {
    int seats = 0;  // of the table it was trained for, automata included
    learn::QPolicy policy;
  };
  std::map<std::string, std::vector<Network>> networks_;  // by game
  mutable std::mutex warned_mutex_;
  mutable std::set<std::string> warned_;
};

}  // namespace gavel::bots
