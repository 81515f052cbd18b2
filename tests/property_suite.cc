#include "tests/property_suite.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "engine/core/rng.h"

namespace gavel::testing {
namespace {

constexpr int kMaxSteps = 50000;  // far above any game's length: reaching it is a failure

std::string ViewBytes(const State& state, Seat seat) {
  v1::View view;
  state.Observe(seat, &view);
  std::string bytes;
  view.SerializeToString(&bytes);  // views hold no maps, so this is deterministic
  return bytes;
}

void AddOptionCombos(const std::vector<OptionSpec>& specs, size_t index, OptionMap current,
                     std::vector<OptionMap>* out) {
  if (index == specs.size()) {
    out->push_back(current);
    return;
  }
  const OptionSpec& spec = specs[index];
  std::vector<std::string> values = spec.choices;
  if (values.empty()) {
    std::set<int> ints = {spec.min_int, spec.max_int, std::atoi(spec.default_value.c_str())};
    for (int value : ints) values.push_back(std::to_string(value));
  }
  for (const auto& value : values) {
    current[spec.name] = value;
    AddOptionCombos(specs, index + 1, current, out);
  }
}

std::string ConfigName(int players, const OptionMap& options) {
  std::string name = absl::StrCat("p", players);
  for (const auto& [key, value] : options) absl::StrAppend(&name, "_", key, "_", value);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// The feature sizes a configuration first produced; learned policies need them fixed.
struct FeatureSizes {
  size_t observation = 0;
  int move = 0;
};

// How often a configuration's checks compared something (none would mean a vacuous check).
struct Compared {
  int event_orders = 0;  // moves that told a spectator two or more events in both worlds
};

std::vector<std::string> EventBytes(const std::vector<v1::Event>& events) {
  std::vector<std::string> bytes;
  for (const v1::Event& event : events) bytes.push_back(event.SerializeAsString());
  return bytes;
}

std::string EventTexts(const std::vector<v1::Event>& events) {
  std::string texts;
  for (const v1::Event& event : events) absl::StrAppend(&texts, "\n  ", event.text());
  return texts;
}

// The order of what a spectator is told depends on nothing hidden. `resampled` was drawn from
// `seat`'s view; after `move` in both worlds, where that seat and a spectator see the same,
// the spectator's events may differ (chance the move reveals), but the same events must come
// in the same order: an order set by hidden values (a seat's face-down tokens listed by value)
// would tell them. Counts the comparisons of two or more events in `compared`.
void CheckSpectatorEventOrder(const State& state, const State& resampled, Move move, Seat seat, Compared& compared) {
  if (!resampled.IsLegal(move)) return;
  std::unique_ptr<State> real = state.Clone(), other = resampled.Clone();
  EventLog real_events, other_events;
  ASSERT_TRUE(real->Apply(move, &real_events).ok());
  ASSERT_TRUE(other->Apply(move, &other_events).ok());
  if (ViewBytes(*real, seat) != ViewBytes(*other, seat) || ViewBytes(*real, kNoSeat) != ViewBytes(*other, kNoSeat))
    return;
  const std::vector<v1::Event> told = real_events.ForSpectator(), other_told = other_events.ForSpectator();
  std::vector<std::string> bytes = EventBytes(told), other_bytes = EventBytes(other_told);
  if (bytes.size() >= 2 && other_bytes.size() >= 2) ++compared.event_orders;
  if (bytes == other_bytes) return;
  std::sort(bytes.begin(), bytes.end());
  std::sort(other_bytes.begin(), other_bytes.end());
  EXPECT_TRUE(bytes != other_bytes) << "after " << state.MoveText(move)
                                    << ", hidden information orders the events a spectator sees:" << EventTexts(told)
                                    << "\nin a world drawn from seat " << seat << "'s view:" << EventTexts(other_told);
}

// Every move tells every seat and a spectator something: a client that follows a table by
// its events (a replay's page, a mobile backend) sees each move happen, a pass included.
void CheckEveryoneIsTold(const State& after, const EventLog& events, const std::string& move_text) {
  EXPECT_FALSE(events.ForSpectator().empty()) << "a spectator is told nothing of " << move_text;
  for (Seat seat = 0; seat < after.seats(); ++seat) {
    if (after.IsAutomaton(seat)) continue;
    EXPECT_FALSE(events.ForSeat(seat).empty()) << "seat " << seat << " is told nothing of " << move_text;
  }
}

// The steps every reachable state must pass.
void CheckState(const Config& config, const State& state, uint64_t seed, int step,
                FeatureSizes& sizes, Compared& compared) {
  const Game& game = *config.game;
  SCOPED_TRACE(absl::StrCat("seed ", seed, " step ", step));
  // Round trip through the wire form re-validates every invariant (conservation, phase).
  v1::GameState wire;
  state.Serialize(&wire);
  auto decoded = game.Deserialize(wire);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ((*decoded)->Bytes(), state.Bytes()) << "serialization round trip changed the state";
  // Every earlier state format the game still reads (old tokens, stored states) gives the same state.
  for (int versions_back = 1;; ++versions_back) {
    v1::GameState earlier;
    if (!state.SerializeEarlierFormat(versions_back, &earlier)) break;
    auto from_earlier = game.Deserialize(earlier);
    ASSERT_TRUE(from_earlier.ok()) << versions_back << " formats back: " << from_earlier.status();
    ASSERT_EQ((*from_earlier)->Bytes(), state.Bytes()) << versions_back << " formats back";
  }

  std::vector<Move> legal;
  state.LegalMoves(legal);
  if (state.finished()) {
    EXPECT_TRUE(legal.empty());
    return;
  }
  const Seat mover = state.to_move();
  ASSERT_GE(mover, 0);
  ASSERT_LT(mover, state.seats());
  EXPECT_FALSE(state.IsAutomaton(mover)) << "an automaton seat is asked to decide";
  ASSERT_FALSE(legal.empty()) << "seat " << mover << " has no legal move";
  std::set<uint32_t> distinct;
  for (Move move : legal) distinct.insert(move.id);
  EXPECT_EQ(distinct.size(), legal.size()) << "duplicate legal moves";

  // Every legal move is accepted and its detail decodes back to the same id; the bytes a
  // game keeps ready for a move are exactly its description.
  for (Move move : legal) {
    ASSERT_TRUE(state.IsLegal(move)) << state.MoveText(move);
    v1::Move proto;
    proto.set_id(move.id);
    state.MoveDetail(move, proto.mutable_detail());
    proto.set_text(state.MoveText(move));
    auto parsed = game.ParseMove(proto);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->id, move.id) << state.MoveText(move);
    const absl::string_view encoded = state.EncodedMove(move);
    if (!encoded.empty()) {
      EXPECT_EQ(encoded, proto.SerializeAsString()) << state.MoveText(move);
    }
  }

  // The view filter: the mover's view survives resampling unchanged (so it cannot
  // depend on other seats' hidden information), and the legal moves, which go to the
  // mover, are the same in the resampled state.
  Rng rng(seed * 7919 + static_cast<uint64_t>(step));
  for (Seat seat = 0; seat < state.seats(); ++seat) {
    if (state.IsAutomaton(seat)) continue;
    if (seat != mover && rng.Below(4) != 0) continue;  // all seats sometimes, the mover always
    v1::View view;
    state.Observe(seat, &view);
    auto resampled = game.Resample(view, rng.Next());
    ASSERT_TRUE(resampled.ok()) << "seat " << seat << ": " << resampled.status();
    EXPECT_EQ(ViewBytes(**resampled, seat), ViewBytes(state, seat))
        << "seat " << seat << "'s view changed when hidden information was resampled";
    // The spectator sees nothing private of any seat: re-drawing what `seat` cannot see
    // (the other seats' hidden information) leaves the spectator's view as it was.
    EXPECT_EQ(ViewBytes(**resampled, kNoSeat), ViewBytes(state, kNoSeat))
        << "the spectator's view shows hidden information that seat " << seat << " cannot see";
    CheckSpectatorEventOrder(state, **resampled, legal[rng.Below(static_cast<uint32_t>(legal.size()))], seat,
                             compared);
    if (::testing::Test::HasFatalFailure()) return;
    if (seat == mover) {
      std::vector<Move> resampled_legal;
      (*resampled)->LegalMoves(resampled_legal);
      EXPECT_EQ(resampled_legal, legal) << "legal moves depend on hidden information";
      Features features;
      ASSERT_TRUE(game.Featurize(view, legal, &features).ok());
      EXPECT_EQ(features.moves.size(), legal.size() * features.move_size);
      if (sizes.observation == 0) sizes = {features.observation.size(), features.move_size};
      EXPECT_EQ(features.observation.size(), sizes.observation) << "observation size changed";
      EXPECT_EQ(features.move_size, sizes.move) << "move feature size changed";
      for (float f : features.observation) ASSERT_TRUE(std::isfinite(f));
      for (float f : features.moves) ASSERT_TRUE(std::isfinite(f));
    }
  }
}

// Illegal moves are refused and change nothing.
void CheckIllegalMoves(State& state, Rng& rng) {
  std::vector<Move> legal;
  state.LegalMoves(legal);
  const std::string before = state.Bytes();
  for (int attempt = 0; attempt < 6; ++attempt) {
    Move candidate{attempt < 3 ? static_cast<uint32_t>(rng.Next())
                               : legal[rng.Below(legal.size())].id + 1 + rng.Below(3)};
    if (std::find(legal.begin(), legal.end(), candidate) != legal.end()) continue;
    const absl::Status status = state.Apply(candidate);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    ASSERT_EQ(state.Bytes(), before) << "an illegal move changed the state";
  }
}

// Random byte damage and truncation of a valid state: decoding either fails cleanly or
// yields a state that plays on without crashing.
void CheckDamagedStates(const Game& game, const State& state, Rng& rng) {
  v1::GameState wire;
  state.Serialize(&wire);
  const std::string inner = wire.state().value();
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string damaged = inner;
    if (attempt == 0) {
      damaged.resize(damaged.size() / 2);
    } else {
      for (int flips = 1 + rng.Below(3); flips > 0 && !damaged.empty(); --flips)
        damaged[rng.Below(damaged.size())] ^= static_cast<char>(1 + rng.Below(255));
    }
    v1::GameState candidate = wire;
    candidate.mutable_state()->set_value(damaged);
    auto decoded = game.Deserialize(candidate);
    if (!decoded.ok()) {
      EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    State& s = **decoded;
    std::vector<Move> legal;
    for (int step = 0; step < 50 && !s.finished(); ++step) {
      s.LegalMoves(legal);
      ASSERT_FALSE(legal.empty()) << "an accepted state leaves the mover without moves";
      ASSERT_TRUE(s.Apply(legal[rng.Below(legal.size())]).ok());
    }
  }
}

}  // namespace

std::vector<Config> AllConfigs(const Game& game, int total_games) {
  std::vector<OptionMap> combos;
  AddOptionCombos(game.info().options, 0, {}, &combos);
  std::vector<Config> configs;
  for (int players = game.info().min_players; players <= game.info().max_players; ++players) {
    for (const OptionMap& options : combos) {
      if (!game.NewGame(players, 1, options).ok()) continue;  // a combination the rules forbid
      configs.push_back(Config{&game, players, options, 0, ConfigName(players, options)});
    }
  }
  const int seeds = std::max<int>(2, total_games / std::max<int>(1, configs.size()));
  for (Config& config : configs) config.seeds = seeds;
  return configs;
}

TEST_P(GameProperties, RandomPlayKeepsEveryInvariant) {
  const Config& config = GetParam();
  const Game& game = *config.game;
  // Some deals hide nothing from a seat at the sampled moments (e.g. no privilege held);
  // across all of a configuration's games, resampling must change something.
  bool resample_changed_others = false;
  Compared compared;
  for (int i = 0; i < config.seeds; ++i) {
    const uint64_t seed = 1000 + static_cast<uint64_t>(i);
    SCOPED_TRACE(absl::StrCat(config.name, " seed ", seed));
    auto created = game.NewGame(config.players, seed, config.options);
    ASSERT_TRUE(created.ok()) << created.status();
    std::unique_ptr<State> state = std::move(*created);
    // Views carry the table's player count: the seats less the automata.
    int automata = 0;
    for (Seat seat = 0; seat < state->seats(); ++seat) automata += state->IsAutomaton(seat);
    EXPECT_EQ(state->players(), config.players);
    EXPECT_EQ(state->players(), state->seats() - automata);
    v1::View first_view;
    state->Observe(state->to_move(), &first_view);
    EXPECT_EQ(first_view.players(), config.players);
    Rng rng(seed);
    std::vector<Move> history, legal;
    FeatureSizes sizes;
    int step = 0;
    for (; !state->finished() && step < kMaxSteps; ++step) {
      if (step % 4 == 0 || i == 0) {
        CheckState(config, *state, seed, step, sizes, compared);
        if (HasFatalFailure()) return;
      }
      if (step % 16 == 0) {
        CheckIllegalMoves(*state, rng);
        CheckDamagedStates(game, *state, rng);
        if (HasFatalFailure()) return;
        // Resampling is not vacuous: another seat's view changes in some states.
        const Seat mover = state->to_move();
        v1::View view;
        state->Observe(mover, &view);
        const uint64_t draw_seed = rng.Next();
        auto resampled = game.Resample(view, draw_seed);
        ASSERT_TRUE(resampled.ok());
        // A resampler made once draws what Resample does, whatever it drew before.
        auto resampler = game.MakeResampler(view);
        ASSERT_TRUE(resampler.ok()) << resampler.status();
        for (uint64_t earlier_seed : {draw_seed + 1, draw_seed}) ASSERT_TRUE((*resampler)->Draw(earlier_seed).ok());
        auto drawn = (*resampler)->Draw(draw_seed);
        ASSERT_TRUE(drawn.ok()) << drawn.status();
        EXPECT_EQ((*drawn)->Bytes(), (*resampled)->Bytes());
        for (Seat other = 0; other < state->seats(); ++other)
          if (other != mover && ViewBytes(**resampled, other) != ViewBytes(*state, other))
            resample_changed_others = true;
      }
      state->LegalMoves(legal);
      const Move move = legal[rng.Below(legal.size())];
      history.push_back(move);
      const std::string move_text = state->MoveText(move);
      EventLog events;
      ASSERT_TRUE(state->Apply(move, &events).ok());
      CheckEveryoneIsTold(*state, events, move_text);
    }
    ASSERT_TRUE(state->finished()) << "random play did not end within " << kMaxSteps << " moves";
    CheckState(config, *state, seed, step, sizes, compared);
    const Outcome outcome = state->outcome();
    ASSERT_EQ(outcome.ranks.size(), static_cast<size_t>(state->seats()));
    EXPECT_EQ(*std::min_element(outcome.ranks.begin(), outcome.ranks.end()), 1);
    for (int rank : outcome.ranks) EXPECT_TRUE(rank >= 1 && rank <= state->seats());
    EXPECT_EQ(state->Apply(Move{0}).code(), absl::StatusCode::kFailedPrecondition);

    // Determinism: the same seed and moves give byte-identical states.
    auto replay = game.NewGame(config.players, seed, config.options);
    ASSERT_TRUE(replay.ok());
    for (Move move : history) ASSERT_TRUE((*replay)->Apply(move).ok());
    EXPECT_EQ((*replay)->Bytes(), state->Bytes());
  }
  EXPECT_TRUE(resample_changed_others) << "resampling never changed any hidden information";
  EXPECT_GT(compared.event_orders, 0) << "no move told a spectator two events in worlds it could not tell apart";
}

TEST_P(GameProperties, StateOfAnotherGameOrNoneIsRefused) {
  const Config& config = GetParam();
  v1::GameState wrong;
  wrong.set_game("no-such-game");
  EXPECT_EQ(config.game->Deserialize(wrong).status().code(), absl::StatusCode::kInvalidArgument);
  wrong.set_game(config.game->name());
  EXPECT_EQ(config.game->Deserialize(wrong).status().code(), absl::StatusCode::kInvalidArgument);
  wrong.mutable_state()->PackFrom(v1::GameInfo());  // a message of the wrong type
  EXPECT_EQ(config.game->Deserialize(wrong).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace gavel::testing
