// One table of measurements (each candidate once per key and shape) and
// one of the best candidate per key and shape. Writes run in IMMEDIATE
// transactions; with WAL and a busy timeout, concurrent `tmc tune`
// processes wait for each other instead of failing.
#include "tune/tuning_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <thread>
#include <tuple>

#include "runtime/json.h"
#include "support/json_string.h"

namespace tmc::tune {
namespace {

namespace fs = std::filesystem;

const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS measurements(
  kernel TEXT NOT NULL, source_hash TEXT NOT NULL, arch TEXT NOT NULL, dtypes TEXT NOT NULL,
  device TEXT NOT NULL, tmc_version TEXT NOT NULL, shape TEXT NOT NULL, params TEXT NOT NULL,
  status TEXT NOT NULL, metric REAL NOT NULL, metric_kind TEXT NOT NULL,
  registers INTEGER NOT NULL, spill_bytes INTEGER NOT NULL, shared_bytes INTEGER NOT NULL,
  reason TEXT NOT NULL, created INTEGER NOT NULL,
  PRIMARY KEY(kernel, source_hash, arch, dtypes, device, tmc_version, shape, params, metric_kind));
CREATE TABLE IF NOT EXISTS best(
  kernel TEXT NOT NULL, source_hash TEXT NOT NULL, arch TEXT NOT NULL, dtypes TEXT NOT NULL,
  device TEXT NOT NULL, tmc_version TEXT NOT NULL, shape TEXT NOT NULL, params TEXT NOT NULL,
  metric REAL NOT NULL, metric_kind TEXT NOT NULL, created INTEGER NOT NULL,
  PRIMARY KEY(kernel, source_hash, arch, dtypes, device, tmc_version, shape));
)";

// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Statement() { sqlite3_finalize(s_); }
  bool ok() const { return s_ != nullptr; }
  Statement& Text(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Int(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Statement& Real(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  int Step() { return sqlite3_step(s_); }
  std::string ColText(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t ColInt(int i) const { return sqlite3_column_int64(s_, i); }
  double ColReal(int i) const { return sqlite3_column_double(s_, i); }

 private:
  sqlite3_stmt* s_ = nullptr;
};

void BindKey(Statement& s, const TuningKey& k) {
  s.Text(1, k.kernel).Text(2, k.source_hash).Text(3, k.arch).Text(4, k.dtypes).Text(5, k.device).Text(6, k.tmc_version);
}

TuningKey ReadKey(const Statement& s) {
  return {s.ColText(0), s.ColText(1), s.ColText(2), s.ColText(3), s.ColText(4), s.ColText(5)};
}

// A row of `best` selected in the column order of kBestColumns.
constexpr const char* kBestColumns =
    "kernel, source_hash, arch, dtypes, device, tmc_version, shape, params, metric, metric_kind, created";

// The columns of `measurements`, in the order AllMeasurements reads them.
constexpr const char* kMeasurementColumns =
    "kernel, source_hash, arch, dtypes, device, tmc_version, shape, params, status, metric, metric_kind, registers, "
    "spill_bytes, shared_bytes, reason, created";

BestEntry ReadBest(const Statement& s) {
  BestEntry e;
  e.key = ReadKey(s);
  e.shape = ParseShapeText(s.ColText(6)).value_or(Shape{});
  e.params = s.ColText(7);
  e.metric = s.ColReal(8);
  e.metric_kind = s.ColText(9);
  e.created = s.ColInt(10);
  return e;
}

bool Better(const std::string& kind, double metric, const std::string& old_kind, double old_metric) {
  bool measured = kind == kMeasured, old_measured = old_kind == kMeasured;
  if (measured != old_measured) return measured;
  return metric < old_metric;
}

std::string Error(sqlite3* db, const std::string& what) { return what + ": " + sqlite3_errmsg(db); }

// Begins an IMMEDIATE transaction and commits it at Commit(); rolls back
// when left without.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { ok_ = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK; }
  ~Transaction() {
    if (ok_ && !done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  bool ok() const { return ok_; }
  bool Commit() {
    done_ = true;
    return sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
  }

 private:
  sqlite3* db_;
  bool ok_ = false, done_ = false;
};

bool InsertMeasurement(sqlite3* db, const Measurement& m, std::string* error) {
  Statement s(db,
              "INSERT OR REPLACE INTO measurements VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)");
  if (!s.ok()) return *error = Error(db, "cannot prepare an insert"), false;
  BindKey(s, m.key);
  s.Text(7, ShapeText(m.shape)).Text(8, m.params).Text(9, m.status).Real(10, m.metric).Text(11, m.metric_kind);
  s.Int(12, m.registers).Int(13, m.spill_bytes).Int(14, m.shared_bytes).Text(15, m.reason).Int(16, m.created);
  if (s.Step() != SQLITE_DONE) return *error = Error(db, "cannot record a measurement"), false;
  return true;
}

bool UpsertBest(sqlite3* db, const BestEntry& e, std::string* error) {
  Statement q(db,
              "SELECT metric, metric_kind FROM best WHERE kernel = ?1 AND source_hash = ?2 AND arch = ?3 AND "
              "dtypes = ?4 AND device = ?5 AND tmc_version = ?6 AND shape = ?7");
  if (!q.ok()) return *error = Error(db, "cannot prepare a query"), false;
  BindKey(q, e.key);
  q.Text(7, ShapeText(e.shape));
  if (q.Step() == SQLITE_ROW && !Better(e.metric_kind, e.metric, q.ColText(1), q.ColReal(0))) return true;
  Statement s(db, "INSERT OR REPLACE INTO best VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!s.ok()) return *error = Error(db, "cannot prepare an insert"), false;
  BindKey(s, e.key);
  s.Text(7, ShapeText(e.shape)).Text(8, e.params).Real(9, e.metric).Text(10, e.metric_kind).Int(11, e.created);
  if (s.Step() != SQLITE_DONE) return *error = Error(db, "cannot record the best candidate"), false;
  return true;
}

}  // namespace

std::string DefaultDbPath() {
  if (const char* p = std::getenv("TMC_TUNING_DB"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "tmc" / "tuning.db").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".cache" / "tmc" / "tuning.db").string();
}

std::unique_ptr<TuningDb> TuningDb::Open(const std::string& path, bool create, std::string* error) {
  std::error_code ec;
  if (!create && !fs::exists(path, ec)) {
    *error = "no tuning database at '" + path + "'";
    return nullptr;
  }
  if (create && fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), ec);
  std::unique_ptr<TuningDb> db(new TuningDb);
  db->path_ = path;
  // Without `create`, read-only: showing or consulting a database never
  // writes to it (nor adds tmc's tables to some other SQLite file).
  int flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db->db_, flags, nullptr) != SQLITE_OK) {
    *error = "cannot open the tuning database '" + path + "': " +
             (db->db_ ? sqlite3_errmsg(db->db_) : "out of memory");
    return nullptr;
  }
  sqlite3_busy_timeout(db->db_, 30000);
  std::string why;
  auto unusable = [&](const std::string& reason) {
    *error = "'" + path + "' is not a usable tuning database (" + reason + ")";
    return nullptr;
  };
  // The tables, if any: a file with other tables is someone else's.
  int tables = 0, ours = 0;
  {
    Statement q(db->db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    if (!q.ok()) return unusable(sqlite3_errmsg(db->db_));
    for (int rc; (rc = q.Step()) == SQLITE_ROW;) {
      ++tables;
      ours += q.ColText(0) == "best" || q.ColText(0) == "measurements";
    }
  }
  // (Another tmc creating the schema at the same moment may have made one
  // of the two tables yet: only tables of other names make it foreign.)
  if (tables > ours) return unusable("its tables are not tmc's");
  if (create) {
    // The schema in one transaction: a concurrent opener sees both tables
    // or neither. Switching to WAL needs the file to itself, and SQLite
    // does not wait for that (its busy handler would risk a deadlock):
    // another process creating the file at the same moment makes it
    // retry, for up to 30 s.
    bool done = false;
    for (int attempt = 0; attempt < 1500 && !done; ++attempt) {
      why.clear();
      if (db->Exec("PRAGMA journal_mode=WAL", &why)) {
        Transaction t(db->db_);
        done = t.ok() && db->Exec(kSchema, &why) && t.Commit();
        if (!done && why.empty()) why = sqlite3_errmsg(db->db_);
      }
      int code = sqlite3_errcode(db->db_);
      if (!done && code != SQLITE_BUSY && code != SQLITE_LOCKED) break;
      if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!done) return unusable(why);
  }
  if (!create && tables == 0) return unusable("it has no tables");
  // Every column tmc reads (an older or foreign schema fails here).
  for (const std::string& probe : {std::string("SELECT ") + kBestColumns + " FROM best LIMIT 0",
                                   std::string("SELECT ") + kMeasurementColumns + " FROM measurements LIMIT 0"}) {
    Statement q(db->db_, probe.c_str());
    if (!q.ok()) return unusable(sqlite3_errmsg(db->db_));
  }
  return db;
}

bool TuningDb::RemoveBest(const TuningKey& key, const Shape& shape, std::string* error) {
  Statement s(db_,
              "DELETE FROM best WHERE kernel = ?1 AND source_hash = ?2 AND arch = ?3 AND dtypes = ?4 AND "
              "device = ?5 AND tmc_version = ?6 AND shape = ?7");
  if (!s.ok()) return *error = Error(db_, "cannot prepare a delete"), false;
  BindKey(s, key);
  s.Text(7, ShapeText(shape));
  if (s.Step() != SQLITE_DONE) return *error = Error(db_, "cannot remove the best candidate"), false;
  return true;
}

TuningDb::~TuningDb() { sqlite3_close(db_); }

bool TuningDb::Exec(const char* sql, std::string* error) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) == SQLITE_OK) return true;
  *error = message ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  return false;
}

bool TuningDb::Record(const Measurement& m, std::string* error) {
  Transaction t(db_);
  if (!t.ok()) return *error = Error(db_, "cannot write to '" + path_ + "'"), false;
  return InsertMeasurement(db_, m, error) && (t.Commit() || (*error = Error(db_, "cannot commit"), false));
}

bool TuningDb::OfferBest(const BestEntry& e, std::string* error) {
  Transaction t(db_);
  if (!t.ok()) return *error = Error(db_, "cannot write to '" + path_ + "'"), false;
  return UpsertBest(db_, e, error) && (t.Commit() || (*error = Error(db_, "cannot commit"), false));
}

std::vector<BestEntry> TuningDb::AllBest(std::string* error) const {
  std::vector<BestEntry> out;
  Statement s(db_, (std::string("SELECT ") + kBestColumns + " FROM best ORDER BY kernel, arch, dtypes, device, shape").c_str());
  if (!s.ok()) {
    if (error) *error = Error(db_, "cannot read");
    return out;
  }
  while (s.Step() == SQLITE_ROW) out.push_back(ReadBest(s));
  return out;
}

std::vector<Measurement> TuningDb::AllMeasurements(std::string* error) const {
  std::vector<Measurement> out;
  Statement s(db_, (std::string("SELECT ") + kMeasurementColumns +
                    " FROM measurements ORDER BY kernel, arch, dtypes, device, shape, status, metric").c_str());
  if (!s.ok()) {
    if (error) *error = Error(db_, "cannot read");
    return out;
  }
  while (s.Step() == SQLITE_ROW) {
    Measurement m;
    m.key = ReadKey(s);
    m.shape = ParseShapeText(s.ColText(6)).value_or(Shape{});
    m.params = s.ColText(7);
    m.status = s.ColText(8);
    m.metric = s.ColReal(9);
    m.metric_kind = s.ColText(10);
    m.registers = static_cast<int>(s.ColInt(11));
    m.spill_bytes = static_cast<int>(s.ColInt(12));
    m.shared_bytes = static_cast<int>(s.ColInt(13));
    m.reason = s.ColText(14);
    m.created = s.ColInt(15);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<BestEntry> TuningDb::Lookup(const TuningKey& key, const Shape& shape) const {
  Statement s(db_, (std::string("SELECT ") + kBestColumns +
                    " FROM best WHERE kernel = ?1 AND source_hash = ?2 AND arch = ?3 AND dtypes = ?4 AND "
                    "tmc_version = ?6").c_str());
  if (!s.ok()) return std::nullopt;
  BindKey(s, key);
  std::vector<BestEntry> found;
  while (s.Step() == SQLITE_ROW) found.push_back(ReadBest(s));
  if (found.empty()) return std::nullopt;
  if (shape.empty()) {
    // No shape asked: unambiguous only when every entry has one shape.
    for (const BestEntry& e : found)
      if (e.shape != found.front().shape) return std::nullopt;
  }
  const double inf = std::numeric_limits<double>::infinity();
  auto rank = [&](const BestEntry& e) {
    double bucket = shape.empty() ? 0 : ShapeDistance(PowerOfTwoBucket(shape), PowerOfTwoBucket(e.shape));
    double exact = shape.empty() ? 0 : ShapeDistance(shape, e.shape);
    bool other_device = !key.device.empty() && e.key.device != key.device;
    return std::make_tuple(bucket, exact, other_device, e.metric_kind != kMeasured, e.metric);
  };
  const BestEntry* best = nullptr;
  for (const BestEntry& e : found) {
    if (!shape.empty() && std::get<0>(rank(e)) == inf) continue;  // other symbols
    if (!best || rank(e) < rank(*best)) best = &e;
  }
  if (!best) return std::nullopt;
  return *best;
}

bool TuningDb::Merge(const TuningDb& other, std::string* error) {
  std::string why;
  std::vector<Measurement> ms = other.AllMeasurements(&why);
  std::vector<BestEntry> bs = other.AllBest(&why);
  if (!why.empty()) return *error = "'" + other.path_ + "': " + why, false;
  Transaction t(db_);
  if (!t.ok()) return *error = Error(db_, "cannot write to '" + path_ + "'"), false;
  for (const Measurement& m : ms)
    if (!InsertMeasurement(db_, m, error)) return false;
  for (const BestEntry& b : bs)
    if (!UpsertBest(db_, b, error)) return false;
  return t.Commit() || (*error = Error(db_, "cannot commit"), false);
}

namespace {

std::string KeyJson(const TuningKey& k) {
  return "\"kernel\": " + JsonString(k.kernel) + ", \"source_hash\": " + JsonString(k.source_hash) +
         ", \"arch\": " + JsonString(k.arch) + ", \"dtypes\": " + JsonString(k.dtypes) +
         ", \"device\": " + JsonString(k.device) + ", \"tmc_version\": " + JsonString(k.tmc_version);
}

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", std::isfinite(v) ? v : 0.0);
  return buf;
}

}  // namespace

std::string TuningDb::ExportJson() const {
  std::string out = "{\n  \"format\": \"tmc-tuning-db\",\n  \"version\": 1,\n  \"best\": [";
  std::vector<BestEntry> bs = AllBest();
  for (size_t i = 0; i < bs.size(); ++i) {
    const BestEntry& b = bs[i];
    out += std::string(i ? "," : "") + "\n    {" + KeyJson(b.key) + ", \"shape\": " + JsonString(ShapeText(b.shape)) +
           ", \"params\": " + JsonString(b.params) + ", \"metric\": " + Number(b.metric) +
           ", \"metric_kind\": " + JsonString(b.metric_kind) + ", \"created\": " + std::to_string(b.created) + "}";
  }
  out += "\n  ],\n  \"measurements\": [";
  std::vector<Measurement> ms = AllMeasurements();
  for (size_t i = 0; i < ms.size(); ++i) {
    const Measurement& m = ms[i];
    out += std::string(i ? "," : "") + "\n    {" + KeyJson(m.key) + ", \"shape\": " + JsonString(ShapeText(m.shape)) +
           ", \"params\": " + JsonString(m.params) + ", \"status\": " + JsonString(m.status) +
           ", \"metric\": " + Number(m.metric) + ", \"metric_kind\": " + JsonString(m.metric_kind) +
           ", \"registers\": " + std::to_string(m.registers) + ", \"spill_bytes\": " + std::to_string(m.spill_bytes) +
           ", \"shared_bytes\": " + std::to_string(m.shared_bytes) + ", \"reason\": " + JsonString(m.reason) +
           ", \"created\": " + std::to_string(m.created) + "}";
  }
  out += "\n  ]\n}\n";
  return out;
}

bool TuningDb::ImportJson(const std::string& text, std::string* error) {
  runtime::Json doc;
  std::string why;
  if (!runtime::ParseJson(text, &doc, &why)) return *error = "not JSON: " + why, false;
  const runtime::Json* format = doc.Get("format");
  if (!format || format->str != "tmc-tuning-db") return *error = "not a tmc tuning database export", false;
  const runtime::Json* version = doc.Get("version");
  if (!version || version->kind != runtime::Json::Kind::Number || version->number != 1)
    return *error = "an export of version 1 is expected (this tmc reads no other)", false;
  auto str = [&](const runtime::Json& o, const char* name, std::string* out) {
    const runtime::Json* f = o.Get(name);
    if (!f || f->kind != runtime::Json::Kind::String) return false;
    *out = f->str;
    return true;
  };
  auto num = [&](const runtime::Json& o, const char* name, double* out) {
    const runtime::Json* f = o.Get(name);
    if (!f || f->kind != runtime::Json::Kind::Number) return false;
    *out = f->number;
    return true;
  };
  // What a valid entry holds: tmc's statuses and metric kinds, finite
  // metrics >= 0, counts and times that fit.
  auto valid_kind = [](const std::string& k) { return k == kMeasured || k == kModel; };
  auto count = [](double v, double limit) { return std::isfinite(v) && v >= 0 && v <= limit && v == std::floor(v); };
  auto key = [&](const runtime::Json& o, TuningKey* k) {
    return str(o, "kernel", &k->kernel) && str(o, "source_hash", &k->source_hash) && str(o, "arch", &k->arch) &&
           str(o, "dtypes", &k->dtypes) && str(o, "device", &k->device) && str(o, "tmc_version", &k->tmc_version);
  };
  Transaction t(db_);
  if (!t.ok()) return *error = Error(db_, "cannot write to '" + path_ + "'"), false;
  const runtime::Json* ms = doc.Get("measurements");
  const runtime::Json* bs = doc.Get("best");
  if (!ms || !bs || ms->kind != runtime::Json::Kind::Array || bs->kind != runtime::Json::Kind::Array)
    return *error = "the export has no \"best\" and \"measurements\" arrays", false;
  for (size_t i = 0; i < ms->items.size(); ++i) {
    const runtime::Json& o = ms->items[i];
    Measurement m;
    std::string shape;
    double regs = 0, spill = 0, smem = 0, created = 0;
    if (!key(o, &m.key) || !str(o, "shape", &shape) || !str(o, "params", &m.params) || !str(o, "status", &m.status) ||
        !num(o, "metric", &m.metric) || !str(o, "metric_kind", &m.metric_kind) || !num(o, "registers", &regs) ||
        !num(o, "spill_bytes", &spill) || !num(o, "shared_bytes", &smem) || !str(o, "reason", &m.reason) ||
        !num(o, "created", &created) || !ParseShapeText(shape))
      return *error = "measurement " + std::to_string(i) + " lacks a field or has a bad one", false;
    static const char* kStatuses[] = {"ok", "dropped", "wrong", "failed"};
    if (std::find(std::begin(kStatuses), std::end(kStatuses), m.status) == std::end(kStatuses) ||
        !valid_kind(m.metric_kind) || !std::isfinite(m.metric) || m.metric < 0 || !count(regs, 1 << 20) ||
        !count(spill, 1e9) || !count(smem, 1e9) || !count(created, 1e13) || !ParseShapeText(shape))
      return *error = "measurement " + std::to_string(i) + " has an invalid value", false;
    m.shape = *ParseShapeText(shape);
    m.registers = static_cast<int>(regs);
    m.spill_bytes = static_cast<int>(spill);
    m.shared_bytes = static_cast<int>(smem);
    m.created = static_cast<int64_t>(created);
    if (!InsertMeasurement(db_, m, error)) return false;
  }
  for (size_t i = 0; i < bs->items.size(); ++i) {
    const runtime::Json& o = bs->items[i];
    BestEntry b;
    std::string shape;
    double created = 0;
    if (!key(o, &b.key) || !str(o, "shape", &shape) || !str(o, "params", &b.params) || !num(o, "metric", &b.metric) ||
        !str(o, "metric_kind", &b.metric_kind) || !num(o, "created", &created) || !ParseShapeText(shape))
      return *error = "best entry " + std::to_string(i) + " lacks a field or has a bad one", false;
    if (!valid_kind(b.metric_kind) || !std::isfinite(b.metric) || b.metric < 0 || !count(created, 1e13))
      return *error = "best entry " + std::to_string(i) + " has an invalid value", false;
    b.shape = *ParseShapeText(shape);
    b.created = static_cast<int64_t>(created);
    if (!UpsertBest(db_, b, error)) return false;
  }
  return t.Commit() || (*error = Error(db_, "cannot commit"), false);
}

}  // namespace tmc::tune
