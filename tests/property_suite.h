#pragma once
// The generic property suite every game registers into (in the spirit of OpenSpiel's
// RandomSimTest): for many seeds and every player count and option combination, random
// play checks turn structure, legality, determinism, serialization, the view filter,
// resampling and features, and untrusted input.
//
// Register a game in its test file with:
//   GAVEL_PROPERTY_SUITE(Sultan, gavel::sultan::SultanGame());
#include <string>
#include <vector>

#include "engine/core/game.h"
#include "gtest/gtest.h"

namespace gavel::testing {

struct Config {
  const Game* game = nullptr;
  int players = 0;
  OptionMap options;
  int seeds = 0;  // games played for this configuration
  std::string name;
};

// Every player count crossed with every option combination that NewGame accepts
// (integer options take their minimum, default and maximum). The seeds are spread so the
// whole suite for one game plays about `total_games` games.
std::vector<Config> AllConfigs(const Game& game, int total_games = 120);

class GameProperties : public ::testing::TestWithParam<Config> {};

}  // namespace gavel::testing

#define GAVEL_PROPERTY_SUITE(prefix, game)                                                  \
  using GameProperties = ::gavel::testing::GameProperties;                                  \
  INSTANTIATE_TEST_SUITE_P(prefix, GameProperties,                                          \
                           ::testing::ValuesIn(::gavel::testing::AllConfigs(game)),         \
                           [](const auto& info) { return info.param.name; })

namespace gavel::testing {
inline void PrintTo(const Config& config, std::ostream* os) { *os << config.name; }
}  // namespace gavel::testing
