#include "service/arena/ratings.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace gavel::arena {
namespace {

constexpr double kZ95 = 1.959964;

}  // namespace

std::map<std::string, std::vector<Standing>> ComputeStandings(
    const std::vector<MatchRecord>& matches, const std::map<RatingKey, Rating>& ratings) {
  struct Tally {
    int games = 0, wins = 0, strikes = 0;
    double sum = 0, sum_squares = 0;
  };
  std::map<std::string, std::map<std::string, Tally>> tallies;
  for (const MatchRecord& match : matches) {
    for (size_t seat = 0; seat < match.bots.size(); ++seat) {
      if (match.bots[seat].empty()) continue;
      Tally& tally = tallies[match.game][match.bots[seat]];
      ++tally.games;
      tally.wins += match.ranks[seat] == 1;
      tally.strikes += match.strikes[seat];
      tally.sum += match.scores[seat];
      tally.sum_squares += match.scores[seat] * match.scores[seat];
    }
  }
  std::map<std::string, std::vector<Standing>> standings;
  for (const auto& [game, bots] : tallies) {
    for (const auto& [bot, tally] : bots) {
      Standing row;
      row.bot = bot;
      row.games = tally.games;
      row.win_rate = static_cast<double>(tally.wins) / tally.games;
      std::tie(row.win_low, row.win_high) = WilsonInterval(row.win_rate, tally.games);
      row.mean_score = tally.sum / tally.games;
      if (tally.games > 1) {
        const double variance = std::max(0.0, (tally.sum_squares - tally.sum * row.mean_score) /
                                                  (tally.games - 1));
        row.score_half_width = kZ95 * std::sqrt(variance / tally.games);
      }
      row.strikes = tally.strikes;
      if (auto it = ratings.find({game, bot}); it != ratings.end()) row.rating = it->second;
      standings[game].push_back(row);
    }
    std::sort(standings[game].begin(), standings[game].end(),
              [](const Standing& a, const Standing& b) {
                return a.rating.conservative() > b.rating.conservative();
              });
  }
  return standings;
}

std::string FormatStandings(const std::map<std::string, std::vector<Standing>>& standings) {
  std::string out;
  for (const auto& [game, rows] : standings) {
    absl::StrAppendFormat(&out, "%s\n", game);
    absl::StrAppendFormat(&out, "  %-4s %-20s %6s %18s %20s %16s %7s\n", "rank", "bot", "games",
                          "win rate [95% CI]", "mean score +- 95%", "rating mu+-sigma",
                          "strikes");
    int place = 0;
    for (const Standing& row : rows) {
      absl::StrAppendFormat(&out, "  %-4d %-20s %6d %5.1f%% [%4.1f, %5.1f] %11.2f +- %5.2f %8.2f +- %5.2f %7d\n",
                            ++place, row.bot, row.games, 100 * row.win_rate, 100 * row.win_low,
                            100 * row.win_high, row.mean_score, row.score_half_width,
                            row.rating.mu, row.rating.sigma, row.strikes);
    }
  }
  return out;
}

}  // namespace gavel::arena
