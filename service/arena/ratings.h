#pragma once
// Standings: ratings (rating.h), win rate with a Wilson 95% interval and mean score with a
// normal 95% interval.
#include <map>
#include <string>
#include <vector>

#include "service/arena/rating.h"
#include "service/arena/store.h"

namespace gavel::arena {

struct Standing {
  std::string bot;
  int games = 0;
  double win_rate = 0, win_low = 0, win_high = 0;  // rank 1 (shared or not)
  double mean_score = 0, score_half_width = 0;     // mean +- half width: 95% interval
  int strikes = 0;
  Rating rating;
};

// The standings of each game over `matches`, best conservative rating (mu - 3 sigma)
// first; `ratings` supplies the current rating of each (game, bot).
std::map<std::string, std::vector<Standing>> ComputeStandings(
    const std::vector<MatchRecord>& matches, const std::map<RatingKey, Rating>& ratings);
std::string FormatStandings(const std::map<std::string, std::vector<Standing>>& standings);

}  // namespace gavel::arena
