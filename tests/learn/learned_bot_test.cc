// The learned bot: the repository's weights load and play legal moves in every game,
// deterministically; tables without a network fall back to Dirk; bad weights folders and
// files give clear errors; advised networks follow their advice at a large margin; the
// trainer is reproducible from its seed.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "learn/learned_policy.h"
#include "learn/named_policy.h"
#include "learn/policy_search.h"
#include "learn/rollout.h"
#include "learn/search_policy.h"
#include "learn/trainer.h"
#include "learn/value_network.h"
#include "policy/dirk/dirk.h"
#include "service/engine_handler.h"

namespace gavel::learn {
namespace {

using ::testing::HasSubstr;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A fresh folder under the test's temporary directory.
std::string Folder(const std::string& name) {
  // The pid keeps test processes that run at once out of each other's folders.
  const std::string path = ::testing::TempDir() + "/learned_" + name + "_" + std::to_string(getpid());
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

// The repository's weights (weights/); those of games not in this build are skipped.
const LearnedPolicy& RepositoryWeights() {
  static const auto* learned = [] {
    auto loaded = LearnedPolicy::Load(GAVEL_WEIGHTS_DIR);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return loaded.ok() ? loaded->release() : nullptr;
  }();
  return *learned;
}

TEST(LearnedBot, HasWeightsForEveryGame) {
  std::vector<std::string> expected;
  for (const Game* game : AllGames()) expected.push_back(game->name());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(RepositoryWeights().Games(), expected);
}

// Every seat learned, at every table size a network was trained for (four players in every
// game): legal moves to the end (PlayGame refuses illegal ones), the same game twice from
// the same seed.
TEST(LearnedBot, PlaysLegalMovesDeterministicallyAtEveryTrainedTable) {
  const learn::Policy learned = RepositoryWeights().AsPolicy();
  for (const Game* game : AllGames()) {
    for (int players = game->info().min_players; players <= game->info().max_players; ++players) {
      SCOPED_TRACE(absl::StrCat(game->name(), ", ", players, " players"));
      auto state = std::move(*game->NewGame(players, 5, {}));
      v1::View view;
      state->Observe(state->to_move(), &view);
      if (players == 4) {
        EXPECT_TRUE(RepositoryWeights().HasNetworkFor(view));
      }
      if (!RepositoryWeights().HasNetworkFor(view)) continue;
      const std::vector<learn::Policy> seats(8, learned);
      Rng first_rng(3), second_rng(3);
      auto first = learn::PlayGame(*game, learn::Match{players, {}, 21}, seats, first_rng);
      auto second = learn::PlayGame(*game, learn::Match{players, {}, 21}, seats, second_rng);
      ASSERT_TRUE(first.ok()) << first.status();
      ASSERT_TRUE(second.ok()) << second.status();
      EXPECT_EQ(first->scores, second->scores);
      EXPECT_EQ(first->ranks, second->ranks);
    }
  }
}

// A table no network was trained for is played by Dirk's rules, move for move: another
// seat count, or weights whose input size does not fit the game's features. (Unused in builds
// without Sultan.)
[[maybe_unused]] void ExpectDirkMoves(const LearnedPolicy& learned, const std::string& game_name, int players) {
  SCOPED_TRACE(game_name);
  const Game& game = *FindGame(game_name);
  auto state = std::move(*game.NewGame(players, 8, {}));
  auto dirk = policy::dirk::Dirk(game_name);
  ASSERT_TRUE(dirk.ok());
  Rng rng(1);
  std::vector<Move> legal;
  for (int step = 0; step < 40 && !state->finished(); ++step) {
    state->LegalMoves(legal);
    v1::View view;
    state->Observe(state->to_move(), &view);
    const learn::Turn turn(*state, view, legal, rng);
    EXPECT_FALSE(learned.HasNetworkFor(view));
    auto chosen = learned.Choose(turn);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    const Move expected = *(*dirk)(turn);
    EXPECT_EQ(*chosen, expected);
    state->ApplyLegal(expected, nullptr);
  }
}

#if GAVEL_HAS_GAME_sultan
TEST(LearnedBot, PlaysDirkWhereNoNetworkFits) {
  // A folder with the four-player network alone: three seats have none.
  const std::string four_only = Folder("four_only");
  std::filesystem::copy_file(std::string(GAVEL_WEIGHTS_DIR) + "/sultan-4p.gmlp",
                             four_only + "/sultan-4p.gmlp");
  auto four = LearnedPolicy::Load(four_only);
  ASSERT_TRUE(four.ok()) << four.status();
  ExpectDirkMoves(**four, "sultan", 3);
}

// Weights whose input size is not what this build's features give (trained before the
// features changed) are refused when loaded, not left unused while Dirk plays in their place.
TEST(LearnedBot, WeightsOfOtherFeaturesAreAClearError) {
  learn::Mlp misfit({7, 4, 1}, 1);
  misfit.metadata = "game=sultan\nplayers=4\n";
  const std::string folder = Folder("misfit");
  ASSERT_TRUE(misfit.Save(folder + "/sultan-4p.gmlp").ok());
  auto loaded = LearnedPolicy::Load(folder);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(loaded.status().message(), HasSubstr("sultan-4p.gmlp takes 7 inputs"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("train them again"));
}
#endif

// The table's seat count comes from View.seats: the same view said to be of a table no
// network was trained for is played by Dirk's rules.
TEST(LearnedBot, TakesTheSeatCountFromTheView) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    auto state = std::move(*game->NewGame(4, 6, {}));
    std::vector<Move> legal;
    state->LegalMoves(legal);
    v1::View view;
    state->Observe(state->to_move(), &view);
    EXPECT_TRUE(RepositoryWeights().HasNetworkFor(view));
    view.set_seats(view.seats() + 7);
    EXPECT_FALSE(RepositoryWeights().HasNetworkFor(view));
    Rng rng(1);
    const Turn turn(*state, view, legal, rng);
    auto chosen = RepositoryWeights().Choose(turn);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    EXPECT_EQ(*chosen, *(*policy::dirk::Dirk(game->name()))(turn));
  }
}

#if GAVEL_HAS_GAME_moonlight_market
// Moonlight Market seats one, two and three players at three seats (the rules' automata fill
// the table): each table is played by the network trained for its player count (View.players),
// whatever order the weights folder lists its files in; a view without a player count goes
// by its seats alone.
TEST(LearnedBot, TakesThePlayerCountFromTheView) {
  const Game& game = *FindGame("moonlight_market");
  for (int players = 1; players <= 3; ++players) {
    SCOPED_TRACE(absl::StrCat(players, " players"));
    auto state = std::move(*game.NewGame(players, 9, {}));
    std::vector<Move> legal;
    state->LegalMoves(legal);
    v1::View view;
    state->Observe(state->to_move(), &view);
    EXPECT_EQ(view.seats(), 3);
    EXPECT_EQ(view.players(), players);
    auto own = QPolicy::Load(game, absl::StrCat(GAVEL_WEIGHTS_DIR, "/moonlight_market-", players, "p.gmlp"));
    ASSERT_TRUE(own.ok()) << own.status();
    own->set_advisor(*policy::dirk::Dirk("moonlight_market"));
    Rng rng(1);
    const Turn turn(*state, view, legal, rng);
    auto scores = RepositoryWeights().Scores(turn);
    ASSERT_TRUE(scores.ok()) << scores.status();
    EXPECT_EQ(*scores, *own->Scores(turn));
    view.set_players(0);
    EXPECT_TRUE(RepositoryWeights().HasNetworkFor(view));
  }
}
#endif

// The legal moves as a bot receives them: the engine's LegalMoves response, written with
// its tail and parsed back.
policy::LegalMoves WireLegalMoves(const State& state) {
  v1::LegalMovesRequest request;
  state.Serialize(request.mutable_state()->mutable_full());
  request.set_seat(state.to_move());
  v1::LegalMovesResponse response;
  service::ResponseTail tail;
  EXPECT_TRUE(service::LegalMoves(request, &response, nullptr, &tail).ok());
  std::string bytes(service::SizeWithTail(response, tail), '\0');
  service::WriteWithTail(response, tail, reinterpret_cast<uint8_t*>(bytes.data()));
  v1::LegalMovesResponse received;
  EXPECT_TRUE(received.ParseFromString(bytes));
  return received.moves();
}

// A bot process plays what the same policy plays in-process (gavel-eval, training): at every
// step of a random game, the learned bot and Dirk choose the same move from the turn built
// from the wire (the view and the described moves parsed from bytes) as from the state.
TEST(LearnedBot, ChoosesTheSameOverTheWireAsInProcess) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    auto dirk = policy::dirk::Dirk(game->name());
    ASSERT_TRUE(dirk.ok());
    auto state = std::move(*game->NewGame(4, 11, {}));
    Rng walk(2);
    std::vector<Move> legal;
    for (int step = 0; step < 400 && !state->finished(); ++step) {
      SCOPED_TRACE(step);
      state->LegalMoves(legal);
      v1::View view;
      state->Observe(state->to_move(), &view);
      v1::View received_view;
      ASSERT_TRUE(received_view.ParseFromString(view.SerializeAsString()));
      const policy::LegalMoves described = WireLegalMoves(*state);
      std::vector<Move> received_legal;
      for (const v1::Move& move : described) received_legal.push_back(Move{move.id()});
      ASSERT_EQ(received_legal, legal);
      Rng local_rng(1), wire_rng(1);
      const Turn local(*state, view, legal, local_rng);
      const Turn wire(received_view, received_legal, described, wire_rng);
      EXPECT_EQ(*RepositoryWeights().Choose(local), *RepositoryWeights().Choose(wire));
      EXPECT_EQ(*(*dirk)(local), *(*dirk)(wire));
      state->ApplyLegal(legal[walk.Below(static_cast<uint32_t>(legal.size()))], nullptr);
    }
  }
}

// The search bot: priors that sum to 1 with the learned bot's choice the likeliest, and a
// legal move in every game within a small budget.
TEST(SearchBot, PlaysLegalMovesGuidedByTheNetworkInEveryGame) {
  const Policy search = SearchPolicy(RepositoryWeights(), {.time_ms = 2});
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    auto state = std::move(*game->NewGame(4, 9, {}));
    std::vector<Move> legal;
    Rng walk(2);
    for (int step = 0; step < 12 && !state->finished(); ++step) {
      state->LegalMoves(legal);
      state->ApplyLegal(legal[walk.Below(static_cast<uint32_t>(legal.size()))], nullptr);
    }
    ASSERT_FALSE(state->finished());
    state->LegalMoves(legal);
    v1::View view;
    state->Observe(state->to_move(), &view);
    Rng rng(3);
    const Turn turn(*state, view, legal, rng);
    auto priors = NetworkPriors(RepositoryWeights(), turn, 0.5);
    ASSERT_TRUE(priors.ok()) << priors.status();
    ASSERT_EQ(priors->size(), legal.size());
    double total = 0;
    for (double prior : *priors) total += prior;
    EXPECT_NEAR(total, 1.0, 1e-9);
    const Move learned_choice = *RepositoryWeights().Choose(turn);
    const size_t choice = static_cast<size_t>(std::find(legal.begin(), legal.end(), learned_choice) - legal.begin());
    EXPECT_EQ(std::max_element(priors->begin(), priors->end()) - priors->begin(), static_cast<long>(choice));
    auto chosen = search(turn);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    EXPECT_TRUE(state->IsLegal(*chosen));
  }
}

// With a number of iterations the search bot's budget is that number whatever the network's
// scoring took, so a seed gives the same game twice; with time, what is left of it.
TEST(SearchBot, AnIterationBudgetPlaysTheSameGameFromTheSameSeed) {
  IsmctsOptions budget;
  SetBudget({.time_ms = 10, .iterations = 25}, 3.0, &budget);
  EXPECT_EQ(budget.iterations, 25);
  EXPECT_EQ(budget.time_budget_ms, 0);
  SetBudget({.time_ms = 10}, 3.0, &budget);
  EXPECT_DOUBLE_EQ(budget.time_budget_ms, 7.0);

  const Game& game = *AllGames().front();
  const Policy search = SearchPolicy(RepositoryWeights(), {.iterations = 20});
  const auto play = [&] {
    std::vector<uint32_t> moves;
    auto state = std::move(*game.NewGame(game.info().min_players, 5, {}));
    Rng rng(6);
    const absl::Status played = PlayToEnd(*state, [&](const Turn& turn, Seat) {
      auto move = search(turn);
      if (move.ok()) moves.push_back(move->id);
      return move;
    }, rng);
    EXPECT_TRUE(played.ok()) << played;
    return moves;
  };
  const std::vector<uint32_t> first = play();
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(play(), first);
}

#if GAVEL_HAS_GAME_mercado
// In Mercado the search bot compares the learned bot's choice with the network's best scored
// other move in paired rollouts (SearchMethod::kPairedRollouts): it plays one of the two,
// exactly as the rollout policy with Dirk's play-outs and a gate of two standard errors does,
// the same one from the same seed, and sometimes the other move; other games keep ISMCTS
// unless told otherwise.
TEST(SearchBot, InMercadoPlaysTheNetworksChoiceOrItsRunnerUp) {
  EXPECT_EQ(DefaultSearchMethod("mercado"), SearchMethod::kPairedRollouts);
  EXPECT_EQ(DefaultSearchMethod("sultan"), SearchMethod::kIsmcts);
  EXPECT_EQ(SearchOptions{.method = SearchMethod::kIsmcts}.MethodIn("mercado"), SearchMethod::kIsmcts);
  const Game& mercado = *FindGame("mercado");
  const Policy search = SearchPolicy(RepositoryWeights(), {.paired_first_worlds = 2, .paired_worlds = 6});
  RolloutOptions paired;
  paired.first_worlds = 2;
  paired.worlds = 6;
  paired.candidates = 2;
  paired.min_z = 2;
  paired.playouts = *policy::dirk::Dirk("mercado");
  paired.scores = [](const Turn& turn) { return RepositoryWeights().Scores(turn); };
  const Policy rollouts = RolloutPolicy(mercado, RepositoryWeights().AsPolicy(), paired);
  int runner_up_played = 0, decisions = 0;
  for (uint64_t seed = 1; seed <= 32; ++seed) {
    auto state = std::move(*mercado.NewGame(4, seed, {}));
    std::vector<Move> legal;
    Rng walk(seed);
    for (int step = 0; step < 20 && !state->finished(); ++step) {
      state->LegalMoves(legal);
      state->ApplyLegal(legal[walk.Below(static_cast<uint32_t>(legal.size()))], nullptr);
    }
    state->LegalMoves(legal);
    if (state->finished() || legal.size() < 2) continue;
    v1::View view;
    state->Observe(state->to_move(), &view);
    Rng rng(seed), again(seed), scoring(seed), rolling(seed);
    const Turn turn(*state, view, legal, rng), twin(*state, view, legal, again), scored(*state, view, legal, scoring);
    const Turn rolled(*state, view, legal, rolling);
    const Move choice = *RepositoryWeights().Choose(scored);
    auto scores = RepositoryWeights().Scores(scored);
    ASSERT_TRUE(scores.ok()) << scores.status();
    std::vector<Move> by_score = MovesByScore(legal, *scores);
    const Move runner_up = by_score.front() == choice ? by_score[1] : by_score.front();
    auto chosen = search(turn);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    EXPECT_THAT(*chosen, ::testing::AnyOf(choice, runner_up)) << seed;
    EXPECT_EQ(*search(twin), *chosen) << seed;
    EXPECT_EQ(*rollouts(rolled), *chosen) << seed;
    runner_up_played += *chosen == runner_up && runner_up != choice;
    ++decisions;
  }
  EXPECT_GE(decisions, 16);
  EXPECT_GE(runner_up_played, 1) << "no decision left the network's choice: the gate was not tested";
  std::printf("search in mercado: the runner-up in %d of %d decisions\n", runner_up_played, decisions);
}
#endif

#if GAVEL_HAS_GAME_sultan
// Value networks (`<game>-<players>p.value`) load from the weights folder beside the
// networks, each for its own table, and the search bot plays legal moves asking one at its
// leaves; a value file that holds no value network is a clear error.
TEST(SearchBot, FindsTheTablesValueNetworkInTheWeightsFolder) {
  const Game& sultan = *FindGame("sultan");
  const std::string folder = Folder("values");
  std::filesystem::copy_file(std::string(GAVEL_WEIGHTS_DIR) + "/sultan-4p.gmlp", folder + "/sultan-4p.gmlp");
  ValueTrainConfig config;
  config.players = 4;
  config.games = 20;
  config.sample_rate = 0.2;
  config.epochs = 1;
  config.population = {{"random", RandomPolicy()}};
  ValueFit fit;
  auto value = TrainValueNetwork(sultan, config, {}, &fit);
  ASSERT_TRUE(value.ok()) << value.status();
  ASSERT_TRUE(value->network().Save(folder + "/sultan-4p.value").ok());
  auto learned = LearnedPolicy::Load(folder);
  ASSERT_TRUE(learned.ok()) << learned.status();
  const Policy search = SearchPolicy(**learned, {.time_ms = 2, .value_playout_moves = 0});
  for (int players : {3, 4}) {
    auto state = std::move(*sultan.NewGame(players, 9, {}));
    std::vector<Move> legal;
    state->LegalMoves(legal);
    v1::View view;
    state->Observe(state->to_move(), &view);
    EXPECT_EQ((*learned)->ValueFor(view) != nullptr, players == 4) << players;
    const IsmctsOptions settings = SearchSettings(**learned, view, {.value_playout_moves = 7});
    EXPECT_EQ(static_cast<bool>(settings.leaf_values), players == 4) << players;
    EXPECT_EQ(settings.playout_moves, players == 4 ? 7 : 0) << players;
    if (players == 4) {
      auto values = settings.leaf_values(*state);
      ASSERT_TRUE(values.ok()) << values.status();
      EXPECT_EQ(*values, *value->SeatValues(*state));
    }
    EXPECT_FALSE(SearchSettings(**learned, view, {.value_playout_moves = -1}).leaf_values);
    Rng rng(3);
    auto chosen = search(Turn(*state, view, legal, rng));
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    EXPECT_TRUE(state->IsLegal(*chosen));
  }
  std::filesystem::copy_file(std::string(GAVEL_WEIGHTS_DIR) + "/sultan-4p.gmlp", folder + "/sultan-3p.value");
  auto refused = LearnedPolicy::Load(folder);
  EXPECT_THAT(refused.status().message(), HasSubstr("sultan-3p.value is not a value network"));
}
#endif

TEST(LearnedBot, MissingOrEmptyFolderIsAClearError) {
  auto missing = LearnedPolicy::Load(::testing::TempDir() + "/no_such_weights");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no_such_weights"));
  auto empty = LearnedPolicy::Load(Folder("empty"));
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("<game>-<players>p.gmlp"));
}

TEST(LearnedBot, CorruptOrForeignWeightsAreClearErrors) {
  const std::string first = AllGames().front()->name();
  const std::string bytes = Slurp(std::string(GAVEL_WEIGHTS_DIR) + "/" + first + "-4p.gmlp");
  ASSERT_GT(bytes.size(), 100u);

  const std::string truncated = Folder("truncated");
  std::ofstream(truncated + "/" + first + "-4p.gmlp", std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  EXPECT_EQ(LearnedPolicy::Load(truncated).status().code(), absl::StatusCode::kDataLoss);

  // Weights of a game this build lacks are skipped (the build may hold a subset of the
  // games); a folder with nothing else has no usable weights.
  const std::string unknown = Folder("unknown");
  std::ofstream(unknown + "/chess-4p.gmlp", std::ios::binary) << bytes;
  EXPECT_EQ(LearnedPolicy::Load(unknown).status().code(), absl::StatusCode::kNotFound);
  std::ofstream(unknown + "/" + first + "-4p.gmlp", std::ios::binary) << bytes;
  auto skipped = LearnedPolicy::Load(unknown);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_EQ((*skipped)->Games(), std::vector<std::string>{first});

  if (AllGames().size() < 2) return;
  const std::string renamed = Folder("renamed");  // one game's weights under another's name
  std::ofstream(renamed + "/" + AllGames().back()->name() + "-4p.gmlp", std::ios::binary) << bytes;
  EXPECT_EQ(LearnedPolicy::Load(renamed).status().code(), absl::StatusCode::kFailedPrecondition);
}

// One weights file as a policy (a league's past snapshot, "learned:<file>"): at every step of
// a four-player game in every game it chooses what the learned bot with the whole folder
// chooses; a table of another size, a missing file and another game's file are errors that
// name the file.
TEST(NetworkFilePolicy, PlaysAsTheLearnedBotAtItsTableAndRefusesOthers) {
  for (const Game* game : AllGames()) {
    SCOPED_TRACE(game->name());
    const std::string file = absl::StrCat(GAVEL_WEIGHTS_DIR, "/", game->name(), "-4p.gmlp");
    auto snapshot = PolicyNamed(absl::StrCat("learned:", file), *game);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    auto state = std::move(*game->NewGame(4, 21, {}));
    Rng rng(1);
    std::vector<Move> legal;
    int decisions = 0;
    while (!state->finished()) {
      state->LegalMoves(legal);
      v1::View view;
      state->Observe(state->to_move(), &view);
      const Turn turn(*state, view, legal, rng);
      auto chosen = (*snapshot)(turn);
      ASSERT_TRUE(chosen.ok()) << chosen.status();
      ASSERT_EQ(*chosen, *RepositoryWeights().Choose(turn));
      state->ApplyLegal(*chosen, nullptr);
      ++decisions;
    }
    EXPECT_GT(decisions, 10);

    const int other_size = game->name() == "morgenland" ? 3 : 2;
    auto other_table = std::move(*game->NewGame(other_size, 21, {}));
    other_table->LegalMoves(legal);
    v1::View view;
    other_table->Observe(other_table->to_move(), &view);
    const absl::Status refused = (*snapshot)(Turn(*other_table, view, legal, rng)).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(refused.message()), HasSubstr(file));

    const absl::Status missing = PolicyNamed("learned:/no/such/file.gmlp", *game).status();
    EXPECT_FALSE(missing.ok());
    EXPECT_THAT(std::string(missing.message()), HasSubstr("/no/such/file.gmlp"));
    EXPECT_EQ(PolicyNamed("learned:", *game).status().code(), absl::StatusCode::kInvalidArgument);
    for (const Game* other : AllGames()) {
      if (other == game) continue;
      EXPECT_EQ(PolicyNamed(absl::StrCat("learned:", file), *other).status().code(),
                absl::StatusCode::kFailedPrecondition);
    }
  }
}

// Loads a folder holding one tiny Sultan network with the given metadata (unused in builds
// without Sultan).
[[maybe_unused]] absl::Status LoadWithMetadata(const std::string& folder_name, const std::string& metadata) {
  learn::Mlp network({4, 1}, 1);
  network.metadata = metadata;
  const std::string folder = Folder(folder_name);
  if (absl::Status saved = network.Save(folder + "/sultan-4p.gmlp"); !saved.ok()) return saved;
  return LearnedPolicy::Load(folder).status();
}

#if GAVEL_HAS_GAME_sultan
TEST(LearnedBot, UnknownAdvisorIsAClearError) {
  const absl::Status status = LoadWithMetadata("advisor", "game=sultan\nadvice=oracle\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("oracle"));
}
#endif

#if GAVEL_HAS_GAME_sultan
TEST(LearnedBot, UnknownInputLayoutIsAClearError) {
  const absl::Status status =
      LoadWithMetadata("layout", "game=sultan\nadvice=dirk\ninputs=view,future\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("view,future"));
}
#endif

// The network chooses Dirk's move at every decision of a four-seat game.
void ExpectPlaysLikeDirk(const learn::QPolicy& network, const std::string& game_name) {
  SCOPED_TRACE(game_name);
  auto dirk = policy::dirk::Dirk(game_name);
  auto state = std::move(*FindGame(game_name)->NewGame(4, 4, {}));
  Rng rng(1);
  std::vector<Move> legal;
  while (!state->finished()) {
    state->LegalMoves(legal);
    v1::View view;
    state->Observe(state->to_move(), &view);
    const learn::Turn turn(*state, view, legal, rng);
    auto chosen = network.Choose(turn);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    ASSERT_EQ(*chosen, *(*dirk)(turn));
    state->ApplyLegal(*chosen, nullptr);
  }
}

#if GAVEL_HAS_GAME_carat
// With a margin no Q difference can exceed, an advised network plays exactly its advice;
// the margin is saved with the weights.
TEST(AdvisedNetwork, FollowsItsAdviceAtALargeMarginAndSavesTheMargin) {
  const Game& game = *FindGame("carat");
  learn::TrainConfig config;
  config.players = 4;
  config.episodes = 0;
  config.advisor_name = "dirk";
  config.advisor = *policy::dirk::Dirk("carat");
  learn::Trainer trainer(game, config);
  learn::QPolicy network = trainer.policy();
  network.set_advice_margin(1e9);
  const std::string path = Folder("margin") + "/carat-4p.gmlp";
  ASSERT_TRUE(network.Save(path).ok());
  auto loaded = learn::QPolicy::Load(game, path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->AdvisorName(), "dirk");
  EXPECT_EQ(loaded->advice_margin(), 1e9);
  EXPECT_EQ(loaded->Metadata("inputs"), "view,advice_move,move,advised");
  EXPECT_EQ(loaded->layout(), learn::InputLayout::kViewAdviceMoveAdvised);

  ExpectPlaysLikeDirk(network, "carat");
}
#endif

// Trains with the configuration and returns the best network's saved bytes.
std::string TrainedBytes(const Game& game, const learn::TrainConfig& config) {
  learn::Trainer trainer(game, config);
  if (!trainer.Run([](const learn::TrainProgress&) {}).ok()) return "";
  const std::string path = Folder("trained") + "/" + game.name() + "-4p.gmlp";
  if (!trainer.best().Save(path).ok()) return "";
  return Slurp(path);
}

#if GAVEL_HAS_GAME_mercado
// Same configuration and seed: byte-identical weights.
TEST(Trainer, SameSeedGivesTheSameWeights) {
  const Game& game = *FindGame("mercado");
  std::string saved[2];
  for (std::string& bytes : saved) {
    learn::TrainConfig config;
    config.players = 4;
    config.seed = 12;
    config.episodes = 40;
    config.batch = 64;
    config.eval_every = 40;
    config.eval_games = 8;
    config.advisor_name = "dirk";
    config.advisor = *policy::dirk::Dirk("mercado");
    config.guide = learn::NamedPolicy{"dirk", *policy::dirk::Dirk("mercado")};
    config.extra_opponents.emplace_back(learn::NamedPolicy{"dirk", *policy::dirk::Dirk("mercado")}, 0.5);
    bytes = TrainedBytes(game, config);
  }
  EXPECT_FALSE(saved[0].empty());
  EXPECT_EQ(saved[0], saved[1]);
}
#endif

#if GAVEL_HAS_GAME_carat
// Paired-rollout training: the same weights from the same seed, whatever the number of
// threads the rollouts run on.
TEST(Trainer, RolloutTrainingGivesTheSameWeightsOnAnyThreadCount) {
  const Game& game = *FindGame("carat");
  std::string saved[2];
  for (int threads : {1, 2}) {
    learn::TrainConfig config;
    config.method = learn::TrainMethod::kRollouts;
    config.players = 4;
    config.seed = 5;
    config.episodes = 2;
    config.batch = 32;
    config.sample_rate = 0.3;
    config.rollouts = 3;
    config.candidates = 4;
    config.network_candidates = 2;
    config.target_min_z = 1;
    config.rollout_threads = threads;
    config.eval_every = 2;
    config.eval_games = 4;
    config.advisor_name = "dirk";
    config.advisor = *policy::dirk::Dirk("carat");
    config.base = learn::NamedPolicy{"dirk", *policy::dirk::Dirk("carat")};
    saved[threads - 1] = TrainedBytes(game, config);
  }
  EXPECT_FALSE(saved[0].empty());
  EXPECT_EQ(saved[0], saved[1]);
}
#endif

#if GAVEL_HAS_GAME_carat
// An untrained advised Carat network at margin 0: it plays its own arbitrary favourites.
learn::QPolicy UntrainedCaratNetwork() {
  learn::TrainConfig config;
  config.players = 4;
  config.episodes = 0;
  config.advisor_name = "dirk";
  config.advisor = *policy::dirk::Dirk("carat");
  learn::QPolicy network = learn::Trainer(*FindGame("carat"), config).policy();
  network.set_advice_margin(0);
  return network;
}
#endif

learn::SearchConfig SmallSearch(learn::Policy opponent) {
  learn::SearchConfig config;
  config.seed = 3;
  config.iterations = 4;
  config.pairs = 2;
  config.games = 40;
  config.eval_every = 2;
  config.eval_games = 100;
  if (opponent) config.opponents.push_back(std::move(opponent));
  return config;
}

#if GAVEL_HAS_GAME_carat
// Same seed: byte-identical weights, whatever the number of threads the games run on.
TEST(PolicySearch, SameSeedGivesTheSameWeightsOnAnyThreadCount) {
  const Game& game = *FindGame("carat");
  const std::string start_path = Folder("search_start") + "/carat-4p.gmlp";
  ASSERT_TRUE(UntrainedCaratNetwork().Save(start_path).ok());
  std::string saved[2];
  for (int threads : {1, 2}) {
    learn::SearchConfig config = SmallSearch(*policy::dirk::Dirk("carat"));
    config.iterations = 2;
    config.games = 8;
    config.eval_games = 8;
    config.layers = 2;
    config.threads = threads;
    learn::PolicySearch search(game, UntrainedCaratNetwork(), config);
    ASSERT_TRUE(search.Run([](const learn::SearchProgress&) {}).ok());
    const std::string path = Folder("search") + "/carat-4p.gmlp";
    ASSERT_TRUE(search.current().Save(path).ok());
    saved[threads - 1] = Slurp(path);
  }
  EXPECT_FALSE(saved[0].empty());
  EXPECT_NE(saved[0], Slurp(start_path));  // the search moved
  EXPECT_EQ(saved[0], saved[1]);
}
#endif

#if GAVEL_HAS_GAME_carat
// From a network that ignores its advice, a short search against random players finds
// that following Dirk's advice more often wins more: it raises the margin, and the win
// rate with it.
TEST(PolicySearch, ImprovesAPoorStartAgainstRandomPlayers) {
  learn::SearchConfig config = SmallSearch(learn::RandomPolicy());
  config.margin_sigma = 0.5;
  std::vector<double> win_rates;
  // Started from an earlier search's network, as a second stage is: the kept weights name
  // this search's iteration only.
  learn::QPolicy start = UntrainedCaratNetwork();
  start.mutable_network().metadata += "search_iteration=99\n";
  learn::PolicySearch search(*FindGame("carat"), start, config);
  ASSERT_TRUE(search.Run([&](const learn::SearchProgress& progress) {
    if (progress.evaluation) win_rates.push_back(progress.evaluation->win_rate);
  }).ok());
  ASSERT_EQ(win_rates.size(), 3u);  // iterations 0, 2 and 4
  EXPECT_GT(search.best().advice_margin(), 0.1);
  EXPECT_GT(*std::max_element(win_rates.begin() + 1, win_rates.end()), win_rates[0] + 0.15)
      << "win rates at iterations 0, 2, 4: " << win_rates[0] << ", " << win_rates[1] << ", " << win_rates[2];
  const std::string& metadata = search.best().network().metadata;
  EXPECT_FALSE(absl::StrContains(metadata, "search_iteration=99")) << metadata;
  EXPECT_THAT(search.best().Metadata("search_iteration"), ::testing::AnyOf("0", "2", "4"));
}
#endif

// A search's linear start plays exactly Dirk's moves, in every game.
TEST(PolicySearch, AdviceFollowingStartPlaysDirkInEveryGame) {
  for (const Game* game : AllGames()) {
    auto start = learn::AdviceFollowingNetwork(*game, 4, {}, "dirk", *policy::dirk::Dirk(game->name()));
    ASSERT_TRUE(start.ok()) << start.status();
    EXPECT_EQ(start->network().layer_count(), 1);
    ExpectPlaysLikeDirk(*start, game->name());
  }
  EXPECT_FALSE(learn::AdviceFollowingNetwork(*AllGames().front(), 4, {}, "", {}).ok());
}

#if GAVEL_HAS_GAME_carat
// Searching the move's features moves only those weights and the advised bit's, in units
// of how much each feature differs from the advice's.
TEST(PolicySearch, MoveFeatureSearchMovesOnlyThoseWeights) {
  const Game& game = *FindGame("carat");
  auto start = learn::AdviceFollowingNetwork(game, 4, {}, "dirk", *policy::dirk::Dirk("carat"));
  ASSERT_TRUE(start.ok()) << start.status();
  auto spread = learn::MoveFeatureSpread(game, 4, {}, *start, 15, 3, 1);
  ASSERT_TRUE(spread.ok()) << spread.status();
  ASSERT_EQ(spread->rms.size(), 15u);
  EXPECT_GT(*std::max_element(spread->rms.begin(), spread->rms.end()), 0.0);
  const int first = spread->first_column;
  EXPECT_GT(first, 0);
  EXPECT_LT(first + 15, start->network().input_size());

  learn::SearchConfig config = SmallSearch(*policy::dirk::Dirk("carat"));
  config.iterations = 2;
  config.games = 16;
  config.eval_games = 8;
  config.sigma = 0.3;
  config.sigma_absolute = true;
  config.move_features = 15;
  config.spread_games = 3;
  learn::PolicySearch search(game, *start, config);
  ASSERT_TRUE(search.Run([](const learn::SearchProgress&) {}).ok());
  const Eigen::VectorXf before = start->network().TailParameters(1);
  const Eigen::VectorXf after = search.current().network().TailParameters(1);
  const int advised = start->network().input_size() - 1;
  int moved = 0;
  for (Eigen::Index i = 0; i < before.size(); ++i) {
    if (before[i] == after[i]) continue;
    ++moved;
    EXPECT_TRUE((i >= first && i < first + 15) || i == advised) << "weight " << i << " moved";
  }
  EXPECT_GT(moved, 0);
  EXPECT_EQ(search.current().advice_margin(), 0);
}
#endif

#if GAVEL_HAS_GAME_carat
// The search refuses what it cannot work with.
TEST(PolicySearch, NeedsAnAdvisedNetworkAndAnOpponent) {
  learn::QPolicy unadvised(*FindGame("carat"), learn::Mlp({4, 1}, 1));
  learn::PolicySearch without_advice(*FindGame("carat"), unadvised, SmallSearch(learn::RandomPolicy()));
  EXPECT_EQ(without_advice.Run([](const learn::SearchProgress&) {}).code(),
            absl::StatusCode::kFailedPrecondition);
  learn::PolicySearch without_opponent(*FindGame("carat"), UntrainedCaratNetwork(), SmallSearch({}));
  EXPECT_EQ(without_opponent.Run([](const learn::SearchProgress&) {}).code(),
            absl::StatusCode::kInvalidArgument);
}
#endif

}  // namespace
}  // namespace gavel::learn
