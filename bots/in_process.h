#pragma once
// Bot policies as in-process learn::Policy, for training and evaluation: the same code the
// bot processes run, given the moves with their details exactly as the arena sends them.
#include "absl/strings/str_cat.h"
#include "bots/dirk/dirk.h"
#include "bots/learned_policy.h"
#include "learn/play.h"

namespace gavel::bots {

// Dirk's rules for `game`; an error names a game Dirk does not play.
inline absl::StatusOr<learn::Policy> DirkInProcess(const std::string& game) {
  auto rules = dirk::Policies().find(game);
  if (rules == dirk::Policies().end())
    return absl::NotFoundError(absl::StrCat("Dirk does not play ", game));
  return learn::Policy([choose = rules->second](const learn::Turn& turn, Rng&) -> absl::StatusOr<Move> {
    return Move{choose(turn.view(), turn.Described())};
  });
}

// Dirk's choice as advice for a learned network (learn/q_policy.h).
inline absl::StatusOr<learn::Advisor> DirkAdvisor(const std::string& game) {
  auto rules = dirk::Policies().find(game);
  if (rules == dirk::Policies().end())
    return absl::NotFoundError(absl::StrCat("Dirk does not play ", game));
  return learn::Advisor([choose = rules->second](const learn::Turn& turn) -> absl::StatusOr<Move> {
    return Move{choose(turn.view(), turn.Described())};
  });
}

// The learned bot's choice; `learned` must outlive the policy.
inline learn::Policy LearnedInProcess(const LearnedPolicy& learned) {
  return [&learned](const learn::Turn& turn, Rng&) -> absl::StatusOr<Move> {
    auto id = learned.ChooseOrError(turn.view(), turn.Described());
    if (!id.ok()) return id.status();
    return Move{*id};
  };
}

}  // namespace gavel::bots
