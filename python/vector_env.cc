#include "python/vector_env.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/core/status.h"
#include "learn/named_policy.h"
#include "learn/play.h"
#include "policy/policy.h"
#include "python/errors.h"

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

// Threads kept for an environment's life, each running its share of a call's tables: a thread
// keeps its featurizer's pooled buffers (thread-local) from call to call, which threads started
// per call lost. Between calls a thread spins a while before it sleeps: waking a sleeping
// thread cost about 100 us a call on a virtual machine, more than a step of 256 tables takes.
class Workers {
 public:
  explicit Workers(int threads) : parent_(getpid()) {
    for (int share = 1; share < threads; ++share) threads_.emplace_back([this, share] { Serve(share); });
  }
  ~Workers() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
  }  // the threads join as threads_ goes
  int shares() const { return static_cast<int>(threads_.size()) + 1; }

  // Runs work(share) for every share, share 0 on this thread; returns when every share has.
  // `work` must not throw. In a forked child, which has none of the threads, all on this one.
  void Run(const std::function<void(int)>& work) {
    if (threads_.empty() || getpid() != parent_) {
      for (int share = 0; share < shares(); ++share) work(share);
      return;
    }
    {
      std::lock_guard lock(mutex_);
      work_ = &work;
      pending_ = threads_.size();
      ++generation_;
    }
    wake_.notify_all();
    work(0);
    if (SpinUntil([this] { return pending_ == 0; })) return;
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
  }

 private:
  static constexpr auto kSpin = std::chrono::microseconds(200);

  // Whether `ready` came true within kSpin.
  template <typename Ready>
  static bool SpinUntil(Ready ready) {
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    while (!ready()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  void Serve(int share) {
    uint64_t served = 0;
    while (true) {
      SpinUntil([&] { return stopping_ || generation_ != served; });
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != served; });
      if (stopping_) return;
      served = generation_;
      const std::function<void(int)>& work = *work_;
      lock.unlock();
      work(share);
      if (--pending_ == 0) {
        std::lock_guard done_lock(mutex_);  // so that Run cannot miss the notice between test and wait
        done_.notify_one();
      }
    }
  }

  const pid_t parent_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* work_ = nullptr;  // written under mutex_ before generation_ moves
  std::atomic<uint64_t> generation_ = 0;
  std::atomic<size_t> pending_ = 0;
  std::atomic<bool> stopping_ = false;
  std::vector<std::jthread> threads_;  // last, so they join before what they use goes
};

class VectorEnv {
 public:
  VectorEnv(const std::string& game_name, int players, int num_envs, uint64_t seed, int max_actions,
            const OptionMap& options, int threads)
      : game_(FindGame(game_name)), players_(players), max_actions_(max_actions), options_(options),
        next_seed_(seed) {
    if (game_ == nullptr) throw py::key_error("no game named '" + game_name + "' in this build");
    if (num_envs < 1 || num_envs > (1 << 20)) throw py::value_error("num_envs must be 1 to 1048576");
    if (max_actions < 1 || max_actions > (1 << 16)) throw py::value_error("max_actions must be 1 to 65536");
    if (threads < 1 || threads > 256) throw py::value_error("threads must be 1 to 256");
    tables_.resize(num_envs);
    legal_.resize(num_envs);
    for (int i = 0; i < num_envs; ++i) Reset(i);
    seats_ = tables_[0]->seats();
    Features features;
    v1::View view;
    if (absl::Status made = ObservationOf(0, true, &view, &features); !made.ok())
      Raise(made);
    observation_size_ = features.observation.size();
    move_size_ = features.move_size;
    workers_ = std::make_unique<Workers>(std::min(threads, num_envs));
  }

  int num_envs() const { return static_cast<int>(tables_.size()); }
  int seats() const { return seats_; }
  int max_actions() const { return max_actions_; }
  int threads() const { return workers_->shares(); }

  // to_move (int32[N]) and the action mask (bool[N, max_actions]) of the current tables.
  py::tuple Observe() { return Turns([] {}); }

  // Starts every table again, table i from seed + i (from the environment's next seeds when
  // none is given), and returns observe()'s arrays: fixed deals for an evaluation.
  py::tuple ResetAll(std::optional<uint64_t> seed) {
    return Turns([&] {
      if (seed) next_seed_ = *seed;
      for (int i = 0; i < num_envs(); ++i) Reset(i);
    });
  }

  // Plays actions[i] (an index into table i's legal moves) on every table. Returns
  // (reward float32[N, seats], done bool[N], to_move int32[N], mask bool[N, max_actions]);
  // rewards are nonzero only where a table finished, and finished tables start again.
  py::tuple Step(py::array_t<int64_t, py::array::c_style | py::array::forcecast> actions) {
    if (actions.ndim() != 1 || actions.shape(0) != num_envs())
      throw py::value_error("actions must be one index per table");
    const int64_t* chosen = actions.data();
    py::array_t<float> reward({num_envs(), seats_});
    py::array_t<bool> done(num_envs());
    py::array_t<int32_t> to_move(num_envs());
    py::array_t<bool> mask({num_envs(), max_actions_});
    float* rewards = reward.mutable_data();
    bool* finished = done.mutable_data();
    int32_t* movers = to_move.mutable_data();
    bool* masks = mask.mutable_data();
    Exclusively([&] {
      for (int i = 0; i < num_envs(); ++i)
        if (chosen[i] < 0 || chosen[i] >= static_cast<int64_t>(legal_[i].size()))
          throw py::value_error("action " + std::to_string(chosen[i]) + " of table " + std::to_string(i) +
                                " is not an index of its " + std::to_string(legal_[i].size()) + " legal moves");
      // Played on the threads, each table alone; the finished ones start again after, in table
      // order, so that the seeds they take do not depend on the threads.
      std::atomic<bool> fits = true;
      ForShares([&](int, int begin, int end) {
        std::fill(rewards + begin * seats_, rewards + end * seats_, 0.0f);
        for (int i = begin; i < end; ++i) {
          tables_[i]->ApplyLegal(legal_[i][chosen[i]], nullptr);
          finished[i] = tables_[i]->finished();
          if (finished[i]) continue;
          tables_[i]->LegalMoves(legal_[i]);
          if (!WriteTurn(i, movers, masks)) fits = false;
        }
        return absl::OkStatus();
      }).IgnoreError();  // the share never fails
      for (int i = 0; i < num_envs(); ++i) {
        if (!finished[i]) continue;
        EndRewards(*tables_[i], rewards + i * seats_);
        Reset(i);
        if (!WriteTurn(i, movers, masks)) fits = false;
      }
      if (!fits) throw std::runtime_error("a table has more legal moves than max_actions");
    });
    return py::make_tuple(reward, done, to_move, mask);
  }

  // The mover's observation features of every table (float32[N, size]), each row written
  // straight into the array: a row of its own for each table made every call allocate and give
  // back Carat's megabyte for 256 tables (docs/python.md). With `moves`, also the features of
  // each table's legal moves in action order (float32[N, W, move size], W the most legal moves
  // a table has now, zero past a table's own): padded to max_actions, Sultan's arrays were
  // 20 to 60 times the size of their contents.
  py::object Observations(bool moves) {
    py::array_t<float> out({static_cast<size_t>(num_envs()), observation_size_});
    py::array_t<float> move_out;
    float* rows = out.mutable_data();
    const absl::Status status = Exclusively([&] {
      float* move_rows = nullptr;
      const size_t width = moves ? WidestTurn() : 0;
      if (moves) {
        py::gil_scoped_acquire gil;  // allowed: nobody waits for busy_ holding the GIL
        move_out = py::array_t<float>({static_cast<size_t>(num_envs()), width, static_cast<size_t>(move_size_)});
        move_rows = move_out.mutable_data();
      }
      return ForShares([&](int, int begin, int end) { return FillRows(begin, end, rows, move_rows, width); });
    });
    if (!status.ok()) Raise(status);
    if (moves) return py::make_tuple(out, move_out);
    return out;
  }

  // The ids of every table's legal moves in action order (int64[N, W] as in Observations, -1
  // past a table's legal moves): an action index as the move it plays (docs/api.md, moves).
  py::array_t<int64_t> LegalMoveIds() {
    py::array_t<int64_t> out;
    Exclusively([&] {
      const size_t width = WidestTurn();
      int64_t* ids;
      {
        py::gil_scoped_acquire gil;
        out = py::array_t<int64_t>({static_cast<size_t>(num_envs()), width});
        ids = out.mutable_data();
      }
      for (int i = 0; i < num_envs(); ++i) {
        int64_t* row = ids + static_cast<size_t>(i) * width;
        const size_t count = std::min(legal_[i].size(), width);
        for (size_t k = 0; k < count; ++k) row[k] = legal_[i][k].id;
        std::fill(row + count, row + width, -1);
      }
    });
    return out;
  }

  // The choice of the policy `name` (dirk, random, ismcts:N, ismcts:N/M, learned:<weights
  // file>; learn/named_policy.h) for every table's mover, from that seat's view alone, as an
  // index into its legal moves (int64[N]): opponents for a policy in training. Table i draws
  // from its own generator of `seed`, so the choices do not depend on the threads.
  py::array_t<int64_t> BotActions(const std::string& name, uint64_t seed) {
    py::array_t<int64_t> out(num_envs());
    int64_t* actions = out.mutable_data();
    const absl::Status status = Exclusively([&] {
      const std::vector<policy::Policy>& policies = PoliciesNamed(name);
      return ForShares([&](int share, int begin, int end) {
        return ChooseMoves(policies[share], seed, begin, end, actions);
      });
    });
    if (!status.ok()) Raise(status);
    return out;
  }

 private:
  // Runs `work` with the GIL released and this environment to itself: without the lock, two
  // Python threads stepping one environment corrupted its tables. The lock is only waited for
  // without the GIL, so whoever holds it can always take the GIL (to make an array of a size
  // known only under the lock, or to return).
  template <typename Work>
  std::invoke_result_t<Work> Exclusively(Work work) {
    py::gil_scoped_release release;
    std::lock_guard lock(busy_);
    return work();
  }
  // observe()'s arrays, after `first` under the same lock (written on this thread: they are
  // copies of what legal_ holds).
  template <typename First>
  py::tuple Turns(First first) {
    py::array_t<int32_t> to_move(num_envs());
    py::array_t<bool> mask({num_envs(), max_actions_});
    int32_t* movers = to_move.mutable_data();
    bool* masks = mask.mutable_data();
    Exclusively([&] {
      first();
      for (int i = 0; i < num_envs(); ++i) WriteTurn(i, movers, masks);
    });
    return py::make_tuple(to_move, mask);
  }
  // Table i anew from the next seed, with its legal moves.
  void Reset(int i) {
    auto created = game_->NewGame(players_, next_seed_++, options_);
    if (!created.ok()) throw py::value_error(std::string(created.status().message()));
    tables_[i] = std::move(*created);
    tables_[i]->LegalMoves(legal_[i]);
  }
  // Table i's mover's observation features, with its legal moves' too on request, through
  // `view` and into `features` (both reused).
  absl::Status ObservationOf(int i, bool moves, v1::View* view, Features* features) const {
    tables_[i]->Observe(tables_[i]->to_move(), view);
    return game_->Featurize(*view, moves ? std::span<const Move>(legal_[i]) : std::span<const Move>(), features);
  }
  // Runs each(share, begin, end) for the tables begin..end-1 of every share, contiguous, one
  // share a thread; `each` must not throw. Each table is worked on by its share's thread alone.
  // The first error in table order.
  absl::Status ForShares(absl::FunctionRef<absl::Status(int, int, int)> each) const {
    const int shares = workers_->shares();
    const auto bound = [&](int share) { return static_cast<int>(int64_t{num_envs()} * share / shares); };
    std::vector<absl::Status> results(shares);
    workers_->Run([&](int share) { results[share] = each(share, bound(share), bound(share + 1)); });
    for (absl::Status& result : results)
      if (!result.ok()) return result;
    return absl::OkStatus();
  }
  // The most legal moves a table has now (at most max_actions).
  size_t WidestTurn() const {
    size_t widest = 0;
    for (const std::vector<Move>& legal : legal_) widest = std::max(widest, legal.size());
    return std::min(widest, static_cast<size_t>(max_actions_));
  }
  // Tables begin..end-1's rows of features, and where `move_rows` of their first `width` legal
  // moves' features.
  absl::Status FillRows(int begin, int end, float* rows, float* move_rows, size_t width) const {
    Features features;
    v1::View view;
    const size_t move_row_size = width * static_cast<size_t>(move_size_);
    for (int i = begin; i < end; ++i) {
      GAVEL_RETURN_IF_ERROR(ObservationOf(i, move_rows != nullptr, &view, &features));
      if (features.observation.size() != observation_size_ || (move_rows && features.move_size != move_size_))
        return absl::InternalError("the tables' features differ in size");
      std::copy(features.observation.begin(), features.observation.end(), rows + i * observation_size_);
      if (!move_rows) continue;
      float* row = move_rows + i * move_row_size;
      const size_t filled = std::min(features.moves.size(), move_row_size);
      std::copy(features.moves.begin(), features.moves.begin() + filled, row);
      std::fill(row + filled, row + move_row_size, 0.0f);
    }
    return absl::OkStatus();
  }
  // One policy of that name for each thread (a policy that keeps state need not be shared),
  // kept for the next call of the same name.
  const std::vector<policy::Policy>& PoliciesNamed(const std::string& name) {
    if (name == policies_name_ && !policies_.empty()) return policies_;
    policies_.clear();
    for (int share = 0; share < workers_->shares(); ++share) {
      absl::StatusOr<policy::Policy> named = learn::PolicyNamed(name, *game_);
      if (!named.ok()) {
        policies_.clear();
        throw py::value_error(std::string(named.status().message()));
      }
      policies_.push_back(*std::move(named));
    }
    policies_name_ = name;
    return policies_;
  }
  // `policy`'s choices for the movers of tables begin..end-1, as indexes into their legal moves.
  absl::Status ChooseMoves(const policy::Policy& policy, uint64_t seed, int begin, int end, int64_t* actions) const {
    v1::View view;
    for (int i = begin; i < end; ++i) {
      const State& table = *tables_[i];
      table.Observe(table.to_move(), &view);
      Rng rng = learn::GameRng(seed, static_cast<uint64_t>(i));
      GAVEL_ASSIGN_OR_RETURN(const Move chosen, policy(policy::Turn(table, view, legal_[i], rng)));
      const auto found = std::find(legal_[i].begin(), legal_[i].end(), chosen);
      if (found == legal_[i].end()) return absl::InternalError(absl::StrCat("table ", i, ": the policy chose no legal move"));
      actions[i] = found - legal_[i].begin();
    }
    return absl::OkStatus();
  }
  // Table i's mover and row of the mask (true over its legal moves, which legal_ always holds:
  // refreshed after every move and start); false when it has more legal moves than the mask.
  bool WriteTurn(int i, int32_t* movers, bool* masks) const {
    movers[i] = tables_[i]->to_move();
    bool* row = masks + static_cast<size_t>(i) * max_actions_;
    const size_t count = std::min(legal_[i].size(), static_cast<size_t>(max_actions_));
    std::fill(row, row + count, true);
    std::fill(row + count, row + max_actions_, false);
    return legal_[i].size() <= static_cast<size_t>(max_actions_);
  }

  const Game* game_;
  const int players_;
  const int max_actions_;
  const OptionMap options_;
  uint64_t next_seed_;
  int seats_ = 0;
  size_t observation_size_ = 0;
  int move_size_ = 0;  // floats a move's features take
  std::vector<std::unique_ptr<State>> tables_;
  std::vector<std::vector<Move>> legal_;
  std::string policies_name_;  // BotActions' last policy
  std::vector<policy::Policy> policies_;
  std::mutex busy_;  // one call at a time (Exclusively)
  std::unique_ptr<Workers> workers_;  // each call's tables shared out among them
};

}  // namespace

void BindVectorEnv(py::module_& module) {
  py::class_<VectorEnv>(module, "VectorEnv")
      .def(py::init<const std::string&, int, int, uint64_t, int, const OptionMap&, int>(), py::arg("game"),
           py::arg("players"), py::arg("num_envs"), py::arg("seed") = 1, py::arg("max_actions") = 512,
           py::arg("options") = OptionMap{}, py::arg("threads") = 1)
      .def_property_readonly("num_envs", &VectorEnv::num_envs)
      .def_property_readonly("seats", &VectorEnv::seats)
      .def_property_readonly("max_actions", &VectorEnv::max_actions)
      .def_property_readonly("threads", &VectorEnv::threads)
      .def("observe", &VectorEnv::Observe, "(to_move, action mask) of every table")
      .def("step", &VectorEnv::Step, py::arg("actions"))
      .def("reset", &VectorEnv::ResetAll, py::arg("seed") = py::none(),
           "starts every table again, table i from seed + i; (to_move, action mask)")
      .def("observations", &VectorEnv::Observations, py::arg("moves") = false,
           "the movers' observation features, and with moves=True their legal moves' too")
      .def("legal_moves", &VectorEnv::LegalMoveIds, "the ids of every table's legal moves in action order")
      .def("bot_actions", &VectorEnv::BotActions, py::arg("bot") = "dirk", py::arg("seed") = 1,
           "a named bot's choice for every table's mover, as indexes into the legal moves");
}

}  // namespace gavel::python
