// The Python module _gavel: the engine's games in-process. Errors become Python exceptions
// with the engine's message (ValueError for bad input, KeyError for an unknown game); no input
// crashes the interpreter.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "learn/ismcts.h"
#include "learn/learned_policy.h"
#include "learn/search_policy.h"
#include "policy/dirk/dirk.h"
#include "engine/core/registry.h"
#include "google/protobuf/util/json_util.h"
#include "python/errors.h"
#include "python/vector_env.h"

namespace py = pybind11;

namespace gavel::python {
namespace {

template <typename T>
T Check(absl::StatusOr<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(*result);
}

const Game& GameNamed(const std::string& name) {
  const Game* game = FindGame(name);
  if (game == nullptr) throw py::key_error("no game named '" + name + "' in this build");
  return *game;
}

py::bytes Deterministic(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return py::bytes(bytes);
}

py::dict GameInfoDict(const Game& game) {
  const GameInfo& info = game.info();
  py::dict out;
  out["name"] = info.name;
  out["display_name"] = info.display_name;
  out["min_players"] = info.min_players;
  out["max_players"] = info.max_players;
  py::dict options;
  for (const OptionSpec& spec : info.options) options[py::str(spec.name)] = spec.default_value;
  out["options"] = options;
  return out;
}

// A table: one game state, owned by Python.
class PyState {
 public:
  explicit PyState(std::unique_ptr<State> state) : state_(std::move(state)) {}

  std::string game() const { return state_->game().name(); }
  int seats() const { return state_->seats(); }
  int to_move() const { return state_->to_move(); }
  bool finished() const { return state_->finished(); }

  std::vector<uint32_t> LegalMoves() const {
    state_->LegalMoves(legal_);
    std::vector<uint32_t> ids(legal_.size());
    for (size_t i = 0; i < legal_.size(); ++i) ids[i] = legal_[i].id;
    return ids;
  }
  std::string MoveText(uint32_t move) const { return state_->MoveText(Move{move}); }
  void Apply(uint32_t move) {
    if (absl::Status applied = state_->Apply(Move{move}); !applied.ok()) Raise(applied);
  }
  py::bytes Observe(int seat) const { return Deterministic(View(seat)); }
  py::object ObserveDict(int seat) const {
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(View(seat), &json, options).ok())
      throw std::runtime_error("cannot write the view as JSON");
    return py::module_::import("json").attr("loads")(json);
  }
  py::bytes Serialize() const {
    v1::GameState proto;
    state_->Serialize(&proto);
    return Deterministic(proto);
  }
  py::tuple Outcome() const {
    const gavel::Outcome outcome = state_->outcome();
    const auto list = [](const auto& values) { return std::vector(values.begin(), values.end()); };
    return py::make_tuple(list(outcome.scores), list(outcome.ranks));
  }
  PyState Clone() const { return PyState(state_->Clone()); }
  // Dirk's move for the seat to move (the rule-based bot; docs/arena.md).
  uint32_t DirkMove() const {
    auto dirk = policy::dirk::Dirk(state_->game().name());
    if (!dirk.ok()) throw py::key_error("Dirk does not play " + state_->game().name());
    return PolicyMove(*dirk, 1);  // Dirk's rules draw nothing
  }
  // ISMCTS's move for the seat to move (learn/ismcts.h).
  uint32_t IsmctsMove(int iterations, uint64_t seed) const {
    if (iterations <= 0) throw py::value_error("iterations must be positive");
    learn::IsmctsOptions options;
    options.iterations = iterations;
    return PolicyMove(learn::IsmctsPolicy(state_->game(), options), seed);
  }
  // The move `policy` chooses for the seat to move, from that seat's view, its randomness
  // drawn from `seed`. It runs with the GIL released, its turn describing the legal moves from
  // a copy of the table (policies read nothing else of it), so that another Python thread
  // may play on the table meanwhile.
  uint32_t PolicyMove(const policy::Policy& policy, uint64_t seed) const {
    const v1::View view = MoverView();
    const std::unique_ptr<State> copy = state_->Clone();
    std::vector<Move> legal;
    copy->LegalMoves(legal);
    Rng rng(seed);
    absl::StatusOr<Move> chosen;
    {
      py::gil_scoped_release release;
      chosen = policy(policy::Turn(*copy, view, legal, rng));
    }
    return Check(std::move(chosen)).id;
  }
  // The view of the seat to move.
  v1::View MoverView() const {
    if (state_->finished()) throw std::runtime_error("the game is over");
    return View(state_->to_move());
  }
  // The learning features of `seat`'s view and of its legal moves (when it is to move).
  py::tuple Features(int seat) const {
    CheckSeat(seat);
    v1::View view;
    state_->Observe(seat, &view);
    std::vector<Move> moves;
    if (seat == state_->to_move()) state_->LegalMoves(moves);
    gavel::Features features;
    if (absl::Status made = state_->game().Featurize(view, moves, &features); !made.ok()) Raise(made);
    py::array_t<float> observation(static_cast<py::ssize_t>(features.observation.size()),
                                   features.observation.data());
    py::array_t<float> move_features({static_cast<py::ssize_t>(moves.size()),
                                      static_cast<py::ssize_t>(features.move_size)});
    std::copy(features.moves.begin(), features.moves.end(), move_features.mutable_data());
    return py::make_tuple(observation, move_features);
  }

 private:
  void CheckSeat(int seat) const {
    if (seat < 0 || seat >= state_->seats())
      throw py::value_error("seat " + std::to_string(seat) + " is not a seat of this table");
  }
  v1::View View(int seat) const {
    if (seat != kNoSeat) CheckSeat(seat);
    v1::View view;
    state_->Observe(seat, &view);
    return view;
  }

  std::unique_ptr<State> state_;
  mutable std::vector<Move> legal_;
};

// The learned bot (and the search bot built on it) with the networks of a weights folder
// (learn/learned_policy.h), playing the seat to move of a table from that seat's view.
class PyLearnedBot {
 public:
  explicit PyLearnedBot(const std::string& folder) {
    auto learned = learn::LearnedPolicy::Load(folder);
    if (absl::IsNotFound(learned.status())) {
      PyErr_SetString(PyExc_FileNotFoundError, std::string(learned.status().message()).c_str());
      throw py::error_already_set();
    }
    learned_ = Check(std::move(learned));
  }

  std::vector<std::string> Games() const { return learned_->Games(); }
  bool HasNetwork(const PyState& table) const { return learned_->HasNetworkFor(table.MoverView()); }
  uint32_t Choose(const PyState& table) const { return table.PolicyMove(learned_->AsPolicy(), 0); }
  uint32_t SearchMove(const PyState& table, double time_ms, uint64_t seed, int iterations) const {
    if (!(time_ms > 0)) throw py::value_error("time_ms must be positive");
    if (iterations < 0) throw py::value_error("iterations must be 0 (by time) or positive");
    return table.PolicyMove(learn::SearchPolicy(*learned_, {.time_ms = time_ms, .iterations = iterations}), seed);
  }

 private:
  std::unique_ptr<learn::LearnedPolicy> learned_;
};

PyState NewGame(const std::string& name, int players, uint64_t seed, const OptionMap& options) {
  return PyState(Check(GameNamed(name).NewGame(players, seed, options)));
}

// The game that parsed bytes name: bytes naming none are not a state or view at all (empty or
// foreign bytes parse as a message without fields), a bad value rather than an unknown game.
const Game& GameOfParsed(const std::string& name, const char* what) {
  if (name.empty()) throw py::value_error(std::string("not a serialized ") + what + ": it names no game");
  return GameNamed(name);
}

PyState Deserialize(const py::bytes& bytes) {
  v1::GameState proto;
  if (!proto.ParseFromString(std::string(bytes))) throw py::value_error("not a serialized gavel.v1.GameState");
  return PyState(Check(GameOfParsed(proto.game(), "gavel.v1.GameState").Deserialize(proto)));
}

PyState Resample(const py::bytes& view_bytes, uint64_t seed) {
  v1::View view;
  if (!view.ParseFromString(std::string(view_bytes))) throw py::value_error("not a serialized gavel.v1.View");
  return PyState(Check(GameOfParsed(view.game(), "gavel.v1.View").Resample(view, seed)));
}

}  // namespace
}  // namespace gavel::python

PYBIND11_MODULE(_gavel, module) {
  using namespace gavel::python;
  module.doc() = "The gavel engine in-process (docs/python.md).";
  module.def("games", &gavel::GameNames, "The names of this build's games.");
  module.def("game_info", [](const std::string& name) { return GameInfoDict(GameNamed(name)); });
  module.def("new_game", &NewGame, py::arg("name"), py::arg("players"), py::arg("seed") = 1,
             py::arg("options") = gavel::OptionMap{});
  module.def("deserialize", &Deserialize, py::arg("state"),
             "A table from the bytes of a gavel.v1.GameState (as the service sends them).");
  module.def("resample", &Resample, py::arg("view"), py::arg("seed"),
             "A full table consistent with a view (bytes of gavel.v1.View).");
  py::class_<PyState>(module, "State")
      .def_property_readonly("game", &PyState::game)
      .def_property_readonly("seats", &PyState::seats)
      .def_property_readonly("to_move", &PyState::to_move)
      .def_property_readonly("finished", &PyState::finished)
      .def("legal_moves", &PyState::LegalMoves)
      .def("move_text", &PyState::MoveText)
      .def("apply", &PyState::Apply, py::arg("move"))
      .def("observe", &PyState::Observe, py::arg("seat"),
           "The seat's view (bytes of gavel.v1.View); seat -1: the spectator's.")
      .def("observe_dict", &PyState::ObserveDict, py::arg("seat"))
      .def("serialize", &PyState::Serialize)
      .def("outcome", &PyState::Outcome, "(scores, ranks); ranks are 0 until the game is over")
      .def("clone", &PyState::Clone)
      .def("dirk_move", &PyState::DirkMove, "Dirk's move for the seat to move")
      .def("ismcts_move", &PyState::IsmctsMove, py::arg("iterations") = 100, py::arg("seed") = 1,
           "ISMCTS's move for the seat to move, searched from its view alone")
      .def("features", &PyState::Features, py::arg("seat"),
           "(observation, move features) of the seat's view, as float32 arrays");
  py::class_<PyLearnedBot>(module, "LearnedBot")
      .def(py::init<const std::string&>(), py::arg("weights"),
           "The networks of a weights folder (<game>-<players>p.gmlp files, e.g. the repository's weights/).")
      .def("games", &PyLearnedBot::Games, "The games with at least one network.")
      .def("has_network", &PyLearnedBot::HasNetwork, py::arg("state"),
           "Whether a network plays the seat to move (else Dirk's rules do).")
      .def("move", &PyLearnedBot::Choose, py::arg("state"), "The learned bot's move for the seat to move.")
      .def("search_move", &PyLearnedBot::SearchMove, py::arg("state"), py::arg("time_ms") = 10.0,
           py::arg("seed") = 1, py::arg("iterations") = 0,
           "The search bot's move: ISMCTS guided by the network, time_ms per decision, or a fixed "
           "number of iterations (reproducible from the seed on any machine).");
  BindVectorEnv(module);
}
