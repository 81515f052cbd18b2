#include "service/arena/sqlite_store.h"

#include <cstdio>
#include <iterator>

#include <sqlite3.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "engine/core/status.h"

namespace gavel::arena {
namespace {

// Versioned migrations: PRAGMA user_version counts those applied. Never edit one that has
// shipped; add the next. (Version 1 creates the tables IF NOT EXISTS, so stores made before
// versioning was introduced migrate too.)
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE IF NOT EXISTS bots (
  name TEXT PRIMARY KEY, version TEXT NOT NULL, first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
  id INTEGER PRIMARY KEY, description TEXT NOT NULL, created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
  id INTEGER PRIMARY KEY, tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
  game TEXT NOT NULL, players INTEGER NOT NULL, seed INTEGER NOT NULL, options TEXT NOT NULL,
  engine_version TEXT NOT NULL, initial_hash TEXT NOT NULL, finished INTEGER NOT NULL,
  started INTEGER NOT NULL, ended INTEGER);
CREATE TABLE IF NOT EXISTS match_seats (
  match_id INTEGER NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL, bot TEXT NOT NULL,
  score REAL, rank INTEGER, strikes INTEGER, PRIMARY KEY (match_id, seat));
CREATE TABLE IF NOT EXISTS moves (
  match_id INTEGER NOT NULL REFERENCES matches(id), ply INTEGER NOT NULL,
  seat INTEGER NOT NULL, move_id INTEGER NOT NULL, status TEXT NOT NULL,
  state_hash TEXT NOT NULL, PRIMARY KEY (match_id, ply));
CREATE TABLE IF NOT EXISTS ratings (
  game TEXT NOT NULL, bot TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,
  games INTEGER NOT NULL, PRIMARY KEY (game, bot));
)sql",
    R"sql(
CREATE TABLE IF NOT EXISTS accounts (
  name TEXT PRIMARY KEY, token_hash BLOB NOT NULL UNIQUE, created INTEGER NOT NULL,
  token_set INTEGER NOT NULL, revoked INTEGER);
)sql",
    // The match queue of several arenas: the same table as PostgreSQL's (only PostgreSQL
    // uses it; bots comma-separated here).
    R"sql(
CREATE TABLE IF NOT EXISTS match_queue (
  tournament_id INTEGER NOT NULL REFERENCES tournaments(id), ordinal INTEGER NOT NULL,
  game TEXT NOT NULL, seed INTEGER NOT NULL, options TEXT NOT NULL, bots TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued', arena TEXT, lease_until INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0, match_id INTEGER REFERENCES matches(id),
  PRIMARY KEY (tournament_id, ordinal));
)sql",
};

// One prepared statement; binds by position (1-based) and steps.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK) statement_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement& Bind(int index, int64_t value) {
    sqlite3_bind_int64(statement_, index, value);
    return *this;
  }
  Statement& Bind(int index, double value) {
    sqlite3_bind_double(statement_, index, value);
    return *this;
  }
  Statement& BindBlob(int index, const std::string& value) {
    sqlite3_bind_blob(statement_, index, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Bind(int index, const std::string& value) {
    sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  // True while there is a row; errors end iteration and show in status().
  bool Row() {
    if (!statement_) return false;
    const int code = sqlite3_step(statement_);
    if (code != SQLITE_ROW && code != SQLITE_DONE) error_ = code;
    return code == SQLITE_ROW;
  }
  absl::Status Run() {
    Row();
    return status();
  }
  absl::Status status() const {
    if (!statement_) return absl::InternalError(absl::StrCat("sqlite: ", sqlite3_errmsg(db_)));
    if (error_ == SQLITE_CONSTRAINT)  // a unique key taken: the same answer as PostgreSQL's
      return absl::AlreadyExistsError(absl::StrCat("sqlite: ", sqlite3_errmsg(db_)));
    if (error_) return absl::InternalError(absl::StrCat("sqlite: ", sqlite3_errstr(error_)));
    return absl::OkStatus();
  }
  int64_t Int(int column) { return sqlite3_column_int64(statement_, column); }
  std::string Blob(int column) {
    const void* data = sqlite3_column_blob(statement_, column);
    return data ? std::string(static_cast<const char*>(data), sqlite3_column_bytes(statement_, column)) : "";
  }
  double Real(int column) { return sqlite3_column_double(statement_, column); }
  std::string Text(int column) {
    const auto* text = sqlite3_column_text(statement_, column);
    return text ? reinterpret_cast<const char*>(text) : "";
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  int error_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> SqliteStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", message));
  }
  sqlite3_busy_timeout(db, 5000);
  std::unique_ptr<SqliteStore> store(new SqliteStore(db));
  GAVEL_RETURN_IF_ERROR(store->Exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;"));
  GAVEL_RETURN_IF_ERROR(store->Migrate());
  return store;
}

absl::StatusOr<int> SqliteStore::SchemaVersion() {
  std::lock_guard lock(mutex_);
  Statement select(db_, "PRAGMA user_version");
  const int version = select.Row() ? static_cast<int>(select.Int(0)) : 0;
  GAVEL_RETURN_IF_ERROR(select.status());
  return version;
}

// Each migration and its version bump in one transaction (BEGIN IMMEDIATE: a second process
// opening the same file waits instead of applying it twice).
absl::Status SqliteStore::Migrate() {
  GAVEL_ASSIGN_OR_RETURN(int version, SchemaVersion());
  const int latest = static_cast<int>(std::size(kMigrations));
  if (version > latest)
    return absl::FailedPreconditionError(absl::StrCat(
        "the store is at schema version ", version, ", newer than this build's ", latest));
  for (; version < latest; ++version) {
    GAVEL_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    GAVEL_ASSIGN_OR_RETURN(const int now, SchemaVersion());
    absl::Status status = now > version ? absl::OkStatus() : Exec(kMigrations[version]);
    if (status.ok() && now <= version) status = Exec(absl::StrCat("PRAGMA user_version = ", version + 1));
    if (absl::Status end = Exec(status.ok() ? "COMMIT" : "ROLLBACK"); status.ok()) status = end;
    GAVEL_RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

SqliteStore::~SqliteStore() { sqlite3_close(db_); }

absl::Status SqliteStore::Backup(const std::string& path) {
  const std::string partial = path + ".partial";
  std::remove(partial.c_str());
  sqlite3* copy = nullptr;
  if (sqlite3_open(partial.c_str(), &copy) != SQLITE_OK) {
    const std::string message = copy ? sqlite3_errmsg(copy) : "out of memory";
    sqlite3_close(copy);
    return absl::UnavailableError(absl::StrCat("cannot create ", partial, ": ", message));
  }
  int result = SQLITE_ERROR;
  {
    std::lock_guard lock(mutex_);  // one step for the whole file: no write interleaves
    sqlite3_backup* backup = sqlite3_backup_init(copy, "main", db_, "main");
    if (backup != nullptr) {
      sqlite3_backup_step(backup, -1);
      sqlite3_backup_finish(backup);
    }
    result = sqlite3_errcode(copy);
  }
  const std::string message = sqlite3_errmsg(copy);
  sqlite3_close(copy);
  if (result != SQLITE_OK) {
    std::remove(partial.c_str());
    return absl::InternalError(absl::StrCat("backup to ", path, " failed: ", message));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    return absl::InternalError(absl::StrCat("cannot move the backup to ", path));
  return absl::OkStatus();
}

absl::Status SqliteStore::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK)
    return absl::OkStatus();
  absl::Status status = absl::InternalError(absl::StrCat("sqlite: ", error ? error : "error"));
  sqlite3_free(error);
  return status;
}

absl::Status SqliteStore::SaveBot(const std::string& name, const std::string& version) {
  std::lock_guard lock(mutex_);
  return Statement(db_,
                   "INSERT INTO bots VALUES (?1, ?2, ?3, ?3) ON CONFLICT(name) DO UPDATE "
                   "SET version = ?2, last_seen = ?3")
      .Bind(1, name).Bind(2, version).Bind(3, UnixNow()).Run();
}

absl::Status SqliteStore::AddAccount(const std::string& name, const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  if (AccountLocked(name)) return absl::AlreadyExistsError(absl::StrCat("account '", name, "' exists"));
  return Statement(db_, "INSERT INTO accounts VALUES (?1, ?2, ?3, ?3, NULL)")
      .Bind(1, name).BindBlob(2, token_hash).Bind(3, UnixNow()).Run();
}

absl::Status SqliteStore::SetAccountToken(const std::string& name, const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  const std::optional<Account> account = AccountLocked(name);
  if (!account) return absl::NotFoundError(absl::StrCat("no account '", name, "'"));
  return Statement(db_, "UPDATE accounts SET token_hash = ?2, token_set = ?3, revoked = NULL WHERE name = ?1")
      .Bind(1, name).BindBlob(2, token_hash).Bind(3, UnixNow()).Run();
}

absl::Status SqliteStore::PutAccount(const std::string& name, const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  return Statement(db_,
                   "INSERT INTO accounts VALUES (?1, ?2, ?3, ?3, NULL) ON CONFLICT(name) DO UPDATE "
                   "SET token_hash = ?2, token_set = ?3 WHERE token_hash != ?2")
      .Bind(1, name).BindBlob(2, token_hash).Bind(3, UnixNow()).Run();
}

absl::Status SqliteStore::RevokeAccount(const std::string& name) {
  std::lock_guard lock(mutex_);
  if (!AccountLocked(name)) return absl::NotFoundError(absl::StrCat("no account '", name, "'"));
  return Statement(db_, "UPDATE accounts SET revoked = ?2 WHERE name = ?1").Bind(1, name).Bind(2, UnixNow()).Run();
}

absl::StatusOr<std::optional<Account>> SqliteStore::FindAccount(const std::string& name) {
  std::lock_guard lock(mutex_);
  return AccountLocked(name);
}

absl::StatusOr<std::optional<Account>> SqliteStore::AccountByTokenHash(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  Statement select(db_, "SELECT name FROM accounts WHERE token_hash = ?1");
  select.BindBlob(1, token_hash);
  if (!select.Row()) {
    GAVEL_RETURN_IF_ERROR(select.status());
    return std::nullopt;
  }
  return AccountLocked(select.Text(0));
}

absl::StatusOr<std::vector<Account>> SqliteStore::Accounts() {
  std::lock_guard lock(mutex_);
  std::vector<Account> accounts;
  Statement select(db_, "SELECT name FROM accounts ORDER BY name");
  while (select.Row())
    if (std::optional<Account> account = AccountLocked(select.Text(0))) accounts.push_back(*account);
  GAVEL_RETURN_IF_ERROR(select.status());
  return accounts;
}

std::optional<Account> SqliteStore::AccountLocked(const std::string& name) {
  Statement select(db_, "SELECT name, token_hash, created, token_set, revoked FROM accounts WHERE name = ?1");
  select.Bind(1, name);
  if (!select.Row()) return std::nullopt;
  return Account{select.Text(0), select.Blob(1), select.Int(2), select.Int(3), select.Int(4)};
}

absl::StatusOr<int64_t> SqliteStore::NewTournament(const std::string& description) {
  std::lock_guard lock(mutex_);
  Statement insert(db_, "INSERT INTO tournaments (description, created) VALUES (?1, ?2)");
  GAVEL_RETURN_IF_ERROR(insert.Bind(1, description).Bind(2, UnixNow()).Run());
  return sqlite3_last_insert_rowid(db_);
}

absl::Status SqliteStore::StartMatch(MatchRecord* match) {
  std::lock_guard lock(mutex_);
  Statement insert(db_,
                   "INSERT INTO matches (tournament_id, game, players, seed, options, "
                   "engine_version, initial_hash, finished, started) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8)");
  insert.Bind(1, match->tournament_id).Bind(2, match->game).Bind(3, int64_t{match->players});
  insert.Bind(4, static_cast<int64_t>(match->seed)).Bind(5, EncodeOptions(match->options));
  insert.Bind(6, match->engine_version).Bind(7, match->initial_hash).Bind(8, UnixNow());
  GAVEL_RETURN_IF_ERROR(insert.Run());
  match->id = sqlite3_last_insert_rowid(db_);
  return absl::OkStatus();
}

absl::Status SqliteStore::FinishMatch(const MatchRecord& match) {
  std::lock_guard lock(mutex_);
  GAVEL_RETURN_IF_ERROR(Exec("BEGIN"));
  absl::Status status =
      Statement(db_, "UPDATE matches SET finished = ?2, ended = ?3, initial_hash = ?4 WHERE id = ?1")
          .Bind(1, match.id).Bind(2, int64_t{match.finished}).Bind(3, UnixNow())
          .Bind(4, match.initial_hash).Run();
  for (size_t seat = 0; status.ok() && seat < match.bots.size(); ++seat) {
    Statement insert(db_, "INSERT INTO match_seats VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    insert.Bind(1, match.id).Bind(2, static_cast<int64_t>(seat)).Bind(3, match.bots[seat]);
    insert.Bind(4, match.scores.at(seat)).Bind(5, int64_t{match.ranks.at(seat)});
    status = insert.Bind(6, int64_t{match.strikes.at(seat)}).Run();
  }
  for (size_t ply = 0; status.ok() && ply < match.moves.size(); ++ply) {
    const MoveRecord& move = match.moves[ply];
    Statement insert(db_, "INSERT INTO moves VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    insert.Bind(1, match.id).Bind(2, static_cast<int64_t>(ply)).Bind(3, int64_t{move.seat});
    insert.Bind(4, int64_t{move.move_id}).Bind(5, v1::MoveStatus_Name(move.status));
    status = insert.Bind(6, move.state_hash).Run();
  }
  if (absl::Status end = Exec(status.ok() ? "COMMIT" : "ROLLBACK"); status.ok()) status = end;
  return status;
}

absl::StatusOr<MatchRecord> SqliteStore::LoadMatch(int64_t id) {
  std::lock_guard lock(mutex_);
  MatchRecord match;
  Statement select(db_,
                   "SELECT tournament_id, game, players, seed, options, engine_version, "
                   "initial_hash, finished FROM matches WHERE id = ?1");
  if (!select.Bind(1, id).Row()) {
    if (!select.status().ok()) return select.status();
    return absl::NotFoundError(absl::StrCat("no match ", id));
  }
  match.id = id;
  match.tournament_id = select.Int(0);
  match.game = select.Text(1);
  match.players = static_cast<int>(select.Int(2));
  match.seed = static_cast<uint64_t>(select.Int(3));
  match.options = DecodeOptions(select.Text(4));
  match.engine_version = select.Text(5);
  match.initial_hash = select.Text(6);
  match.finished = select.Int(7) != 0;
  Statement seats(db_, "SELECT bot, score, rank, strikes FROM match_seats WHERE match_id = ?1 "
                       "ORDER BY seat");
  seats.Bind(1, id);
  while (seats.Row()) {
    match.bots.push_back(seats.Text(0));
    match.scores.push_back(seats.Real(1));
    match.ranks.push_back(static_cast<int>(seats.Int(2)));
    match.strikes.push_back(static_cast<int>(seats.Int(3)));
  }
  Statement moves(db_, "SELECT seat, move_id, status, state_hash FROM moves WHERE match_id = ?1 "
                       "ORDER BY ply");
  moves.Bind(1, id);
  while (moves.Row()) {
    MoveRecord move;
    move.seat = static_cast<int>(moves.Int(0));
    move.move_id = static_cast<uint32_t>(moves.Int(1));
    v1::MoveStatus_Parse(moves.Text(2), &move.status);
    move.state_hash = moves.Text(3);
    match.moves.push_back(move);
  }
  if (!seats.status().ok()) return seats.status();
  if (!moves.status().ok()) return moves.status();
  return match;
}

absl::StatusOr<std::vector<int64_t>> SqliteStore::FinishedMatches(int64_t tournament_id) {
  std::lock_guard lock(mutex_);
  Statement select(db_, "SELECT id FROM matches WHERE finished = 1 AND (?1 = 0 OR "
                        "tournament_id = ?1) ORDER BY id");
  select.Bind(1, tournament_id);
  std::vector<int64_t> ids;
  while (select.Row()) ids.push_back(select.Int(0));
  if (!select.status().ok()) return select.status();
  return ids;
}

absl::StatusOr<std::vector<int64_t>> SqliteStore::Tournaments() {
  std::lock_guard lock(mutex_);
  Statement select(db_, "SELECT id FROM tournaments ORDER BY id");
  std::vector<int64_t> ids;
  while (select.Row()) ids.push_back(select.Int(0));
  if (!select.status().ok()) return select.status();
  return ids;
}

absl::StatusOr<std::map<RatingKey, Rating>> SqliteStore::LoadRatings() {
  std::lock_guard lock(mutex_);
  Statement select(db_, "SELECT game, bot, mu, sigma, games FROM ratings");
  std::map<RatingKey, Rating> ratings;
  while (select.Row())
    ratings[{select.Text(0), select.Text(1)}] =
        Rating{select.Real(2), select.Real(3), static_cast<int>(select.Int(4))};
  if (!select.status().ok()) return select.status();
  return ratings;
}

absl::Status SqliteStore::SaveRatings(const std::map<RatingKey, Rating>& ratings) {
  std::lock_guard lock(mutex_);
  GAVEL_RETURN_IF_ERROR(Exec("BEGIN"));
  absl::Status status;
  for (const auto& [key, rating] : ratings) {
    Statement upsert(db_, "INSERT OR REPLACE INTO ratings VALUES (?1, ?2, ?3, ?4, ?5)");
    upsert.Bind(1, key.first).Bind(2, key.second).Bind(3, rating.mu).Bind(4, rating.sigma);
    status = upsert.Bind(5, int64_t{rating.games}).Run();
    if (!status.ok()) break;
  }
  if (absl::Status end = Exec(status.ok() ? "COMMIT" : "ROLLBACK"); status.ok()) status = end;
  return status;
}

}  // namespace gavel::arena
