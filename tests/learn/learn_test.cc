// The learning and search policies: the network, its weights file, the learned policy in
// every game, ISMCTS, and a short training run that improves over random.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "engine/core/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "learn/field.h"
#include "learn/ismcts.h"
#include "learn/mlp.h"
#include "learn/named_policy.h"
#include "learn/play.h"
#include "learn/q_policy.h"
#include "learn/rollout.h"
#include "learn/trainer.h"
#include "learn/value_network.h"
#include "policy/dirk/dirk.h"

namespace gavel::learn {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + name;
}

// A turn of a game: the state, its legal moves and the view of the seat to move.
struct Position {
  std::unique_ptr<State> state;
  std::vector<Move> legal;
  v1::View view;
};

// Chooses the move of `position` (its legal moves and the mover's view) at step `step`.
using Chooser = std::function<Move(const Position& position, int step)>;

// A turn after `steps` moves of `choose`, random ones by default (fewer if the game would
// end): the state, its legal moves and the view of the seat to move.
Position MidGame(const Game& game, int players, uint64_t seed, int steps, Chooser choose = {}) {
  Rng rng(seed);
  if (!choose)
    choose = [&rng](const Position& at, int) { return at.legal[rng.Below(static_cast<uint32_t>(at.legal.size()))]; };
  Position position{std::move(*game.NewGame(players, seed, {})), {}, {}};
  for (int step = 0;; ++step) {
    position.state->LegalMoves(position.legal);
    position.view.Clear();
    position.state->Observe(position.state->to_move(), &position.view);
    if (step == steps) break;
    auto next = position.state->Clone();
    next->ApplyLegal(choose(position, step), nullptr);
    if (next->finished()) break;
    position.state = std::move(next);
  }
  return position;
}

// For every game at its largest table, a turn after `steps` random moves that offers a choice
// (games whose turn there has a single legal move are left out).
std::vector<std::pair<const Game*, Position>> ChoicesInEveryGame(uint64_t seed, int steps) {
  std::vector<std::pair<const Game*, Position>> choices;
  for (const Game* game : AllGames()) {
    Position position = MidGame(*game, game->info().max_players, seed, steps);
    if (position.legal.size() >= 2) choices.emplace_back(game, std::move(position));
  }
  return choices;
}

TEST(Mlp, RegressionLossFalls) {
  Mlp mlp({2, 16, 1}, 3);
  Rng rng(5);
  Mlp::Matrix inputs(64, 2);
  Eigen::VectorXf targets(64);
  float first = 0, last = 0;
  for (int step = 0; step < 600; ++step) {
    for (int i = 0; i < 64; ++i) {
      inputs(i, 0) = static_cast<float>(rng.Below(1000)) / 1000.f;
      inputs(i, 1) = static_cast<float>(rng.Below(1000)) / 1000.f;
      targets(i) = inputs(i, 0) - 2 * inputs(i, 1);
    }
    last = mlp.TrainStep(inputs, targets, 1e-2f);
    if (step == 0) first = last;
  }
  EXPECT_LT(last, first / 20);
}

TEST(Mlp, SharedPrefixGivesTheSameOutputs) {
  Mlp mlp({7, 16, 8, 1}, 2);
  Rng rng(9);
  Eigen::VectorXf shared(4);
  Mlp::Matrix rest(5, 3), whole(5, 7);
  for (int c = 0; c < 4; ++c) shared(c) = static_cast<float>(rng.Below(2000)) / 1000.f - 1;
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 3; ++c) rest(r, c) = static_cast<float>(rng.Below(2000)) / 1000.f - 1;
    whole.row(r) << shared.transpose(), rest.row(r);
  }
  const Eigen::VectorXf expected = mlp.Forward(whole);
  const Eigen::VectorXf actual = mlp.ForwardShared(shared, rest);
  ASSERT_EQ(actual.size(), 5);
  for (int r = 0; r < 5; ++r) EXPECT_NEAR(actual(r), expected(r), 1e-5f) << "row " << r;
  // A one-layer network has no hidden layer to share into.
  Mlp linear({7, 1}, 4);
  EXPECT_NEAR(linear.ForwardShared(shared, rest)(2), linear.Forward(whole)(2), 1e-5f);
}

// The last layers' parameters, as a policy search reads and writes them: read back as
// written, the output unchanged; moved, the output moves.
TEST(Mlp, TailParametersRoundTrip) {
  Mlp mlp({5, 6, 3, 1}, 3);
  Mlp::Matrix inputs = Mlp::Matrix::Ones(2, 5);
  const Eigen::VectorXf before = mlp.Forward(inputs);
  EXPECT_EQ(mlp.TailParameters(1).size(), 3 + 1);
  EXPECT_EQ(mlp.TailParameters(2).size(), 6 * 3 + 3 + 3 + 1);
  const Eigen::VectorXf scales = mlp.TailScales(2);
  ASSERT_EQ(scales.size(), 6 * 3 + 3 + 3 + 1);
  EXPECT_GT(scales.minCoeff(), 0.0f);
  EXPECT_NE(scales(0), scales(scales.size() - 1));  // one RMS per layer
  Eigen::VectorXf parameters = mlp.TailParameters(2);
  mlp.SetTailParameters(2, parameters);
  EXPECT_EQ(mlp.Forward(inputs), before);
  parameters(parameters.size() - 1) += 1;  // the output bias
  mlp.SetTailParameters(2, parameters);
  EXPECT_NEAR(mlp.Forward(inputs)(0), before(0) + 1, 1e-5f);
  EXPECT_EQ(mlp.TailParameters(2), parameters);
}

// A blend takes each parameter that share of the way from the first network to the second,
// with the first one's metadata, and refuses networks of other sizes or a share outside 0..1.
TEST(Mlp, BlendMovesEveryParameterItsShareOfTheWay) {
  Mlp a({4, 5, 1}, 1), b({4, 5, 1}, 2);
  a.metadata = "source=a\n";
  b.metadata = "source=b\n";
  const int layers = a.layer_count();
  for (const float share : {0.0f, 0.25f, 1.0f}) {
    auto blend = Mlp::Blend(a, b, share);
    ASSERT_TRUE(blend.ok()) << blend.status();
    const Eigen::VectorXf expected = (1 - share) * a.TailParameters(layers) + share * b.TailParameters(layers);
    EXPECT_EQ(blend->TailParameters(layers), expected) << share;
    EXPECT_EQ(blend->metadata, "source=a\n");
  }
  EXPECT_NE(Mlp::Blend(a, b, 0.25f)->TailParameters(layers), a.TailParameters(layers));
  EXPECT_EQ(Mlp::Blend(a, Mlp({4, 6, 1}, 2), 0.5f).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Mlp::Blend(a, b, 1.5f).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Mlp::Blend(a, b, -0.1f).status().code(), absl::StatusCode::kInvalidArgument);
}

// A network trained on from another (a second stage) keeps one line per key, where it stood.
TEST(Mlp, SettingAMetadataValueReplacesItsLine) {
  Mlp mlp({2, 1}, 1);
  mlp.metadata = "game=carat\nsearch_iteration=55\ninputs=x\nsearch_iteration=7\n";
  mlp.SetMetadataValue("search_iteration", "20");
  EXPECT_EQ(mlp.metadata, "game=carat\nsearch_iteration=20\ninputs=x\n");
  EXPECT_EQ(mlp.MetadataValue("search_iteration"), "20");
  mlp.SetMetadataValue("episode", "4000");
  EXPECT_EQ(mlp.metadata, "game=carat\nsearch_iteration=20\ninputs=x\nepisode=4000\n");
  EXPECT_EQ(mlp.MetadataValue("search"), "");  // a key's prefix is not the key
  EXPECT_EQ(mlp.MetadataValue("inputs"), "x");
  mlp.EraseMetadataValue("search_iteration");
  EXPECT_EQ(mlp.metadata, "game=carat\ninputs=x\nepisode=4000\n");
}

#if GAVEL_HAS_GAME_sultan
TEST(Mlp, SaveLoadRoundTripAndCorruptFiles) {
  Mlp mlp({5, 8, 1}, 1);
  mlp.metadata = "game=sultan\n";
  const std::string path = TempPath("round_trip.gmlp");
  ASSERT_TRUE(mlp.Save(path).ok());
  auto loaded = Mlp::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Mlp::Matrix input = Mlp::Matrix::Random(3, 5);
  EXPECT_TRUE(loaded->Forward(input).isApprox(mlp.Forward(input)));
  EXPECT_EQ(loaded->metadata, "game=sultan\n");

  EXPECT_EQ(Mlp::Load(TempPath("missing.gmlp")).status().code(), absl::StatusCode::kNotFound);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream out(TempPath(name), std::ios::binary);
    out << content;
    return TempPath(name);
  };
  auto truncated = Mlp::Load(write("truncated.gmlp", bytes.substr(0, bytes.size() / 2)));
  EXPECT_EQ(truncated.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(truncated.status().message()), HasSubstr("corrupt"));
  std::string wrong_magic = bytes;
  wrong_magic[0] = 'X';
  EXPECT_EQ(Mlp::Load(write("magic.gmlp", wrong_magic)).status().code(), absl::StatusCode::kDataLoss);
  std::string huge_layer = bytes;
  huge_layer[16] = '\xff';
  huge_layer[17] = '\xff';
  EXPECT_EQ(Mlp::Load(write("huge.gmlp", huge_layer)).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Mlp::Load(write("trailing.gmlp", bytes + "x")).status().code(), absl::StatusCode::kDataLoss);
}
#endif

TEST(QPolicy, RefusesWeightsOfAnotherGame) {
  Mlp mlp({5, 1}, 1);
  mlp.metadata = "game=chess\n";
  const std::string path = TempPath("chess.gmlp");
  ASSERT_TRUE(mlp.Save(path).ok());
  for (const Game* game : AllGames())
    EXPECT_EQ(QPolicy::Load(*game, path).status().code(), absl::StatusCode::kFailedPrecondition);
}

// An untrained network of the right shape plays legal moves, deterministically, in every
// game and player count.
TEST(QPolicy, PlaysLegalMovesDeterministicallyInEveryGame) {
  for (const Game* game : AllGames()) {
    for (int players = game->info().min_players; players <= game->info().max_players; ++players) {
      SCOPED_TRACE(game->name() + " " + std::to_string(players));
      TrainConfig config;
      config.players = players;
      config.episodes = 0;
      Trainer trainer(*game, config);
      ASSERT_GT(trainer.policy().network().input_size(), 0);
      std::vector<Policy> policies(8, trainer.Greedy());
      Rng first_rng(1), second_rng(1);
      auto first = PlayGame(*game, Match{players, {}, 11}, policies, first_rng);
      auto second = PlayGame(*game, Match{players, {}, 11}, policies, second_rng);
      ASSERT_TRUE(first.ok()) << first.status();  // PlayGame refuses illegal moves
      ASSERT_TRUE(second.ok());
      EXPECT_EQ(first->scores, second->scores);
    }
  }
}

// The pairwise places: two members met as often as each other, and their shares of placing
// above the other add up to one (a tie counts half for both).
void ExpectConsistentPlaces(const std::vector<FieldRow>& rows) {
  for (const FieldRow& a : rows) {
    ASSERT_EQ(a.met.size(), rows.size());
    EXPECT_EQ(a.met[static_cast<size_t>(a.entry)], 0) << a.name << " compared with itself";
    for (const FieldRow& b : rows) {
      if (&a == &b) continue;
      const auto ia = static_cast<size_t>(a.entry), ib = static_cast<size_t>(b.entry);
      EXPECT_EQ(a.met[ib], b.met[ia]);
      EXPECT_GT(a.met[ib], 0) << a.name << " never met " << b.name;
      EXPECT_NEAR(a.placed_above[ib] + b.placed_above[ia], 1.0, 1e-9) << a.name << " / " << b.name;
    }
  }
}

// The rating fitted to all results at once: equal records give equal skills at the prior's mean,
// a better record a higher skill, and more of the same results a smaller sigma.
TEST(FitPairwiseRatings, RanksByTheResultsAndNarrowsWithMoreOfThem) {
  const auto level = FitPairwiseRatings({{0, 10}, {10, 0}});
  ASSERT_EQ(level.size(), 2u);
  EXPECT_NEAR(level[0].mu, 25, 1e-9);
  EXPECT_NEAR(level[1].mu, 25, 1e-9);
  EXPECT_LT(level[0].sigma, 25.0 / 3);
  // a above b and b above c in 70 of 100, a above c in 80 of 100.
  const auto chain = FitPairwiseRatings({{0, 70, 80}, {30, 0, 70}, {20, 30, 0}});
  EXPECT_GT(chain[0].mu, chain[1].mu);
  EXPECT_GT(chain[1].mu, chain[2].mu);
  EXPECT_NEAR(chain[0].mu + chain[1].mu + chain[2].mu, 75, 1e-6);  // the prior centres them
  const auto more = FitPairwiseRatings({{0, 700, 800}, {300, 0, 700}, {200, 300, 0}});
  EXPECT_LT(more[1].sigma, chain[1].sigma / 2);
  EXPECT_GT(more[0].mu - more[2].mu, chain[0].mu - chain[2].mu);  // less pulled to the prior
  // Someone who never placed above anyone stays finite, below the others.
  const auto shut_out = FitPairwiseRatings({{0, 5, 5}, {5, 0, 5}, {0, 0, 0}});
  EXPECT_TRUE(std::isfinite(shut_out[2].mu));
  EXPECT_LT(shut_out[2].conservative(), shut_out[0].conservative());
}

// The rows' order-free ratings are the fit of their pairwise places; the first row's fit is the
// best (the test's fields have one clearly better policy).
void ExpectFitOfThePlaces(const std::vector<FieldRow>& rows) {
  std::vector<std::vector<double>> wins(rows.size(), std::vector<double>(rows.size(), 0));
  for (const FieldRow& row : rows)
    for (size_t other = 0; other < rows.size(); ++other)
      wins[static_cast<size_t>(row.entry)][other] = row.placed_above[other] * row.met[other];
  const std::vector<arena::Rating> fitted = FitPairwiseRatings(wins);
  for (const FieldRow& row : rows) {
    EXPECT_NEAR(row.fitted.mu, fitted[static_cast<size_t>(row.entry)].mu, 1e-6) << row.name;
    EXPECT_NEAR(row.fitted.sigma, fitted[static_cast<size_t>(row.entry)].sigma, 1e-6) << row.name;
    if (&row != &rows.front()) {
      EXPECT_GT(rows.front().fitted.mu, row.fitted.mu) << row.name;
    }
  }
}

// A field of Dirk and two random policies at mixed tables in every game: Dirk rated first,
// every seat of every match counted once, and the same rows on any thread count.
TEST(Field, RatesDirkAboveRandomPlayersReproducibly) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    const std::vector<FieldEntry> field = {{"dirk", *policy::dirk::Dirk(game->name())},
                                           {"random", RandomPolicy()},
                                           {"random too", RandomPolicy()}};
    FieldOptions options;
    options.players = std::clamp(3, game->info().min_players, game->info().max_players);
    options.deals = 12;
    options.seed = 5;
    auto one = EvaluateField(*game, field, options);
    ASSERT_TRUE(one.ok()) << one.status();
    options.threads = 3;
    auto three = EvaluateField(*game, field, options);
    ASSERT_TRUE(three.ok()) << three.status();
    ASSERT_EQ(one->size(), 3u);
    EXPECT_EQ((*one)[0].name, "dirk");
    EXPECT_GT((*one)[0].win_rate, 1.0 / options.players);
    int seats = 0;
    for (size_t i = 0; i < one->size(); ++i) {
      seats += (*one)[i].seats;
      EXPECT_EQ((*one)[i].name, (*three)[i].name);
      EXPECT_EQ((*one)[i].rating.mu, (*three)[i].rating.mu);
      EXPECT_EQ((*one)[i].win_rate, (*three)[i].win_rate);
    }
    auto probe = std::move(*game->NewGame(options.players, 1, {}));
    int deciders = 0;
    for (Seat seat = 0; seat < probe->seats(); ++seat) deciders += !probe->IsAutomaton(seat);
    EXPECT_EQ(seats, options.deals * deciders * deciders);  // deals x rotations x seats
    ExpectConsistentPlaces(*one);
    ExpectFitOfThePlaces(*one);
    const FieldRow& dirk = (*one)[0];
    EXPECT_EQ(dirk.entry, 0);
    EXPECT_GT(dirk.placed_above[1], 0.5);
    EXPECT_GT(dirk.placed_above[2], 0.5);
  }
}

#if GAVEL_HAS_GAME_sultan
// Win-rate intervals as the arena's standings and gavel-eval print them.
TEST(WilsonInterval, StaysInsideZeroToOneAndNarrowsWithMoreGames) {
  const auto none = arena::WilsonInterval(0.0, 10);
  EXPECT_EQ(none.first, 0.0);
  EXPECT_GT(none.second, 0.1);  // ten losses do not prove a win rate of 0
  const auto all = arena::WilsonInterval(1.0, 10);
  EXPECT_NEAR(all.second, 1.0, 1e-12);
  EXPECT_NEAR(all.first, 1 - none.second, 1e-12);  // symmetric around one half
  const auto few = arena::WilsonInterval(0.25, 40), many = arena::WilsonInterval(0.25, 4000);
  EXPECT_LT(few.first, 0.25);
  EXPECT_GT(few.second, 0.25);
  EXPECT_LT(many.second - many.first, (few.second - few.first) / 5);
  EXPECT_NEAR(many.first, 0.2369, 1e-3);  // 0.25 over 4,000: about 0.25 -/+ 0.0134
  EXPECT_EQ(arena::WilsonInterval(0.5, 0), std::make_pair(0.0, 0.0));
}

TEST(Ismcts, ChoosesLegalMovesAndBeatsRandomInSultan) {
  const Game& game = *FindGame("sultan");
  IsmctsOptions options;
  options.iterations = 150;
  auto evaluation = Evaluate(game, 3, {}, IsmctsPolicy(game, options), RandomPolicy(), 30, 7);
  ASSERT_TRUE(evaluation.ok()) << evaluation.status();
  std::printf("ismcts(150) vs random, sultan 3p, 30 games: win rate %.2f +- %.2f\n",
              evaluation->win_rate, evaluation->win_rate_ci95);
  EXPECT_GT(evaluation->win_rate, 1.0 / 3 + evaluation->win_rate_ci95);
}
#endif

// Against a population every member takes seats, and a population of one is the single
// opponent, result for result; the names gavel-train and gavel-eval share make the policies.
TEST(Evaluate, SeatsEveryMemberOfAPopulation) {
  const Game& game = *AllGames().front();
  const int players = std::clamp(3, game.info().min_players, game.info().max_players);
  std::vector<int> decisions(2, 0);
  std::vector<Policy> population;
  for (int member = 0; member < 2; ++member)
    population.push_back([&decisions, member, random = RandomPolicy()](const Turn& turn) {
      ++decisions[static_cast<size_t>(member)];
      return random(turn);
    });
  auto mixed = Evaluate(game, players, {}, RandomPolicy(), population, 12, 5);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_GT(decisions[0], 0);
  EXPECT_GT(decisions[1], 0);

  auto dirk = PolicyNamed("dirk", game);
  ASSERT_TRUE(dirk.ok()) << dirk.status();
  auto single = Evaluate(game, players, {}, RandomPolicy(), *dirk, 12, 5);
  auto of_one = Evaluate(game, players, {}, RandomPolicy(), std::vector<Policy>{*dirk}, 12, 5);
  ASSERT_TRUE(single.ok() && of_one.ok());
  EXPECT_EQ(single->win_rate, of_one->win_rate);
  EXPECT_EQ(single->mean_score, of_one->mean_score);
  EXPECT_EQ(single->mean_reward, of_one->mean_reward);
  EXPECT_EQ(Evaluate(game, players, {}, RandomPolicy(), std::vector<Policy>{}, 12, 5).status().code(),
            absl::StatusCode::kInvalidArgument);

  auto named = PoliciesNamed("dirk,random,ismcts:5", game);
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->size(), 3u);
  for (const char* wrong : {"", "ismcts:0", "ismcts:x", "alphazero"})
    EXPECT_EQ(PoliciesNamed(wrong, game).status().code(), absl::StatusCode::kInvalidArgument) << wrong;
  EXPECT_THAT(std::string(PolicyNamed("ismcts:0", game).status().message()), HasSubstr("'ismcts:0'"));
  ASSERT_TRUE(IsmctsOptionsNamed("ismcts:250"));
  EXPECT_EQ(IsmctsOptionsNamed("ismcts:250")->iterations, 250);
  EXPECT_EQ(IsmctsOptionsNamed("ismcts:250")->playout_moves, 0);  // to the end
  ASSERT_TRUE(IsmctsOptionsNamed("ismcts:1000/40"));
  EXPECT_EQ(IsmctsOptionsNamed("ismcts:1000/40")->iterations, 1000);
  EXPECT_EQ(IsmctsOptionsNamed("ismcts:1000/40")->playout_moves, 40);
  for (const char* other : {"ismcts", "ismcts:", "ismcts:-3", "dirk", "ismcts:5/", "ismcts:5/0", "ismcts:5/-1",
                            "ismcts:/40", "ismcts:5/4/3", "ismcts:5/x"})
    EXPECT_FALSE(IsmctsOptionsNamed(other)) << other;
  EXPECT_TRUE(PolicyNamed("ismcts:5/3", game).ok());
}

// A matchup splits at the one '-' that leaves two policies' names, so a weights file's path
// may hold dashes; a matchup that splits no way or several ways is refused.
TEST(SplitMatchup, SplitsWhereBothSidesNamePolicies) {
  const std::set<std::string> names = {"dirk", "learned", "learned:weights/sultan-2p.gmlp", "a", "a-b", "b-c", "c"};
  const auto names_policy = [&names](const std::string& name) { return names.contains(name); };
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(SplitMatchup("learned-dirk", names_policy).value(), Pair("learned", "dirk"));
  EXPECT_EQ(SplitMatchup("learned:weights/sultan-2p.gmlp-dirk", names_policy).value(),
            Pair("learned:weights/sultan-2p.gmlp", "dirk"));
  EXPECT_EQ(SplitMatchup("dirk-learned:weights/sultan-2p.gmlp", names_policy).value(),
            Pair("dirk", "learned:weights/sultan-2p.gmlp"));
  for (const char* wrong : {"", "learned", "learned-", "-dirk", "learned-alphazero", "dirk-dirk-dirk"})
    EXPECT_EQ(SplitMatchup(wrong, names_policy).status().code(), absl::StatusCode::kInvalidArgument) << wrong;
  const absl::Status ambiguous = SplitMatchup("a-b-c", names_policy).status();
  EXPECT_THAT(std::string(ambiguous.message()), HasSubstr("2 ways"));
}

// The ismcts bot's policy answers with a legal move from a mid-game view in every game, and
// the same seed gives the same answer.
TEST(IsmctsPolicy, ChoosesALegalMoveInEveryGame) {
  learn::IsmctsOptions options;
  options.iterations = 20;
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    const Position position = MidGame(*game, game->info().max_players, 3, 30);
    policy::LegalMoves wire;
    for (Move move : position.legal) wire.Add()->set_id(move.id);
    const Policy ismcts = IsmctsPolicy(options);
    Rng first_rng(9), second_rng(9);
    auto chosen = ismcts(Turn(position.view, position.legal, wire, first_rng));
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    EXPECT_TRUE(position.state->IsLegal(*chosen));
    EXPECT_EQ(*ismcts(Turn(position.view, position.legal, wire, second_rng)), *chosen);
  }
}

// Root priors steer the search: with one iteration, all of it goes to the move the priors
// favour, here the last legal move, in every game.
TEST(IsmctsPolicy, RootPriorsDecideWhereTheBudgetGoes) {
  for (auto& [game, position] : ChoicesInEveryGame(4, 25)) {
    SCOPED_TRACE(game->name());
    std::vector<double> priors(position.legal.size(), 0.0);
    priors.back() = 1.0;
    learn::IsmctsOptions options;
    options.iterations = 1;
    auto chosen = IsmctsChoose(*game, position.view, position.legal, options, priors);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    EXPECT_EQ(*chosen, position.legal.back());
    const std::vector<double> too_few(1, 1.0);
    EXPECT_EQ(IsmctsChoose(*game, position.view, position.legal, options, too_few).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

// The root's statistics: every iteration plays one of the offered moves at the root, the
// chosen move is the most visited and is IsmctsChoose's answer, rewards are place rewards
// in [0, 1]; a single legal move is answered without a search.
TEST(IsmctsSearch, RootStatisticsCountEveryIteration) {
  for (auto& [game, position] : ChoicesInEveryGame(6, 20)) {
    SCOPED_TRACE(game->name());
    learn::IsmctsOptions options;
    options.iterations = 60;
    options.seed = 11;
    auto root = IsmctsSearch(*game, position.view, position.legal, options);
    ASSERT_TRUE(root.ok()) << root.status();
    ASSERT_EQ(root->visits.size(), position.legal.size());
    int total = 0;
    for (size_t i = 0; i < root->visits.size(); ++i) {
      total += root->visits[i];
      EXPECT_LE(root->visits[i], root->visits[root->chosen]);
      EXPECT_GE(root->mean_reward[i], 0.0);
      EXPECT_LE(root->mean_reward[i], 1.0);
    }
    EXPECT_EQ(total, options.iterations);
    auto chosen = IsmctsChoose(*game, position.view, position.legal, options);
    ASSERT_TRUE(chosen.ok());
    EXPECT_EQ(*chosen, position.legal[root->chosen]);
    auto alone = IsmctsSearch(*game, position.view, std::span<const Move>(position.legal).first(1), options);
    ASSERT_TRUE(alone.ok());
    EXPECT_EQ(alone->visits, std::vector<int>{0});
  }
}

// Place rewards of an unfinished game come from its scores so far, equal scores sharing.
TEST(IsmctsSearch, ProvisionalRewardsRankTheScoresSoFar) {
  Outcome outcome;
  outcome.scores = {3, 5, 5, 1};
  EXPECT_EQ(ProvisionalRewards(outcome), (std::vector<double>{1.0 / 3, 1, 1, 0}));
}

// Play-outs cut short: a limit the game never reaches changes nothing, in every game; one
// that stops at once leaves the scores so far to decide, so from the opening of Morgenland,
// where nobody owns an artifact yet, every move the search tries shares first place.
TEST(IsmctsSearch, ShortPlayOutsLeaveTheScoresSoFarToDecide) {
  for (auto& [game, position] : ChoicesInEveryGame(6, 20)) {
    SCOPED_TRACE(game->name());
    learn::IsmctsOptions options;
    options.iterations = 40;
    options.seed = 11;
    auto full = IsmctsSearch(*game, position.view, position.legal, options);
    options.playout_moves = 1'000'000;
    auto unreached = IsmctsSearch(*game, position.view, position.legal, options);
    ASSERT_TRUE(full.ok() && unreached.ok());
    EXPECT_EQ(unreached->visits, full->visits);
    EXPECT_EQ(unreached->mean_reward, full->mean_reward);
  }
#if GAVEL_HAS_GAME_morgenland
  const Game& morgenland = *FindGame("morgenland");
  Position opening = MidGame(morgenland, 4, 6, 0);
  ASSERT_GE(opening.legal.size(), 2u);
  learn::IsmctsOptions options;
  options.iterations = 40;
  options.playout_moves = 1;
  auto root = IsmctsSearch(morgenland, opening.view, opening.legal, options);
  ASSERT_TRUE(root.ok()) << root.status();
  int tried = 0;
  for (size_t i = 0; i < opening.legal.size(); ++i) {
    if (root->visits[i] == 0) continue;
    ++tried;
    EXPECT_EQ(root->mean_reward[i], 1.0) << i;
  }
  EXPECT_GE(tried, 2);
#endif
}

// Leaf values reward the seats where play-outs stop: at the new leaf itself (no play-out
// move), every iteration asks them once and each root move's mean reward is the mover's
// value; play-outs longer than the game leave them unasked and the search as it was without
// them. Their errors end the search, and so does a value vector without one entry per seat.
TEST(IsmctsSearch, LeafValuesRewardTheSeatsWherePlayOutsStop) {
  for (auto& [game, position] : ChoicesInEveryGame(6, 20)) {
    SCOPED_TRACE(game->name());
    const Seat mover = position.state->to_move();
    const int seats = position.state->seats();
    int calls = 0;
    learn::IsmctsOptions options;
    options.iterations = 30;
    options.seed = 5;
    const auto plain = IsmctsSearch(*game, position.view, position.legal, options);
    options.leaf_values = [&](const State&) -> absl::StatusOr<std::vector<double>> {
      ++calls;
      std::vector<double> values(static_cast<size_t>(seats), 0.0);
      values[static_cast<size_t>(mover)] = 0.25;
      return values;
    };
    auto root = IsmctsSearch(*game, position.view, position.legal, options);
    ASSERT_TRUE(root.ok()) << root.status();
    EXPECT_EQ(calls, options.iterations);
    for (size_t i = 0; i < position.legal.size(); ++i)
      if (root->visits[i] > 0) {
        EXPECT_DOUBLE_EQ(root->mean_reward[i], 0.25) << i;
      }
    options.playout_moves = 1'000'000;
    calls = 0;
    auto to_the_end = IsmctsSearch(*game, position.view, position.legal, options);
    ASSERT_TRUE(plain.ok() && to_the_end.ok());
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(to_the_end->visits, plain->visits);
    EXPECT_EQ(to_the_end->mean_reward, plain->mean_reward);
    options.playout_moves = 0;
    options.leaf_values = [](const State&) -> absl::StatusOr<std::vector<double>> {
      return absl::UnavailableError("gone");
    };
    EXPECT_EQ(IsmctsSearch(*game, position.view, position.legal, options).status().code(),
              absl::StatusCode::kUnavailable);
    options.leaf_values = [](const State&) -> absl::StatusOr<std::vector<double>> { return std::vector<double>{0.5}; };
    EXPECT_EQ(IsmctsSearch(*game, position.view, position.legal, options).status().code(),
              absl::StatusCode::kInternal);
  }
}

#if GAVEL_HAS_GAME_sultan
// A value network fitted to games of Dirk against random players knows who is ahead: on
// held-out games its error is well under the best constant's; it is reproducible from its
// seed, its values lie in [0, 1], one per seat, and its file loads back with the same values,
// while a Q network's file or another game's is refused.
TEST(ValueNetwork, LearnsWhoIsAheadFromTheViews) {
  const Game& sultan = *FindGame("sultan");
  ValueTrainConfig config;
  config.players = 3;
  config.seed = 4;
  config.games = 1000;
  config.sample_rate = 0.2;
  config.epochs = 10;
  config.threads = 2;
  config.population = {{"dirk", *policy::dirk::Dirk("sultan")}, {"random", RandomPolicy()}};
  ValueFit fit, again;
  int epochs = 0;
  auto value = TrainValueNetwork(sultan, config, [&](int, const ValueFit&) { ++epochs; }, &fit);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(epochs, config.epochs);
  EXPECT_GT(fit.holdout_samples, 100);
  EXPECT_LT(fit.holdout_mse, 0.85 * fit.holdout_constant_mse);
  config.threads = 1;
  auto second = TrainValueNetwork(sultan, config, {}, &again);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(again.holdout_mse, fit.holdout_mse);

  Position position = MidGame(sultan, 3, 7, 15);
  auto values = value->SeatValues(*position.state);
  ASSERT_TRUE(values.ok()) << values.status();
  ASSERT_EQ(values->size(), 3u);
  for (double v : *values) {
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);
  }
  const std::string path = TempPath("sultan-3p.value");
  ASSERT_TRUE(value->network().Save(path).ok());
  auto loaded = ValueNetwork::Load(sultan, path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded->SeatValues(*position.state), *values);
  EXPECT_EQ(loaded->players(), 3);
  EXPECT_TRUE(loaded->TrainedFor(position.view));
  v1::View other = position.view;
  other.set_players(4);
  other.set_seats(4);
  EXPECT_FALSE(loaded->TrainedFor(other));
#if GAVEL_HAS_GAME_carat
  EXPECT_THAT(ValueNetwork::Load(*FindGame("carat"), path).status().message(), HasSubstr("not of carat"));
#endif
  Mlp q_network({4, 1}, 1);
  q_network.metadata = "game=sultan\nplayers=3\n";
  ASSERT_TRUE(q_network.Save(TempPath("sultan-3p.gmlp")).ok());
  EXPECT_THAT(ValueNetwork::Load(sultan, TempPath("sultan-3p.gmlp")).status().message(),
              HasSubstr("not a value network"));
}
#endif

// A play-out policy plays the players' moves of every play-out, from their views; its errors
// end the search, and so does a move it makes that is not legal.
TEST(IsmctsSearch, APlayOutPolicyPlaysThePlayersMoves) {
  for (auto& [game, position] : ChoicesInEveryGame(6, 20)) {
    SCOPED_TRACE(game->name());
    int calls = 0;
    const Policy first = [&calls](const Turn& turn) -> absl::StatusOr<Move> {
      ++calls;
      EXPECT_GT(turn.view().seats(), 0u);
      return turn.legal().front();
    };
    learn::IsmctsOptions options;
    options.iterations = 10;
    options.playout_policy = &first;
    ASSERT_TRUE(IsmctsSearch(*game, position.view, position.legal, options).ok());
    EXPECT_GT(calls, 0);
    const Policy failing = [](const Turn&) -> absl::StatusOr<Move> { return absl::UnavailableError("gone"); };
    options.playout_policy = &failing;
    EXPECT_EQ(IsmctsSearch(*game, position.view, position.legal, options).status().code(),
              absl::StatusCode::kUnavailable);
    const Policy illegal = [](const Turn&) -> absl::StatusOr<Move> { return Move{0xFFFFFFFFu}; };
    options.playout_policy = &illegal;
    EXPECT_EQ(IsmctsSearch(*game, position.view, position.legal, options).status().code(),
              absl::StatusCode::kInternal);
  }
}

#if GAVEL_HAS_GAME_moonlight_market
// A turn after `steps` moves of ISMCTS at 60 iterations (fewer if the game would end).
Position SearchedGame(const Game& game, int players, uint64_t seed, int steps) {
  return MidGame(game, players, seed, steps, [&game, seed](const Position& at, int step) {
    IsmctsOptions search;
    search.iterations = 60;
    search.seed = seed * 100 + step;
    return *IsmctsChoose(game, at.view, at.legal, search);
  });
}

// Imitation of an ISMCTS teacher at Moonlight Market's two players, along random games.
TrainConfig ImitationConfig(int episodes, int teacher_iterations, double sample_rate) {
  TrainConfig config;
  config.method = TrainMethod::kImitation;
  config.players = 2;
  config.episodes = config.eval_every = episodes;
  config.eval_games = 2;
  config.sample_rate = sample_rate;
  config.teacher.iterations = teacher_iterations;
  config.base = NamedPolicy{"random", RandomPolicy()};
  return config;
}

Eigen::VectorXf AllWeights(const QPolicy& policy) {
  return policy.network().TailParameters(policy.network().layer_count());
}

// Imitation: on positions of a search's games the network never saw, the softmax of the trained
// network's scores comes closer to the teacher's visit shares (cross-entropy), and its
// choices get more of a search's visits.
TEST(Trainer, ImitationLearnsTheTeachersVisitShares) {
  const Game& game = *FindGame("moonlight_market");
  TrainConfig config = ImitationConfig(100, 200, 1);
  config.seed = 4;
  config.epsilon_start = config.epsilon_end = 0;
  struct Fit {
    // Mean over positions: the cross-entropy of softmax(score) against the visit shares, less
    // the shares' own entropy (a search's visits spread widely: that is all a fit can remove).
    double cross_entropy = 0;
    double share = 0;          // mean over positions: the visit share of the network's choice
  };
  const auto fit = [&](const QPolicy& network) {
    Fit result;
    int positions = 0;
    for (uint64_t seed = 100; seed < 160; ++seed) {
      Position position = SearchedGame(game, 2, seed, static_cast<int>(seed % 40));
      if (position.legal.size() < 2) continue;
      policy::LegalMoves wire;
      Rng rng(seed);
      const Turn turn(position.view, position.legal, wire, rng);
      auto scores = network.Scores(turn);
      learn::IsmctsOptions teacher = config.teacher;
      teacher.seed = seed;
      auto root = IsmctsSearch(game, position.view, position.legal, teacher);
      if (!scores.ok() || !root.ok()) return Fit{1e9, -1};
      const size_t chosen = std::max_element(scores->begin(), scores->end()) - scores->begin();
      result.share += static_cast<double>(root->visits[chosen]) / teacher.iterations;
      const double top = (*scores)[chosen];
      double sum = 0;
      for (float score : *scores) sum += std::exp(score - top);
      for (size_t i = 0; i < scores->size(); ++i)
        result.cross_entropy -= static_cast<double>(root->visits[i]) / teacher.iterations *
                                ((*scores)[i] - top - std::log(sum));
      for (int visits : root->visits) {
        const double share = static_cast<double>(visits) / teacher.iterations;
        if (visits > 0) result.cross_entropy += share * std::log(share);
      }
      ++positions;
    }
    return Fit{result.cross_entropy / positions, result.share / positions};
  };
  TrainConfig untrained = config;
  untrained.episodes = 0;
  const Fit before = fit(Trainer(game, untrained).policy());
  Trainer trainer(game, config);
  ASSERT_TRUE(trainer.Run([](const TrainProgress&) {}).ok());
  const Fit after = fit(trainer.policy());
  std::printf("moonlight_market 2p, against ISMCTS(200)'s visits: cross-entropy over their entropy %.4f -> "
              "%.4f, share of the network's choice %.3f -> %.3f after %d imitation episodes\n",
              before.cross_entropy, after.cross_entropy, before.share, after.share, config.episodes);
  EXPECT_LT(after.cross_entropy, 0.9 * before.cross_entropy);
  EXPECT_GT(after.share, before.share + 0.04);
}

// The teacher's searches of a game run on several threads, each from its own seed: the network
// trained is the same, byte for byte, on one thread or two.
TEST(Trainer, ImitationDoesNotDependOnTheThreadCount) {
  const Game& game = *FindGame("moonlight_market");
  TrainConfig config = ImitationConfig(4, 40, 0.5);
  config.batch = 64;
  const auto trained = [&](int threads, int episodes) {
    TrainConfig threaded = config;
    threaded.rollout_threads = threads;
    threaded.episodes = episodes;
    Trainer trainer(game, threaded);
    EXPECT_TRUE(trainer.Run([](const TrainProgress&) {}).ok());
    return AllWeights(trainer.policy());
  };
  const Eigen::VectorXf one = trained(1, 4), two = trained(2, 4);
  EXPECT_GT(one.size(), 0);
  EXPECT_TRUE(one == two);
  EXPECT_FALSE(one == trained(1, 0));  // the training changed the weights
}
#endif

#if GAVEL_HAS_GAME_sultan
// A decider's illegal move is an error naming it, and the state stays as it was.
TEST(PlayToEnd, RefusesAnIllegalMoveAndLeavesTheStateUnchanged) {
  const Game& game = *FindGame("sultan");
  Position position = MidGame(game, 4, 3, 5);
  const std::string before = position.state->Bytes();
  const Move illegal{9999};
  ASSERT_EQ(std::find(position.legal.begin(), position.legal.end(), illegal), position.legal.end());
  Rng rng(1);
  const absl::Status status = PlayToEnd(
      *position.state, [&](const Turn&, Seat) -> absl::StatusOr<Move> { return illegal; }, rng);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("9999"));
  EXPECT_EQ(position.state->Bytes(), before);
}
#endif

#if GAVEL_HAS_GAME_sultan
TEST(Rollout, ValuesAreTheSameForAnyThreadCount) {
  const Game& game = *FindGame("sultan");
  const Position position = MidGame(game, 4, 5, 12);
  const std::vector<Move>& legal = position.legal;
  const v1::View& view = position.view;
  ASSERT_GT(legal.size(), 1u);
  const std::vector<uint64_t> seeds = {1, 2, 3, 4, 5};
  auto one = PairedRolloutValues(game, view, legal, RandomPolicy(), seeds, 1);
  auto three = PairedRolloutValues(game, view, legal, RandomPolicy(), seeds, 3);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_EQ(one->mean, three->mean);
  EXPECT_EQ(one->gain_error, three->gain_error);
  EXPECT_EQ(one->gain_error[0], 0);
  for (double value : one->mean) {
    EXPECT_GE(value, 0);
    EXPECT_LE(value, 1);
  }
  EXPECT_FALSE(PairedRolloutValues(game, view, legal, RandomPolicy(), {}, 1).ok());
}
#endif

#if GAVEL_HAS_GAME_carat
// Several decisions' rollouts played together give each the results it has on its own.
TEST(Rollout, RequestsTogetherGiveWhatEachGivesAlone) {
  const Game& game = *FindGame("carat");
  std::vector<RolloutRequest> requests;
  for (int steps : {3, 11}) {
    const Position position = MidGame(game, 3, 9, steps);
    ASSERT_GT(position.legal.size(), 1u);
    requests.push_back({position.view, {position.legal[0], position.legal[1]},
                        {static_cast<uint64_t>(steps), 40, 41}});
  }
  requests[1].world_seeds.resize(2);
  for (int threads : {1, 3}) {
    auto together = PairedRolloutResults(game, requests, RandomPolicy(), threads);
    ASSERT_TRUE(together.ok()) << together.status();
    ASSERT_EQ(together->size(), 2u);
    for (size_t r = 0; r < requests.size(); ++r) {
      auto alone = PairedRolloutResults(game, requests[r].view, requests[r].moves, RandomPolicy(),
                                        requests[r].world_seeds, 1);
      ASSERT_TRUE(alone.ok()) << alone.status();
      EXPECT_EQ((*together)[r], *alone);
      EXPECT_EQ((*together)[r].size(), requests[r].world_seeds.size());
    }
  }
  requests[1].world_seeds.clear();
  EXPECT_FALSE(PairedRolloutResults(game, requests, RandomPolicy(), 2).ok());
}

TEST(Rollout, CandidatesBeginWithTheReferenceThenThePreferred) {
  const Game& game = *FindGame("carat");
  const Position position = MidGame(game, 4, 8, 6);
  const std::vector<Move>& legal = position.legal;
  ASSERT_GT(legal.size(), 6u);
  Rng rng(4);
  const Turn turn(*position.state, position.view, legal, rng);
  const std::vector<Move> preferred = {legal[5], legal[0], legal[5]};
  const std::vector<Move> four = RolloutCandidates(turn, legal[3], preferred, 4, rng);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four[0], legal[3]);
  EXPECT_EQ(four[1], legal[5]);
  EXPECT_EQ(four[2], legal[0]);
  const std::vector<Move> all = RolloutCandidates(turn, std::nullopt, {}, 0, rng);
  EXPECT_EQ(all.size(), legal.size());
  EXPECT_THAT(all, ::testing::UnorderedElementsAreArray(legal));
}
#endif

// Means per move, and the standard error of each move's gain over the first, world by world.
TEST(Rollout, SummaryPairsEachMoveWithTheFirstWorldByWorld) {
  const RolloutValues values = SummarizeRollouts({{0.5f, 1.0f}, {0.0f, 0.25f}, {1.0f, 1.0f}});
  EXPECT_DOUBLE_EQ(values.mean[0], 0.5);
  EXPECT_DOUBLE_EQ(values.mean[1], 0.75);
  EXPECT_EQ(values.gain_error[0], 0);
  // Gains 0.5, 0.25, 0: mean 0.25, squared deviations 0.125 in all, / (3 - 1) / 3.
  EXPECT_NEAR(values.gain_error[1], std::sqrt(0.125 / 2 / 3), 1e-7);
  EXPECT_EQ(SummarizeRollouts({{0.25f, 1.0f}}).gain_error[1], 0);  // one world: no spread known
}

TEST(Rollout, MovesByScoreBestFirstEqualScoresInTheirOrder) {
  const std::vector<Move> legal = {Move{10}, Move{11}, Move{12}, Move{13}};
  const std::vector<float> scores = {1, 3, 1, 2};
  EXPECT_THAT(MovesByScore(legal, scores), ::testing::ElementsAre(Move{11}, Move{13}, Move{10}, Move{12}));
}

#if GAVEL_HAS_GAME_sultan
// With `first_worlds`, a decision plays the rest of its worlds only where a candidate leads
// after the first ones: fewer play-outs than every world everywhere, more than the first
// worlds alone. The play-out policy is the one given, not the base.
TEST(RolloutPolicy, PlaysTheRestOfTheWorldsOnlyWhereACandidateLeads) {
  const Game& game = *FindGame("sultan");
  const auto playouts = [&](int first_worlds, int worlds) {
    int base_calls = 0, playout_calls = 0;
    RolloutOptions options;
    options.worlds = worlds;
    options.first_worlds = first_worlds;
    options.candidates = 2;
    options.playouts = [&playout_calls, random = RandomPolicy()](const Turn& turn) {
      ++playout_calls;
      return random(turn);
    };
    const Policy rollout = RolloutPolicy(game, [&base_calls, random = RandomPolicy()](const Turn& turn) {
      ++base_calls;
      return random(turn);
    }, options);
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      const Position position = MidGame(game, 4, seed, 10);
      Rng rng(seed);
      const Turn turn(*position.state, position.view, position.legal, rng);
      EXPECT_TRUE(rollout(turn).ok());
    }
    EXPECT_EQ(base_calls, 12);
    return playout_calls;
  };
  const int first_only = playouts(0, 2), adaptive = playouts(2, 10), every_world = playouts(0, 10);
  EXPECT_GT(first_only, 0);
  EXPECT_GT(adaptive, first_only);
  EXPECT_LT(adaptive, every_world);
}

TEST(RolloutPolicy, ImprovesOnItsRandomBase) {
  const Game& game = *FindGame("sultan");
  RolloutOptions options;
  options.worlds = 4;
  auto evaluation = Evaluate(game, 3, {}, RolloutPolicy(game, RandomPolicy(), options),
                             RandomPolicy(), 30, 12);
  ASSERT_TRUE(evaluation.ok()) << evaluation.status();
  std::printf("rollout(4 worlds, random base) vs random, sultan 3p, 30 games: %.2f +- %.2f\n",
              evaluation->win_rate, evaluation->win_rate_ci95);
  EXPECT_GT(evaluation->win_rate, 1.0 / 3 + evaluation->win_rate_ci95);
}
#endif

// Rollout training plays its base games with the base policy, and the compared moves' worlds
// with the play-out policy when one is given (else with the base).
TEST(Trainer, RolloutWorldsArePlayedOutByThePlayoutPolicy) {
  const Game& game = *AllGames().front();
  int base_calls = 0, playout_calls = 0;
  const auto counting = [](int& calls) -> Policy {
    return [&calls, random = RandomPolicy()](const Turn& turn) {
      ++calls;
      return random(turn);
    };
  };
  TrainConfig config;
  config.method = TrainMethod::kRollouts;
  config.players = game.info().max_players;
  config.episodes = 2;
  config.sample_rate = 0.5;
  config.rollouts = 2;
  config.candidates = 2;
  config.eval_games = 2;
  config.base = NamedPolicy{"base", counting(base_calls)};
  config.playouts = NamedPolicy{"playouts", counting(playout_calls)};
  ASSERT_TRUE(Trainer(game, config).Run([](const TrainProgress&) {}).ok());
  EXPECT_GT(playout_calls, 0);
  const int base_games_only = base_calls;

  config.playouts.reset();
  base_calls = playout_calls = 0;
  ASSERT_TRUE(Trainer(game, config).Run([](const TrainProgress&) {}).ok());
  EXPECT_EQ(playout_calls, 0);
  EXPECT_GT(base_calls, base_games_only);
}

// With a start network (e.g. a past snapshot to improve on) training begins from its weights,
// not from fresh ones, whatever the hidden sizes asked for.
TEST(Trainer, StartsFromTheGivenNetwork) {
  const Game& game = *AllGames().front();
  TrainConfig config;
  config.method = TrainMethod::kRollouts;
  config.players = game.info().min_players;
  config.hidden = {16};
  config.base = NamedPolicy{"random", RandomPolicy()};
  const int inputs = TrainingInputSize(game, config);
  ASSERT_GT(inputs, 0);
  const Mlp start({inputs, 8, 4, 1}, 7);
  const Mlp::Matrix probe = Mlp::Matrix::NullaryExpr(3, inputs, [](Eigen::Index i, Eigen::Index j) {
    return static_cast<float>((i * 7 + j * 3) % 11) / 11.0f;  // fixed, unlike Random()
  });
  const Eigen::VectorXf fresh = Trainer(game, config).policy().network().Forward(probe);
  config.start = start;
  const Trainer trainer(game, config);
  EXPECT_EQ(trainer.policy().network().sizes(), start.sizes());
  EXPECT_EQ(trainer.policy().network().Forward(probe), start.Forward(probe));
  EXPECT_NE(fresh, start.Forward(probe));
}

// Against a population, a base game seats the base policy once and drawn members in the
// other seats: only the base's seat is compared, and its worlds are played out with the
// members in their seats. The population is the first opposition evaluated after random.
TEST(Trainer, RolloutsAgainstAPopulationCompareOnlyTheBaseSeat) {
  const Game& game = *AllGames().front();
  std::map<std::string, std::set<int>> seats_of;  // policy -> seats it was asked for
  const auto recording = [&seats_of](const std::string& name) -> Policy {
    return [&seats_of, name, random = RandomPolicy()](const Turn& turn) {
      seats_of[name].insert(static_cast<int>(turn.view().seat()));
      return random(turn);
    };
  };
  TrainConfig config;
  config.method = TrainMethod::kRollouts;
  config.players = 4;
  config.episodes = 2;
  config.sample_rate = 1;
  config.rollouts = 2;
  config.candidates = 2;
  config.eval_every = 2;  // the first episode's report comes before any evaluation
  config.eval_games = 2;
  config.base = NamedPolicy{"base", recording("base")};
  config.base_opponents = {NamedPolicy{"one", recording("one")}, NamedPolicy{"two", recording("two")}};
  std::map<std::string, std::set<int>> first_episode;
  std::vector<std::string> evaluated;
  ASSERT_TRUE(Trainer(game, config)
                  .Run([&](const TrainProgress& progress) {
                    if (progress.episode == 1) first_episode = seats_of;
                    for (const auto& [name, evaluation] : progress.evaluations) evaluated.push_back(name);
                  })
                  .ok());
  ASSERT_EQ(first_episode["base"].size(), 1u);  // one base seat, in the game and its play-outs
  const int base_seat = *first_episode["base"].begin();
  std::set<int> others;
  for (const char* member : {"one", "two"}) {
    EXPECT_FALSE(first_episode[member].contains(base_seat)) << member;
    others.insert(first_episode[member].begin(), first_episode[member].end());
  }
  EXPECT_EQ(others.size(), 3u);
  EXPECT_THAT(evaluated, ::testing::ElementsAre("random", "one+two"));
}

// A random player that adds its name to `asked` whenever it decides.
Policy Recording(const std::string& name, std::set<std::string>& asked) {
  return [&asked, name, random = RandomPolicy()](const Turn& turn) {
    asked.insert(name);
    return random(turn);
  };
}

// A self-play network can be selected at mixed tables: the evaluation population comes
// right after random, before the copies of each --eval_vs opponent, and its members sit
// in the other seats.
TEST(Trainer, SelfPlayEvaluatesAgainstAPopulation) {
  const Game& game = *AllGames().front();
  std::set<std::string> asked;
  const auto recording = [&asked](const std::string& name) { return Recording(name, asked); };
  TrainConfig config;
  config.players = 3;
  config.episodes = 1;
  config.eval_every = 1;
  config.eval_games = 8;
  config.eval_population = {NamedPolicy{"one", recording("one")}, NamedPolicy{"two", recording("two")}};
  config.eval_opponents = {NamedPolicy{"three", recording("three")}};
  std::vector<std::string> evaluated;
  ASSERT_TRUE(Trainer(game, config)
                  .Run([&](const TrainProgress& progress) {
                    for (const auto& [name, evaluation] : progress.evaluations) evaluated.push_back(name);
                  })
                  .ok());
  EXPECT_THAT(evaluated, ::testing::ElementsAre("random", "one+two", "three"));
  EXPECT_EQ(asked, (std::set<std::string>{"one", "two", "three"}));
}

#if GAVEL_HAS_GAME_carat
// The margin is tuned at tables of the tuning population, not against the opponents of the
// selecting evaluation; without one, against those opponents.
TEST(Trainer, TunesTheMarginAgainstItsPopulation) {
  const Game& game = *FindGame("carat");
  for (const bool with_population : {true, false}) {
    std::set<std::string> asked;
    const auto recording = [&asked](const std::string& name) { return Recording(name, asked); };
    TrainConfig config;
    config.players = 4;
    config.episodes = 0;
    config.advisor_name = "dirk";
    config.advisor = *policy::dirk::Dirk("carat");
    config.eval_opponents = {NamedPolicy{"selecting", recording("selecting")}};
    if (with_population)
      config.tune_population = {NamedPolicy{"one", recording("one")}, NamedPolicy{"two", recording("two")}};
    Trainer trainer(game, config);
    auto tuned = trainer.TuneMargin({0, 1e9}, 8);
    ASSERT_TRUE(tuned.ok()) << tuned.status();
    EXPECT_EQ(tuned->size(), 2u);
    const std::set<std::string> expected =
        with_population ? std::set<std::string>{"one", "two"} : std::set<std::string>{"selecting"};
    EXPECT_EQ(asked, expected);
  }
}
#endif

#if GAVEL_HAS_GAME_sultan
TEST(Trainer, ShortRunImprovesOverRandom) {
  const Game& game = *FindGame("sultan");
  TrainConfig config;
  config.players = 3;
  config.seed = 2;
  config.episodes = 600;
  config.eval_every = 600;
  config.eval_games = 150;
  Evaluation before, after;
  {
    TrainConfig untrained = config;
    untrained.episodes = 0;
    Trainer baseline(game, untrained);
    auto evaluation = Evaluate(game, 3, {}, baseline.Greedy(), RandomPolicy(), 150, 99);
    ASSERT_TRUE(evaluation.ok());
    before = *evaluation;
  }
  Trainer trainer(game, config);
  ASSERT_TRUE(trainer.Run([&](const TrainProgress& progress) {
    if (!progress.evaluations.empty()) after = progress.evaluations.front().second;
  }).ok());
  std::printf("sultan 3p vs random: untrained %.2f, after %d episodes %.2f +- %.2f\n",
              before.win_rate, config.episodes, after.win_rate, after.win_rate_ci95);
  EXPECT_GT(after.win_rate, 1.0 / 3 + after.win_rate_ci95);
  EXPECT_GT(after.mean_reward, before.mean_reward);
}
#endif

}  // namespace
}  // namespace gavel::learn
