#include "service/arena/postgres_store.h"

#include <iterator>

#include <pqxx/pqxx>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/core/status.h"

namespace gavel::arena {
namespace {

// Versioned migrations, recorded in schema_migrations. Never edit one that has shipped; add
// the next. The same tables as the SQLite store (sqlite_store.cc); token hashes as hex text.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE bots (
  name TEXT PRIMARY KEY, version TEXT NOT NULL, first_seen BIGINT NOT NULL,
  last_seen BIGINT NOT NULL);
CREATE TABLE tournaments (
  id BIGSERIAL PRIMARY KEY, description TEXT NOT NULL, created BIGINT NOT NULL);
CREATE TABLE matches (
  id BIGSERIAL PRIMARY KEY, tournament_id BIGINT NOT NULL REFERENCES tournaments(id),
  game TEXT NOT NULL, players INTEGER NOT NULL, seed BIGINT NOT NULL, options TEXT NOT NULL,
  engine_version TEXT NOT NULL, initial_hash TEXT NOT NULL, finished BOOLEAN NOT NULL,
  started BIGINT NOT NULL, ended BIGINT);
CREATE TABLE match_seats (
  match_id BIGINT NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL, bot TEXT NOT NULL,
  score DOUBLE PRECISION, rank INTEGER, strikes INTEGER, PRIMARY KEY (match_id, seat));
CREATE TABLE moves (
  match_id BIGINT NOT NULL REFERENCES matches(id), ply INTEGER NOT NULL,
  seat INTEGER NOT NULL, move_id BIGINT NOT NULL, status TEXT NOT NULL,
  state_hash TEXT NOT NULL, PRIMARY KEY (match_id, ply));
CREATE TABLE ratings (
  game TEXT NOT NULL, bot TEXT NOT NULL, mu DOUBLE PRECISION NOT NULL,
  sigma DOUBLE PRECISION NOT NULL, games INTEGER NOT NULL, PRIMARY KEY (game, bot));
)sql",
    R"sql(
CREATE TABLE accounts (
  name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, created BIGINT NOT NULL,
  token_set BIGINT NOT NULL, revoked BIGINT);
)sql",
    R"sql(
CREATE TABLE match_queue (
  tournament_id BIGINT NOT NULL REFERENCES tournaments(id), ordinal INTEGER NOT NULL,
  game TEXT NOT NULL, seed BIGINT NOT NULL, options TEXT NOT NULL, bots TEXT[] NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued', arena TEXT, lease_until BIGINT,
  attempts INTEGER NOT NULL DEFAULT 0, match_id BIGINT REFERENCES matches(id),
  PRIMARY KEY (tournament_id, ordinal));
CREATE INDEX match_queue_open ON match_queue (tournament_id, ordinal) WHERE state <> 'done';
)sql",
};

constexpr int64_t kMigrationLock = 0x6761'7665'6c00;  // pg_advisory_xact_lock key ("gavel")

Account AccountOf(const pqxx::row& row) {
  return Account{row[0].as<std::string>(), absl::HexStringToBytes(row[1].as<std::string>()),
                 row[2].as<int64_t>(), row[3].as<int64_t>(),
                 row[4].is_null() ? 0 : row[4].as<int64_t>()};
}

// The database server's clock in milliseconds: every arena's leases by one clock.
constexpr const char* kNowMs = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

// A text[] literal of bot names (their alphabet, A-Z a-z 0-9 _ . -, needs no escaping
// beyond the quotes).
std::string TextArray(const std::vector<std::string>& names) {
  std::string literal = "{";
  for (size_t i = 0; i < names.size(); ++i) absl::StrAppend(&literal, i ? "," : "", "\"", names[i], "\"");
  return literal + "}";
}

constexpr const char* kSelectAccount =
    "SELECT name, token_hash, created, token_set, revoked FROM accounts ";

}  // namespace

struct PostgresStore::Connection {
  explicit Connection(const std::string& uri) : connection(uri) {}
  pqxx::connection connection;
};

// One transaction on the store's connection, under its mutex; the connection is (re)opened
// on demand. Database errors become statuses: a lost connection UNAVAILABLE, a broken
// unique constraint ALREADY_EXISTS, anything else INTERNAL.
class PostgresStore::Transaction {
 public:
  template <typename Body>
  static absl::Status Run(PostgresStore& store, Body&& body) {
    std::lock_guard lock(store.mutex_);
    try {
      if (!store.connection_ || !store.connection_->connection.is_open())
        store.connection_ = std::make_unique<Connection>(store.uri_);
      pqxx::work work(store.connection_->connection);
      absl::Status status = body(work);
      if (status.ok()) work.commit();
      return status;
    } catch (const pqxx::broken_connection& error) {
      store.connection_.reset();
      return absl::UnavailableError(absl::StrCat("postgresql: ", error.what()));
    } catch (const pqxx::unique_violation& error) {
      return absl::AlreadyExistsError(absl::StrCat("postgresql: ", error.what()));
    } catch (const std::exception& error) {
      return absl::InternalError(absl::StrCat("postgresql: ", error.what()));
    }
  }
};

absl::StatusOr<std::unique_ptr<Store>> PostgresStore::Open(const std::string& uri) {
  std::unique_ptr<PostgresStore> store(new PostgresStore(uri));
  GAVEL_RETURN_IF_ERROR(store->Migrate());
  return store;
}

PostgresStore::PostgresStore(std::string uri) : uri_(std::move(uri)) {}
PostgresStore::~PostgresStore() = default;

absl::Status PostgresStore::Migrate() {
  return Transaction::Run(*this, [](pqxx::work& work) {
    work.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLock);
    work.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
              "applied BIGINT NOT NULL)");
    int version = work.exec1("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")[0].as<int>();
    const int latest = static_cast<int>(std::size(kMigrations));
    if (version > latest)
      return absl::FailedPreconditionError(absl::StrCat(
          "the store is at schema version ", version, ", newer than this build's ", latest));
    for (; version < latest; ++version) {
      work.exec(kMigrations[version]);
      work.exec_params("INSERT INTO schema_migrations VALUES ($1, $2)", version + 1, UnixNow());
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<int> PostgresStore::SchemaVersion() {
  int version = 0;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    version = work.exec1("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")[0].as<int>();
    return absl::OkStatus();
  }));
  return version;
}

absl::Status PostgresStore::SaveBot(const std::string& name, const std::string& version) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    work.exec_params("INSERT INTO bots VALUES ($1, $2, $3, $3) ON CONFLICT (name) DO UPDATE "
                     "SET version = $2, last_seen = $3",
                     name, version, UnixNow());
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> PostgresStore::NewTournament(const std::string& description) {
  int64_t id = 0;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    id = work.exec_params1("INSERT INTO tournaments (description, created) VALUES ($1, $2) "
                           "RETURNING id", description, UnixNow())[0].as<int64_t>();
    return absl::OkStatus();
  }));
  return id;
}

absl::Status PostgresStore::StartMatch(MatchRecord* match) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    match->id = work.exec_params1(
        "INSERT INTO matches (tournament_id, game, players, seed, options, engine_version, "
        "initial_hash, finished, started) VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8) "
        "RETURNING id",
        match->tournament_id, match->game, match->players, static_cast<int64_t>(match->seed),
        EncodeOptions(match->options), match->engine_version, match->initial_hash,
        UnixNow())[0].as<int64_t>();
    return absl::OkStatus();
  });
}

namespace {

// A finished match's end, seats and moves (within the caller's transaction).
void WriteFinish(pqxx::work& work, const MatchRecord& match) {
  work.exec_params("UPDATE matches SET finished = $2, ended = $3, initial_hash = $4 WHERE id = $1",
                   match.id, match.finished, UnixNow(), match.initial_hash);
  for (size_t seat = 0; seat < match.bots.size(); ++seat)
    work.exec_params("INSERT INTO match_seats VALUES ($1, $2, $3, $4, $5, $6)", match.id,
                     static_cast<int>(seat), match.bots[seat], match.scores.at(seat),
                     match.ranks.at(seat), match.strikes.at(seat));
  // One COPY for all moves: a match has hundreds, and each statement is a round trip.
  pqxx::stream_to moves(work, "moves");
  for (size_t ply = 0; ply < match.moves.size(); ++ply) {
    const MoveRecord& move = match.moves[ply];
    moves << std::make_tuple(match.id, static_cast<int>(ply), move.seat,
                             static_cast<int64_t>(move.move_id), v1::MoveStatus_Name(move.status),
                             move.state_hash);
  }
  moves.complete();
}

}  // namespace

absl::Status PostgresStore::FinishMatch(const MatchRecord& match) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    WriteFinish(work, match);
    return absl::OkStatus();
  });
}

absl::StatusOr<MatchRecord> PostgresStore::LoadMatch(int64_t id) {
  MatchRecord match;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    const pqxx::result found = work.exec_params(
        "SELECT tournament_id, game, players, seed, options, engine_version, initial_hash, "
        "finished FROM matches WHERE id = $1", id);
    if (found.empty()) return absl::NotFoundError(absl::StrCat("no match ", id));
    const pqxx::row row = found[0];
    match.id = id;
    match.tournament_id = row[0].as<int64_t>();
    match.game = row[1].as<std::string>();
    match.players = row[2].as<int>();
    match.seed = static_cast<uint64_t>(row[3].as<int64_t>());
    match.options = DecodeOptions(row[4].as<std::string>());
    match.engine_version = row[5].as<std::string>();
    match.initial_hash = row[6].as<std::string>();
    match.finished = row[7].as<bool>();
    for (const pqxx::row& seat : work.exec_params(
             "SELECT bot, score, rank, strikes FROM match_seats WHERE match_id = $1 ORDER BY seat", id)) {
      match.bots.push_back(seat[0].as<std::string>());
      match.scores.push_back(seat[1].as<double>());
      match.ranks.push_back(seat[2].as<int>());
      match.strikes.push_back(seat[3].as<int>());
    }
    for (const pqxx::row& stored : work.exec_params(
             "SELECT seat, move_id, status, state_hash FROM moves WHERE match_id = $1 ORDER BY ply", id)) {
      MoveRecord move;
      move.seat = stored[0].as<int>();
      move.move_id = static_cast<uint32_t>(stored[1].as<int64_t>());
      v1::MoveStatus_Parse(stored[2].as<std::string>(), &move.status);
      move.state_hash = stored[3].as<std::string>();
      match.moves.push_back(std::move(move));
    }
    return absl::OkStatus();
  }));
  return match;
}

absl::StatusOr<std::vector<int64_t>> PostgresStore::FinishedMatches(int64_t tournament_id) {
  std::vector<int64_t> ids;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    for (const pqxx::row& row : work.exec_params(
             "SELECT id FROM matches WHERE finished AND ($1 = 0 OR tournament_id = $1) ORDER BY id",
             tournament_id))
      ids.push_back(row[0].as<int64_t>());
    return absl::OkStatus();
  }));
  return ids;
}

absl::StatusOr<std::vector<int64_t>> PostgresStore::Tournaments() {
  std::vector<int64_t> ids;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    for (const pqxx::row& row : work.exec("SELECT id FROM tournaments ORDER BY id"))
      ids.push_back(row[0].as<int64_t>());
    return absl::OkStatus();
  }));
  return ids;
}

absl::StatusOr<std::map<RatingKey, Rating>> PostgresStore::LoadRatings() {
  std::map<RatingKey, Rating> ratings;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    for (const pqxx::row& row : work.exec("SELECT game, bot, mu, sigma, games FROM ratings"))
      ratings[{row[0].as<std::string>(), row[1].as<std::string>()}] =
          Rating{row[2].as<double>(), row[3].as<double>(), row[4].as<int>()};
    return absl::OkStatus();
  }));
  return ratings;
}

absl::Status PostgresStore::SaveRatings(const std::map<RatingKey, Rating>& ratings) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    for (const auto& [key, rating] : ratings)
      work.exec_params("INSERT INTO ratings VALUES ($1, $2, $3, $4, $5) ON CONFLICT (game, bot) "
                       "DO UPDATE SET mu = $3, sigma = $4, games = $5",
                       key.first, key.second, rating.mu, rating.sigma, rating.games);
    return absl::OkStatus();
  });
}

absl::Status PostgresStore::AddAccount(const std::string& name, const std::string& token_hash) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    if (!work.exec_params("SELECT 1 FROM accounts WHERE name = $1", name).empty())
      return absl::AlreadyExistsError(absl::StrCat("account '", name, "' exists"));
    work.exec_params("INSERT INTO accounts VALUES ($1, $2, $3, $3, NULL)", name,
                     absl::BytesToHexString(token_hash), UnixNow());
    return absl::OkStatus();
  });
}

absl::Status PostgresStore::SetAccountToken(const std::string& name, const std::string& token_hash) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    const pqxx::result updated = work.exec_params(
        "UPDATE accounts SET token_hash = $2, token_set = $3, revoked = NULL WHERE name = $1",
        name, absl::BytesToHexString(token_hash), UnixNow());
    if (updated.affected_rows() == 0) return absl::NotFoundError(absl::StrCat("no account '", name, "'"));
    return absl::OkStatus();
  });
}

absl::Status PostgresStore::PutAccount(const std::string& name, const std::string& token_hash) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    work.exec_params("INSERT INTO accounts VALUES ($1, $2, $3, $3, NULL) ON CONFLICT (name) DO "
                     "UPDATE SET token_hash = $2, token_set = $3 WHERE accounts.token_hash <> $2",
                     name, absl::BytesToHexString(token_hash), UnixNow());
    return absl::OkStatus();
  });
}

absl::Status PostgresStore::RevokeAccount(const std::string& name) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    const pqxx::result updated =
        work.exec_params("UPDATE accounts SET revoked = $2 WHERE name = $1", name, UnixNow());
    if (updated.affected_rows() == 0) return absl::NotFoundError(absl::StrCat("no account '", name, "'"));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<Account>> PostgresStore::FindAccount(const std::string& name) {
  std::optional<Account> account;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    const pqxx::result found = work.exec_params(std::string(kSelectAccount) + "WHERE name = $1", name);
    if (!found.empty()) account = AccountOf(found[0]);
    return absl::OkStatus();
  }));
  return account;
}

absl::StatusOr<std::optional<Account>> PostgresStore::AccountByTokenHash(const std::string& token_hash) {
  std::optional<Account> account;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    const pqxx::result found = work.exec_params(std::string(kSelectAccount) + "WHERE token_hash = $1",
                                                absl::BytesToHexString(token_hash));
    if (!found.empty()) account = AccountOf(found[0]);
    return absl::OkStatus();
  }));
  return account;
}

absl::StatusOr<std::vector<Account>> PostgresStore::Accounts() {
  std::vector<Account> accounts;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    for (const pqxx::row& row : work.exec(std::string(kSelectAccount) + "ORDER BY name"))
      accounts.push_back(AccountOf(row));
    return absl::OkStatus();
  }));
  return accounts;
}

absl::Status PostgresStore::EnqueueMatches(const std::vector<QueuedMatch>& matches) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    for (const QueuedMatch& match : matches)
      work.exec_params("INSERT INTO match_queue (tournament_id, ordinal, game, seed, options, bots) "
                       "VALUES ($1, $2, $3, $4, $5, $6::text[])",
                       match.tournament_id, match.ordinal, match.game, static_cast<int64_t>(match.seed),
                       EncodeOptions(match.options), TextArray(match.bots));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<QueuedMatch>> PostgresStore::ClaimMatch(
    const std::string& arena, const std::vector<std::string>& connected_bots, int64_t lease_ms) {
  std::optional<QueuedMatch> claimed;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    const pqxx::result rows = work.exec_params(absl::StrCat(
        "WITH candidate AS (SELECT tournament_id, ordinal FROM match_queue WHERE state <> 'done' "
        "AND (state = 'queued' OR lease_until < ", kNowMs, ") AND bots <@ $2::text[] "
        "ORDER BY tournament_id, ordinal LIMIT 1 FOR UPDATE SKIP LOCKED) "
        "UPDATE match_queue q SET state = 'running', arena = $1, lease_until = ", kNowMs,
        " + $3, attempts = q.attempts + 1 FROM candidate c WHERE q.tournament_id = c.tournament_id "
        "AND q.ordinal = c.ordinal RETURNING q.tournament_id, q.ordinal, q.game, q.seed, q.options, "
        "array_to_string(q.bots, ',')"),
        arena, TextArray(connected_bots), lease_ms);
    if (rows.empty()) return absl::OkStatus();
    const pqxx::row row = rows[0];
    claimed = QueuedMatch{row[0].as<int64_t>(), row[1].as<int>(), row[2].as<std::string>(),
                          static_cast<uint64_t>(row[3].as<int64_t>()),
                          DecodeOptions(row[4].as<std::string>()),
                          absl::StrSplit(row[5].as<std::string>(), ',')};
    return absl::OkStatus();
  }));
  return claimed;
}

absl::Status PostgresStore::RenewLeases(const std::string& arena, int64_t lease_ms) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    work.exec_params(absl::StrCat("UPDATE match_queue SET lease_until = ", kNowMs,
                                  " + $2 WHERE arena = $1 AND state = 'running'"),
                     arena, lease_ms);
    return absl::OkStatus();
  });
}

absl::Status PostgresStore::FinishQueuedMatch(const std::string& arena, const QueuedMatch& entry,
                                              const MatchRecord& match) {
  return Transaction::Run(*this, [&](pqxx::work& work) {
    // The row lock keeps another arena from claiming the entry while this one commits.
    if (work.exec_params("SELECT 1 FROM match_queue WHERE tournament_id = $1 AND ordinal = $2 "
                         "AND state = 'running' AND arena = $3 FOR UPDATE",
                         entry.tournament_id, entry.ordinal, arena).empty())
      return absl::AbortedError(absl::StrCat("match ", entry.ordinal, " of tournament ",
                                             entry.tournament_id, " is no longer this arena's"));
    WriteFinish(work, match);
    work.exec_params("UPDATE match_queue SET state = 'done', match_id = $3, lease_until = NULL "
                     "WHERE tournament_id = $1 AND ordinal = $2",
                     entry.tournament_id, entry.ordinal, match.id);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<Store::QueueEntry>> PostgresStore::QueueResults(int64_t tournament_id) {
  std::vector<QueueEntry> entries;
  GAVEL_RETURN_IF_ERROR(Transaction::Run(*this, [&](pqxx::work& work) {
    for (const pqxx::row& row : work.exec_params(
             "SELECT COALESCE(match_id, 0), attempts FROM match_queue WHERE tournament_id = $1 "
             "ORDER BY ordinal", tournament_id))
      entries.push_back(QueueEntry{row[0].as<int64_t>(), row[1].as<int>()});
    return absl::OkStatus();
  }));
  return entries;
}

absl::Status PostgresStore::Backup(const std::string&) {
  return absl::UnimplementedError(
      "a PostgreSQL store is backed up with the database server's tools (pg_dump, base backups)");
}

}  // namespace gavel::arena
