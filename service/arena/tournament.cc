#include "service/arena/tournament.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include <sodium.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/core/registry.h"
#include "engine/core/seating.h"
#include "engine/core/status.h"
#include "spdlog/spdlog.h"

namespace gavel::arena {
namespace {

bool Plays(const v1::Hello& bot, const std::string& game) {
  return std::find(bot.games().begin(), bot.games().end(), game) != bot.games().end();
}

// The seed of deal `deal` of `game`: BLAKE2b of the tournament's seed, the game and the
// deal, stable across builds and platforms so that a tournament is reproducible. One way: a
// match's seed, once shown, tells nothing of the tournament's seed or of any other deal
// (a generator's next output would give them all away).
uint64_t DealSeed(uint64_t seed, const std::string& game, int deal) {
  const std::string input = absl::StrCat("gavel deal ", seed, " ", game, " ", deal);
  uint64_t out = 0;
  unsigned char hash[sizeof out];
  crypto_generichash(hash, sizeof hash, reinterpret_cast<const unsigned char*>(input.data()), input.size(),
                     nullptr, 0);
  for (unsigned char byte : hash) out = out << 8 | byte;
  return out;
}

// The tournament as the store and the pages describe it: never its seed, from which anyone
// could compute every deal's hidden cards.
std::string Description(const TournamentOptions& options, const std::vector<std::string>& names) {
  return absl::StrCat("games=", options.games.empty() ? "all" : absl::StrJoin(options.games, ","),
                      " deals=", options.deals, options.duplicate_deals ? " duplicate" : "",
                      " bots=", absl::StrJoin(names, ","));
}

std::vector<std::string> TableOf(const std::vector<std::string>& names, int start, int seats) {
  std::vector<std::string> table;
  for (int i = 0; i < seats; ++i) table.push_back(names[(start + i) % names.size()]);
  return table;
}

class ProgressBar {
 public:
  ProgressBar(int total, bool enabled) : total_(total), enabled_(enabled) { Draw(); }
  void Step(bool failed) {
    std::lock_guard lock(mutex_);
    ++done_;
    failed_ += failed;
    Draw();
    if (enabled_ && done_ == total_ && isatty(STDERR_FILENO)) std::fputc('\n', stderr);
  }

 private:
  // Redrawn in place on a terminal; into a log, one line per tenth of the way.
  void Draw() {
    if (!enabled_) return;
    const bool terminal = isatty(STDERR_FILENO);
    if (!terminal && done_ != total_ && done_ * 10 / std::max(1, total_) ==
                                            (done_ - 1) * 10 / std::max(1, total_))
      return;
    constexpr int kWidth = 40;
    const int filled = total_ ? done_ * kWidth / total_ : kWidth;
    const std::string failed = failed_ ? " (" + std::to_string(failed_) + " failed)" : "";
    std::fprintf(stderr, "%s[%s%s] %d/%d matches%s%s", terminal ? "\r" : "",
                 std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(),
                 done_, total_, failed.c_str(), terminal ? "" : "\n");
    std::fflush(stderr);
  }
  std::mutex mutex_;
  int done_ = 0, failed_ = 0;
  const int total_;
  const bool enabled_;
};

}  // namespace

bool MatchSlots::Free(const std::vector<std::string>& bots) {
  return std::all_of(bots.begin(), bots.end(), [&](const std::string& bot) { return in_play_[bot] < per_bot_; });
}

bool MatchSlots::TryAcquire(const std::vector<std::string>& bots) {
  if (per_bot_ <= 0) return true;
  std::lock_guard lock(mutex_);
  if (!Free(bots)) return false;
  for (const std::string& bot : bots) ++in_play_[bot];
  return true;
}

void MatchSlots::Acquire(const std::vector<std::string>& bots) {
  if (per_bot_ <= 0) return;
  std::unique_lock lock(mutex_);
  freed_.wait(lock, [&] { return Free(bots); });
  for (const std::string& bot : bots) ++in_play_[bot];
}

void MatchSlots::Release(const std::vector<std::string>& bots) {
  if (per_bot_ <= 0) return;
  {
    std::lock_guard lock(mutex_);
    for (const std::string& bot : bots) --in_play_[bot];
  }
  freed_.notify_all();
}

// Ratings in schedule order (not finishing order), so they do not depend on which match
// or which arena finished first; then the standings.
absl::StatusOr<TournamentReport> Rate(int64_t id, std::vector<std::optional<MatchRecord>>& results,
                                      int restarted, Store& store) {
  auto ratings = store.LoadRatings();
  if (!ratings.ok()) return ratings.status();
  TournamentReport report;
  report.id = id;
  report.restarted = restarted;
  std::vector<MatchRecord> finished;
  for (std::optional<MatchRecord>& match : results) {
    ++report.matches;
    if (!match) {
      ++report.failed;
      continue;
    }
    std::vector<Rating*> players;
    std::vector<int> ranks;
    for (size_t seat = 0; seat < match->bots.size(); ++seat) {
      if (match->bots[seat].empty()) continue;
      players.push_back(&(*ratings)[{match->game, match->bots[seat]}]);
      ranks.push_back(match->ranks[seat]);
    }
    UpdateRatings(players, ranks);
    finished.push_back(std::move(*match));
  }
  GAVEL_RETURN_IF_ERROR(store.SaveRatings(*ratings));
  report.standings = ComputeStandings(finished, *ratings);
  return report;
}

uint64_t SecretSeed() {
  if (sodium_init() < 0) std::abort();  // no randomness: no secret to be had
  uint64_t seed = 0;
  while (seed == 0) randombytes_buf(&seed, sizeof seed);
  return seed;
}

std::vector<MatchPlan> Schedule(const TournamentOptions& options,
                                const std::vector<v1::Hello>& bots) {
  std::vector<MatchPlan> plans;
  for (const Game* game : AllGames()) {
    const GameInfo& info = game->info();
    if (!options.games.empty() &&
        std::find(options.games.begin(), options.games.end(), info.name) == options.games.end())
      continue;
    std::vector<std::string> names;
    for (const v1::Hello& bot : bots)
      if (Plays(bot, info.name)) names.push_back(bot.name());
    if (names.empty()) continue;
    std::sort(names.begin(), names.end());
    const int wanted = options.players > 0 ? options.players : static_cast<int>(names.size());
    const int seats = std::clamp(wanted, info.min_players, info.max_players);
    // With more bots than seats, consecutive deals take the next bots in turn; each group
    // changes its cyclic order every time it comes round (engine/core/seating.h).
    const int groups = static_cast<int>(names.size()) > seats ? static_cast<int>(names.size()) : 1;
    for (int deal = 0; deal < options.deals; ++deal) {
      const std::vector<std::string> group = TableOf(names, deal % groups, seats);
      for (int rotation = 0; rotation < seats; ++rotation) {
        // A bot that held a seat of a deal knows that seat's cards when the deal comes round
        // again: only trusted bots get the same deal in every rotation.
        const int dealt = options.duplicate_deals ? deal : deal * seats + rotation;
        plans.push_back(MatchPlan{0, info.name, DealSeed(options.seed, info.name, dealt), {},
                                  Seated(group, static_cast<uint64_t>(deal / groups), rotation)});
      }
    }
  }
  return plans;
}

absl::StatusOr<TournamentReport> RunTournament(const TournamentOptions& options,
                                               const std::vector<v1::Hello>& bots,
                                               Referee& referee, Store& store,
                                               const std::atomic<bool>& stop) {
  std::vector<MatchPlan> plans = Schedule(options, bots);
  std::vector<std::string> names;
  for (const v1::Hello& bot : bots) names.push_back(bot.name());
  auto id = store.NewTournament(Description(options, names));
  if (!id.ok()) return id.status();
  for (MatchPlan& plan : plans) plan.tournament_id = *id;
  spdlog::info("tournament {}: {} matches between {}", *id, plans.size(), absl::StrJoin(names, ", "));

  std::vector<std::optional<MatchRecord>> results(plans.size());
  std::atomic<size_t> next{0};
  ProgressBar progress(static_cast<int>(plans.size()), options.progress);
  std::atomic<int> restarted{0};
  MatchSlots slots(options.max_matches_per_bot);
  auto work = [&] {
    for (size_t i; !stop && (i = next++) < plans.size();) {
      slots.Acquire(plans[i].bots);
      // An error from Play is the engine's or the store's, never a bot's: the match is
      // played again from the start (the abandoned attempt stays unfinished in the store).
      absl::StatusOr<MatchRecord> match = referee.Play(plans[i]);
      for (int attempt = 1; !match.ok() && attempt < options.match_attempts && !stop; ++attempt) {
        spdlog::warn("match of {} abandoned ({}); playing it again", plans[i].game,
                     match.status().ToString());
        ++restarted;
        if (referee.metrics()) referee.metrics()->MatchRestarted(plans[i].game);
        match = referee.Play(plans[i]);
      }
      slots.Release(plans[i].bots);
      if (match.ok()) results[i] = std::move(*match);
      else spdlog::error("match of {} failed: {}", plans[i].game, match.status().ToString());
      progress.Step(!match.ok());
    }
  };
  std::vector<std::thread> workers;
  for (int i = 0; i < std::max(1, options.concurrency); ++i) workers.emplace_back(work);
  for (std::thread& worker : workers) worker.join();

  return Rate(*id, results, restarted, store);
}

absl::StatusOr<TournamentReport> RunQueuedTournament(const TournamentOptions& options,
                                                     const std::vector<v1::Hello>& bots,
                                                     Store& store, const std::atomic<bool>& stop) {
  std::vector<MatchPlan> plans = Schedule(options, bots);
  std::vector<std::string> names;
  for (const v1::Hello& bot : bots) names.push_back(bot.name());
  GAVEL_ASSIGN_OR_RETURN(const int64_t id, store.NewTournament(absl::StrCat(Description(options, names), " queued")));
  std::vector<QueuedMatch> queue;
  for (size_t i = 0; i < plans.size(); ++i)
    queue.push_back(QueuedMatch{id, static_cast<int>(i), plans[i].game, plans[i].seed,
                                plans[i].options, plans[i].bots});
  GAVEL_RETURN_IF_ERROR(store.EnqueueMatches(queue));
  spdlog::info("tournament {}: {} matches queued for the arenas", id, plans.size());
  std::vector<Store::QueueEntry> entries;
  for (;;) {
    GAVEL_ASSIGN_OR_RETURN(entries, store.QueueResults(id));
    const bool done = std::all_of(entries.begin(), entries.end(),
                                  [](const Store::QueueEntry& entry) { return entry.match_id != 0; });
    if (done || stop) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // polls the shared store
  }
  std::vector<std::optional<MatchRecord>> results(entries.size());
  int restarted = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    restarted += std::max(0, entries[i].attempts - 1);
    if (entries[i].match_id == 0) continue;
    GAVEL_ASSIGN_OR_RETURN(results[i], store.LoadMatch(entries[i].match_id));
  }
  return Rate(id, results, restarted, store);
}

QueueWorkers::QueueWorkers(QueueOptions options, Referee& referee, BotHub& hub, Store& store)
    : options_(std::move(options)), referee_(referee), hub_(hub), store_(store) {
  for (int i = 0; i < std::max(1, options_.workers); ++i) threads_.emplace_back([this] { Work(); });
  threads_.emplace_back([this] { KeepLeases(); });
}

QueueWorkers::~QueueWorkers() { Stop(); }

void QueueWorkers::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_)
    if (thread.joinable()) thread.join();
}

bool QueueWorkers::Pause(std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, duration, [&] { return stopped_; });
}

void QueueWorkers::Work() {
  constexpr auto kIdle = std::chrono::milliseconds(100);
  while (Pause(std::chrono::milliseconds(0))) {
    std::vector<std::string> connected;
    for (const v1::Hello& bot : hub_.Connected()) connected.push_back(bot.name());
    absl::StatusOr<std::optional<QueuedMatch>> entry =
        store_.ClaimMatch(options_.arena_id, connected, options_.lease_ms);
    if (!entry.ok()) spdlog::warn("match queue: {}", entry.status().ToString());
    if (!entry.ok() || !entry->has_value()) {
      if (!Pause(kIdle)) return;
      continue;
    }
    const QueuedMatch& claimed = **entry;
    const MatchPlan plan{claimed.tournament_id, claimed.game, claimed.seed, claimed.options, claimed.bots};
    absl::StatusOr<MatchRecord> match = referee_.Play(plan, [&](const MatchRecord& finished) {
      return store_.FinishQueuedMatch(options_.arena_id, claimed, finished);
    });
    // A failed match stays running under this arena's name until its lease runs out; then
    // any arena (this one too) plays it again from the start.
    if (!match.ok())
      spdlog::warn("queued match {} of tournament {}: {}", claimed.ordinal, claimed.tournament_id,
                   match.status().ToString());
  }
}

void QueueWorkers::KeepLeases() {
  const auto period = std::chrono::milliseconds(std::max<int64_t>(1, options_.lease_ms / 3));
  while (Pause(period))
    if (absl::Status renewed = store_.RenewLeases(options_.arena_id, options_.lease_ms); !renewed.ok())
      spdlog::warn("match queue leases: {}", renewed.ToString());
}

}  // namespace gavel::arena
