// Dirk against random players in every game Dirk plays, every player count: seeded deals,
// Dirk's seat rotating, and Dirk must win clearly more often than its fair share.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/registry.h"
#include "engine/core/rng.h"
#include "gtest/gtest.h"
#include "policy/dirk/dirk.h"

namespace gavel::policy::dirk {
namespace {

constexpr int kGamesPerTable = 120;

// The legal moves as a bot receives them: id, detail and text.
LegalMoves WireMoves(const State& state, const std::vector<Move>& legal) {
  LegalMoves moves;
  for (Move move : legal) {
    v1::Move* out = moves.Add();
    out->set_id(move.id);
    state.MoveDetail(move, out->mutable_detail());
    out->set_text(state.MoveText(move));
  }
  return moves;
}

TEST(Dirk, BeatsRandomInEveryGameItPlays) {
  ASSERT_FALSE(DirkGames().empty());
  for (const std::string& name : DirkGames()) {
    auto dirk_policy = Dirk(name);
    ASSERT_TRUE(dirk_policy.ok()) << dirk_policy.status();
    const Game* game = FindGame(name);
    ASSERT_NE(game, nullptr) << name;
    for (int players = game->info().min_players; players <= game->info().max_players; ++players) {
      SCOPED_TRACE(name + " with " + std::to_string(players));
      double wins = 0, squares = 0;
      int deciders_count = 0;
      Rng rng(99);
      std::vector<Move> legal;
      for (int g = 0; g < kGamesPerTable; ++g) {
        auto created = game->NewGame(players, 1000 + static_cast<uint64_t>(g / players), {});
        ASSERT_TRUE(created.ok()) << created.status();
        State& state = **created;
        std::vector<Seat> deciders;
        for (Seat s = 0; s < state.seats(); ++s)
          if (!state.IsAutomaton(s)) deciders.push_back(s);
        deciders_count = static_cast<int>(deciders.size());
        const Seat dirk = deciders[static_cast<size_t>(g) % deciders.size()];
        while (!state.finished()) {
          state.LegalMoves(legal);
          Move move = legal[rng.Below(static_cast<uint32_t>(legal.size()))];
          if (state.to_move() == dirk) {
            v1::View view;
            state.Observe(dirk, &view);
            const LegalMoves wire = WireMoves(state, legal);
            auto chosen = (*dirk_policy)(Turn(view, legal, wire, rng));
            ASSERT_TRUE(chosen.ok()) << chosen.status();
            move = *chosen;
          }
          ASSERT_TRUE(state.Apply(move).ok()) << "dirk chose an illegal move";
        }
        const Outcome outcome = state.outcome();
        int winners = 0;
        for (int rank : outcome.ranks) winners += rank == 1;
        const double win = outcome.ranks[dirk] == 1 ? 1.0 / winners : 0.0;
        wins += win;
        squares += win * win;
      }
      const double rate = wins / kGamesPerTable;
      const double ci = 1.96 * std::sqrt(std::max(0.0, squares / kGamesPerTable - rate * rate) / kGamesPerTable);
      // Automata (Moonlight Market's Dirk and Beate) also sit at the table.
      const int table = static_cast<int>((*game->NewGame(players, 1, {}))->seats());
      std::printf("dirk vs random, %s, %d players (%d seats): win rate %.3f +- %.3f (fair %.3f)\n",
                  name.c_str(), players, table, rate, ci, 1.0 / table);
      EXPECT_GT(rate - ci, 1.0 / table) << "Dirk does not beat random clearly";
      (void)deciders_count;
    }
  }
}

TEST(Dirk, PlaysEveryGameOfThisBuildAndNoOther) {
  std::vector<std::string> built;
  for (const Game* game : AllGames()) built.push_back(game->name());
  std::sort(built.begin(), built.end());
  EXPECT_EQ(DirkGames(), built);  // every game has Dirk's rules; the list follows the build
  EXPECT_EQ(Dirk("no_such_game").status().code(), absl::StatusCode::kNotFound);
  v1::View view;
  view.set_game("no_such_game");
  const std::vector<Move> legal = {Move{0}};
  const LegalMoves wire;
  Rng rng(1);
  EXPECT_EQ(DirkForAllGames()(Turn(view, legal, wire, rng)).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace gavel::policy::dirk
