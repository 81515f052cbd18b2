#pragma once
// A field evaluation: several policies at mixed tables, the way a competition measures bots.
// Each deal seats `players` of the field (all of them when the field is as large as the table;
// otherwise the next combination of the field, in turn, so every group meets equally often;
// with fewer policies than seats, some hold two), and is played once per rotation of those
// bots over the seats; the order they sit in around the table changes every time a group
// comes round (engine/core/seating.h), so nobody always sits after the same policy. Every
// policy gets a Weng-Lin rating (the arena's), its win rate (a win
// shared by k counts 1/k) and mean score with its 95% interval, and how often it placed above
// each other member at the tables they shared, from which the same rating model is also fitted to
// all matches at once.
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "learn/play.h"
#include "service/arena/rating.h"

namespace gavel::learn {

struct FieldEntry {
  std::string name;
  Policy policy;
};

struct FieldRow {
  std::string name;
  int entry = 0;  // its place in the field's order
  arena::Rating rating;  // updated match by match in the deals' order
  arena::Rating fitted;  // the same model fitted to every match at once: FitPairwiseRatings
  int seats = 0;         // seats played (a policy holding two seats of a match counts both)
  double win_rate = 0;  // its interval: arena::WilsonInterval(win_rate, seats)
  double mean_score = 0, mean_score_ci95 = 0;
  // Per field member (in the field's order): the matches this policy shared with it, and the
  // share of those it placed above it (a tie counts half) — the pairwise results the rating is
  // made of. A member's comparison with itself (a policy holding two seats) is left out.
  std::vector<int> met;
  std::vector<double> placed_above;
};

struct FieldOptions {
  int players = 4;
  OptionMap options;
  int deals = 100;  // each played once per seat rotation: deals x players matches
  uint64_t seed = 1;
  int threads = 1;  // the result does not depend on it
};

// The rating model of the arena's update (Bradley-Terry over every two seats of a match,
// performance spread 25/6, prior 25 ± 25/3) fitted to all the pairwise results at once: the
// most probable skills given every match, each sigma from the curvature there in that skill
// alone (the others held at their fit).
// Unlike the match-by-match update, whose early matches move a rating more than late ones, it
// does not depend on the order of the matches. `wins[i][j]`: how often i placed above j (a tie
// counts half to each); a square matrix, one row and one column per policy.
std::vector<arena::Rating> FitPairwiseRatings(const std::vector<std::vector<double>>& wins);

// The field's rows, best conservative rating (mu - 3 sigma) first.
absl::StatusOr<std::vector<FieldRow>> EvaluateField(const Game& game, std::span<const FieldEntry> field,
                                                    const FieldOptions& options);

}  // namespace gavel::learn
