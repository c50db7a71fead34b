// tmc db: show, export, import and merge tuning databases.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "frontend/compilation.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/tune_command.h"
#include "tune/tuning_db.h"

namespace tmc::driver {
namespace {

std::string When(int64_t t) {
  char buf[32];
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm parts{};
  if (t < 0 || !gmtime_r(&tt, &parts) || !std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &parts))
    return "time " + std::to_string(t);
  return buf;
}

std::string Show(const tune::TuningDb& db) {
  std::string out = fmt::format("tuning database {}\n\nbest parameters:\n", db.path());
  std::vector<tune::BestEntry> best = db.AllBest();
  if (best.empty()) out += "  (none)\n";
  for (const tune::BestEntry& b : best)
    out += fmt::format("  {} [{}{}{}] on {} for {}: {}  ({} {:.4g}; tmc {}, source {}, {})\n", b.key.kernel, b.key.arch,
                       b.key.dtypes.empty() ? "" : ", ", b.key.dtypes, b.key.device, tune::ShapeText(b.shape),
                       b.params, b.metric_kind, b.metric, b.key.tmc_version, b.key.source_hash.substr(0, 12),
                       When(b.created));
  std::vector<tune::Measurement> ms = db.AllMeasurements();
  out += fmt::format("\nmeasurements: {}\n", ms.size());
  for (const tune::Measurement& m : ms)
    out += fmt::format("  {} [{}] {} {}: {:<8} {}{}\n", m.key.kernel, m.key.device, tune::ShapeText(m.shape), m.params,
                       m.status, m.status == "ok" ? fmt::format("{} {:.4g}, {} registers", m.metric_kind, m.metric, m.registers) : "",
                       m.reason.empty() ? "" : (m.status == "ok" ? "; " : "") + m.reason.substr(0, m.reason.find('\n')));
  return out;
}

}  // namespace

int DbCommand(const Options& o) {
  const std::string& action = o.inputs[0];
  std::string path = o.db_path.empty() ? tune::DefaultDbPath() : o.db_path;
  std::string error;
  bool writes = action == "import" || action == "merge";
  auto db = tune::TuningDb::Open(path, /*create=*/writes, &error);
  if (!db) {
    std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
    return 1;
  }
  if (action == "show") {
    if (std::fputs(Show(*db).c_str(), stdout) < 0 || std::fflush(stdout) != 0) {
      std::fprintf(stderr, "tmc: error: cannot write to standard output: %s\n", std::strerror(errno));
      return 1;
    }
    return 0;
  }
  if (action == "export") {
    std::string json = db->ExportJson();
    if (o.output.empty() || o.output == "-") {
      if (std::fputs(json.c_str(), stdout) < 0 || std::fflush(stdout) != 0) {
        std::fprintf(stderr, "tmc: error: cannot write the export to standard output: %s\n", std::strerror(errno));
        return 1;
      }
      return 0;
    }
    if (!WriteFile(o.output, json, &error)) {
      std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
      return 1;
    }
    return 0;
  }
  if (action == "import") {
    std::string text;
    if (!ReadFile(o.inputs[1], &text, &error) || !db->ImportJson(text, &error)) {
      std::fprintf(stderr, "tmc: error: cannot import '%s': %s\n", o.inputs[1].c_str(), error.c_str());
      return 1;
    }
    std::fprintf(stderr, "tmc: imported '%s' into %s\n", o.inputs[1].c_str(), path.c_str());
    return 0;
  }
  for (size_t i = 1; i < o.inputs.size(); ++i) {
    auto other = tune::TuningDb::Open(o.inputs[i], /*create=*/false, &error);
    if (!other || !db->Merge(*other, &error)) {
      std::fprintf(stderr, "tmc: error: cannot merge '%s': %s\n", o.inputs[i].c_str(), error.c_str());
      return 1;
    }
    std::fprintf(stderr, "tmc: merged '%s' into %s\n", o.inputs[i].c_str(), path.c_str());
  }
  return 0;
}

}  // namespace tmc::driver
