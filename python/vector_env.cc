#include "python/vector_env.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/core/registry.h"

namespace py = pybind11;

namespace gavel::python {
namespace {

// Rewards at the end of a table, per seat: (seats - rank) / (seats - 1), so 1 for the
// winner, 0 for the last, shared ranks alike.
void EndRewards(const State& state, float* out) {
  const Outcome outcome = state.outcome();
  const int seats = state.seats();
  for (int seat = 0; seat < seats; ++seat)
    out[seat] = seats > 1 ? static_cast<float>(seats - outcome.ranks[seat]) / static_cast<float>(seats - 1) : 1.0f;
}

class VectorEnv {
 public:
  VectorEnv(const std::string& game_name, int players, int num_envs, uint64_t seed, int max_actions,
            const OptionMap& options)
      : game_(FindGame(game_name)), players_(players), max_actions_(max_actions), options_(options),
        next_seed_(seed) {
    if (game_ == nullptr) throw py::key_error("no game named '" + game_name + "' in this build");
    if (num_envs < 1 || num_envs > (1 << 20)) throw py::value_error("num_envs must be 1 to 1048576");
    if (max_actions < 1 || max_actions > (1 << 16)) throw py::value_error("max_actions must be 1 to 65536");
    tables_.resize(num_envs);
    legal_.resize(num_envs);
    for (int i = 0; i < num_envs; ++i) Reset(i);
    seats_ = tables_[0]->seats();
  }

  int num_envs() const { return static_cast<int>(tables_.size()); }
  int seats() const { return seats_; }
  int max_actions() const { return max_actions_; }

  // to_move (int32[N]) and the action mask (bool[N, max_actions]) of the current tables.
  py::tuple Observe() {
    py::array_t<int32_t> to_move(num_envs());
    py::array_t<bool> mask({num_envs(), max_actions_});
    FillTurns(to_move.mutable_data(), mask.mutable_data());
    return py::make_tuple(to_move, mask);
  }

  // Plays actions[i] (an index into table i's legal moves) on every table. Returns
  // (reward float32[N, seats], done bool[N], to_move int32[N], mask bool[N, max_actions]);
  // rewards are nonzero only where a table finished, and finished tables start again.
  py::tuple Step(py::array_t<int64_t, py::array::c_style | py::array::forcecast> actions) {
    if (actions.ndim() != 1 || actions.shape(0) != num_envs())
      throw py::value_error("actions must be one index per table");
    const int64_t* chosen = actions.data();
    for (int i = 0; i < num_envs(); ++i)
      if (chosen[i] < 0 || chosen[i] >= static_cast<int64_t>(legal_[i].size()))
        throw py::value_error("action " + std::to_string(chosen[i]) + " of table " + std::to_string(i) +
                              " is not an index of its " + std::to_string(legal_[i].size()) + " legal moves");
    py::array_t<float> reward({num_envs(), seats_});
    py::array_t<bool> done(num_envs());
    py::array_t<int32_t> to_move(num_envs());
    py::array_t<bool> mask({num_envs(), max_actions_});
    float* rewards = reward.mutable_data();
    bool* finished = done.mutable_data();
    int32_t* movers = to_move.mutable_data();
    bool* masks = mask.mutable_data();
    bool overflow = false;
    {
      py::gil_scoped_release release;
      std::fill(rewards, rewards + num_envs() * seats_, 0.0f);
      for (int i = 0; i < num_envs(); ++i) {
        tables_[i]->ApplyLegal(legal_[i][chosen[i]], nullptr);
        finished[i] = tables_[i]->finished();
        if (finished[i]) {
          EndRewards(*tables_[i], rewards + i * seats_);
          Reset(i);
        }
      }
      overflow = !FillTurns(movers, masks);
    }
    if (overflow) throw std::runtime_error("a table has more legal moves than max_actions");
    return py::make_tuple(reward, done, to_move, mask);
  }

  // The mover's observation features of every table (float32[N, size]), each row copied
  // straight into the array from one reused buffer: a row of its own for each table made every
  // call allocate and give back Carat's megabyte for 256 tables (docs/python.md).
  py::array_t<float> Observations() {
    Features features;
    v1::View view;
    if (absl::Status made = ObservationOf(0, &view, &features); !made.ok()) throw std::runtime_error(made.ToString());
    const size_t size = features.observation.size();
    py::array_t<float> out({static_cast<size_t>(num_envs()), size});
    float* rows = out.mutable_data();
    std::copy(features.observation.begin(), features.observation.end(), rows);
    absl::Status status;
    {
      py::gil_scoped_release release;
      for (int i = 1; i < num_envs() && status.ok(); ++i) {
        status = ObservationOf(i, &view, &features);
        if (status.ok() && features.observation.size() != size)
          status = absl::InternalError("the tables' observation features differ in size");
        if (status.ok()) std::copy(features.observation.begin(), features.observation.end(), rows + i * size);
      }
    }
    if (!status.ok()) throw std::runtime_error(status.ToString());
    return out;
  }

 private:
  void Reset(int i) {
    auto created = game_->NewGame(players_, next_seed_++, options_);
    if (!created.ok()) throw py::value_error(std::string(created.status().message()));
    tables_[i] = std::move(*created);
  }
  // Table i's mover's observation features, through `view` and into `features` (both reused).
  absl::Status ObservationOf(int i, v1::View* view, Features* features) const {
    tables_[i]->Observe(tables_[i]->to_move(), view);
    return game_->Featurize(*view, {}, features);
  }
  // Fills every table's mover and mask; false when a table has more moves than the mask holds.
  bool FillTurns(int32_t* movers, bool* masks) {
    std::fill(masks, masks + static_cast<size_t>(num_envs()) * max_actions_, false);
    bool fits = true;
    for (int i = 0; i < num_envs(); ++i) {
      tables_[i]->LegalMoves(legal_[i]);
      movers[i] = tables_[i]->to_move();
      const size_t count = std::min(legal_[i].size(), static_cast<size_t>(max_actions_));
      fits = fits && legal_[i].size() <= static_cast<size_t>(max_actions_);
      std::fill(masks + static_cast<size_t>(i) * max_actions_, masks + static_cast<size_t>(i) * max_actions_ + count, true);
    }
    return fits;
  }

  const Game* game_;
  const int players_;
  const int max_actions_;
  const OptionMap options_;
  uint64_t next_seed_;
  int seats_ = 0;
  std::vector<std::unique_ptr<State>> tables_;
  std::vector<std::vector<Move>> legal_;
};

}  // namespace

void BindVectorEnv(py::module_& module) {
  py::class_<VectorEnv>(module, "VectorEnv")
      .def(py::init<const std::string&, int, int, uint64_t, int, const OptionMap&>(), py::arg("game"),
           py::arg("players"), py::arg("num_envs"), py::arg("seed") = 1, py::arg("max_actions") = 512,
           py::arg("options") = OptionMap{})
      .def_property_readonly("num_envs", &VectorEnv::num_envs)
      .def_property_readonly("seats", &VectorEnv::seats)
      .def_property_readonly("max_actions", &VectorEnv::max_actions)
      .def("observe", &VectorEnv::Observe, "(to_move, action mask) of every table")
      .def("step", &VectorEnv::Step, py::arg("actions"))
      .def("observations", &VectorEnv::Observations, "the movers' observation features");
}

}  // namespace gavel::python
