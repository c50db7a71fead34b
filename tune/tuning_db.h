// The tuning database: every measurement `tmc tune` makes, and the best
// candidate per kernel, arch, element types, device and shape. SQLite in
// WAL mode with a busy timeout, so that several `tmc tune` processes on
// one host can write to one file; `tmc db merge` combines the files of
// several hosts (docs/tuning.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tune/shape_bucket.h"

struct sqlite3;

namespace tmc::tune {

/// What a tuned result is valid for. `dtypes` are the kernel's element
/// types (its type parameters, `T=f16`); `device` the GPU's name, or
/// "model" for a ranking without a GPU.
struct TuningKey {
  std::string kernel, source_hash, arch, dtypes, device, tmc_version;
};

/// How a candidate's metric was obtained: "gpu-ms" (median kernel time on
/// the device) or "model" (the static model's estimate, docs/tuning.md).
/// A measured result always wins over a modelled one.
inline constexpr const char* kMeasured = "gpu-ms";
inline constexpr const char* kModel = "model";

struct Measurement {
  TuningKey key;
  Shape shape;
  std::string params;       // "BM=128,BN=64" (the tuned parameters)
  std::string status;       // ok | dropped (resources) | wrong (CPU check) | failed (compile or run)
  double metric = 0;        // lower is better (ok only)
  std::string metric_kind;  // kMeasured or kModel
  int registers = 0, spill_bytes = 0, shared_bytes = 0;
  std::string reason;       // why dropped, wrong or failed
  int64_t created = 0;      // seconds since the epoch
};

struct BestEntry {
  TuningKey key;
  Shape shape;
  std::string params, metric_kind;
  double metric = 0;
  int64_t created = 0;
};

class TuningDb {
 public:
  /// Opens the database at `path`: with `create`, read-write, creating it
  /// (and its directory) if needed; without, read-only. nullptr with
  /// `error` when it cannot, or when the file is not a tmc database.
  static std::unique_ptr<TuningDb> Open(const std::string& path, bool create, std::string* error);
  ~TuningDb();
  TuningDb(const TuningDb&) = delete;
  TuningDb& operator=(const TuningDb&) = delete;

  const std::string& path() const { return path_; }

  /// Appends (or replaces the same candidate's earlier) measurement.
  bool Record(const Measurement& m, std::string* error);
  /// Makes `e` the best for its key and shape unless a better one is
  /// there (measured beats modelled; then the lower metric).
  bool OfferBest(const BestEntry& e, std::string* error);

  /// Forgets the best entry of `key` and `shape` (a re-tune found it wrong).
  bool RemoveBest(const TuningKey& key, const Shape& shape, std::string* error);

  std::vector<BestEntry> AllBest(std::string* error = nullptr) const;
  std::vector<Measurement> AllMeasurements(std::string* error = nullptr) const;

  /// The best entry for `key` (its device ignored when empty) nearest to
  /// `shape`: the nearest power-of-two bucket, then the nearest exact
  /// shape, then the preferred device, then measured over modelled. With
  /// no shape (empty), only when one shape was tuned.
  std::optional<BestEntry> Lookup(const TuningKey& key, const Shape& shape) const;

  /// Copies every measurement of `other` and offers its best entries.
  bool Merge(const TuningDb& other, std::string* error);

  /// {"format": "tmc-tuning-db", "version": 1, "best": [...], "measurements": [...]}
  std::string ExportJson() const;
  bool ImportJson(const std::string& text, std::string* error);

 private:
  TuningDb() = default;
  bool Exec(const char* sql, std::string* error);
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// $TMC_TUNING_DB, else $XDG_CACHE_HOME/tmc/tuning.db, else
/// ~/.cache/tmc/tuning.db.
std::string DefaultDbPath();

}  // namespace tmc::tune
