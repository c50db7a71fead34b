#include "tools/tmc/tuned_params.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "support/json_string.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/op_kernel.h"
#include "tools/tmc/version.h"
#include "tune/compile_cache.h"
#include "tune/shape_bucket.h"
#include "tune/tuning_db.h"

namespace tmc::driver {
namespace {

// Discards diagnostics: the lookup compile is repeated by the real one.
class Silent : public DiagnosticConsumer {
 public:
  void Handle(const Diagnostic&) override {}
};

}  // namespace

std::string SourceHash(const SourceManager& sm) {
  std::string all;
  // Contents only, not paths: the same file named another way
  // (./k.tm, an absolute path, another -I spelling) is the same source.
  for (uint32_t f = 0; f < sm.FileCount(); ++f) {
    all += std::to_string(sm.Contents(f).size()) + '\0';
    all += sm.Contents(f);
  }
  return tune::CompileCache::Digest(all);
}

std::string FixedValuesText(const sema::KernelInstance& k, const Options& o, const std::string& kernel) {
  std::string text;
  for (const auto& [name, v] : k.ct_values)
    if (DecodeTypeValue(v) || DefinedByUser(o, kernel, name)) text += (text.empty() ? "" : ",") + name + "=" + CtValueString(v);
  return text;
}

std::optional<ParamValues> ParseParamValues(const std::string& text) {
  auto items = tune::SplitAssignments(text);
  if (!items) return std::nullopt;
  ParamValues out;
  for (const auto& [name, value] : *items) {
    int64_t n = 0;
    if (value == "true") n = 1;
    else if (value == "false") n = 0;
    else if (auto type = ParseScalar(value)) n = EncodeTypeValue(*type);
    else {
      char* end = nullptr;
      n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end) return std::nullopt;
    }
    out.emplace_back(name, n);
  }
  return out;
}

bool DefinedByUser(const Options& o, const std::string& kernel, const std::string& param) {
  return o.defines.count(param) && (o.kernel.empty() || o.kernel == kernel) &&
         (o.defines_scope.empty() || o.defines_scope.count(kernel));
}

bool ApplyTunedParams(Options* o) {
  bool use_db = !o->no_tuning_db;
  std::string path = o->db_path.empty() ? tune::DefaultDbPath() : o->db_path;
  std::error_code ec;
  if (use_db && !std::filesystem::exists(path, ec)) use_db = false;
  // Without a database there is nothing to look up; --shape is still
  // checked (a misspelt symbol would silently choose nothing).
  // (tmc run checks its kernel's symbols itself, and its kernel may come
  // from an import.)
  bool check_symbols = o->command != "run" && o->graph.empty() && !o->shapes.empty();
  if (!use_db && !check_symbols) return true;
  std::unique_ptr<tune::TuningDb> db;
  std::string error;
  if (use_db && !(db = tune::TuningDb::Open(path, /*create=*/false, &error)))
    std::fprintf(stderr, "tmc: warning: %s; compiling without tuned parameters\n", error.c_str());
  SourceManager sm;
  Silent silent;
  DiagnosticEngine diags(sm, silent);
  Compilation comp(sm, diags, FrontendOptions(*o));
  sema::CheckedModule* m = comp.CompileFile(o->inputs.front());
  if (!m || diags.HasErrors()) return true;  // the compile proper reports it
  if (check_symbols) {
    std::set<std::string> symbols;
    for (const ast::Decl* d : m->ast->decls)
      if (auto* k = ast::dyn_cast<ast::KernelDecl>(d))
        for (const ast::Param& p : k->params)
          if (p.type.is_tensor)
            for (const ast::Expr* dim : p.type.dims)
              if (auto* n = ast::dyn_cast<ast::NameExpr>(dim)) symbols.insert(n->name);
    for (const auto& [name, v] : o->shapes)
      if (!symbols.count(name)) {
        std::string list;
        for (const std::string& sym : symbols) list += (list.empty() ? "" : ", ") + sym;
        std::fprintf(stderr, "tmc: error: --shape gives '%s', which no kernel of '%s' has (%s)\n", name.c_str(),
                     o->inputs.front().c_str(), list.empty() ? "it has no shape symbols" : ("they have " + list).c_str());
        return false;
      }
  }
  if (!db) return true;
  std::string hash = SourceHash(sm);
  std::vector<tune::Measurement> measured;
  bool measured_read = false;
  for (const ast::Decl* d : m->ast->decls) {
    auto* k = ast::dyn_cast<ast::KernelDecl>(d);
    if (!k) continue;
    const std::string& name = k->name.name;
    const sema::KernelInstance& inst = m->kernels.at(name);
    if (inst.ct_candidates.empty()) continue;
    // A graph's kernel: its shape from the graph's (--shape gives the
    // graph's symbols), as tmc tune --graph keyed it.
    tune::Shape shape(o->shapes.begin(), o->shapes.end());
    for (const Options::GraphKernel& gk : o->graph_kernels)
      if (gk.name == name && !o->shapes.empty()) {
        std::map<std::string, int64_t> shapes;
        std::map<std::string, std::string> args;
        std::string missing;
        BindGraphKernel(*o, *k, gk, &shapes, &args, &missing);
        shape = tune::Shape(shapes.begin(), shapes.end());
      }
    // Entries tuned with these -D values first; else those tuned with the
    // element types alone, where -D overrides values: then the best
    // candidate measured there that agrees with every -D value (another
    // combination may break the kernel's `where`), else the defaults.
    tune::TuningKey key{name, hash, o->arch, FixedValuesText(inst, *o, name), "", kTmcVersion};
    std::optional<tune::BestEntry> best = db->Lookup(key, shape);
    std::string note;
    if (!best) {
      Options types_only = *o;
      types_only.defines.clear();
      key.dtypes = FixedValuesText(inst, types_only, name);
      best = db->Lookup(key, shape);
      std::optional<ParamValues> values = best ? ParseParamValues(best->params) : std::nullopt;
      auto agrees = [&](const ParamValues& pv) {
        for (const auto& [p, v] : pv)
          if (DefinedByUser(*o, name, p) && o->defines.at(p) != v) return false;
        return true;
      };
      if (values && !agrees(*values)) {
        if (!measured_read) measured = db->AllMeasurements(), measured_read = true;
        const tune::Measurement* pick = nullptr;
        for (const tune::Measurement& me : measured) {
          std::optional<ParamValues> pv = ParseParamValues(me.params);
          if (me.status != "ok" || me.key.kernel != name || me.key.source_hash != hash || me.key.arch != o->arch ||
              me.key.dtypes != key.dtypes || me.key.tmc_version != kTmcVersion || me.key.device != best->key.device ||
              me.shape != best->shape || !pv || !agrees(*pv))
            continue;
          if (!pick || me.metric < pick->metric) pick = &me;
        }
        if (pick) {
          best->params = pick->params;
          best->metric = pick->metric;
          note = ", the best with the -D values";
        } else {
          best.reset();
        }
      }
    }
    std::optional<ParamValues> values = best ? ParseParamValues(best->params) : std::nullopt;
    if (best && !values)
      std::fprintf(stderr, "tmc: warning: the tuning database has unreadable values '%s' for '%s'; using the defaults\n",
                   best->params.c_str(), name.c_str());
    auto& sources = o->param_sources[name];
    for (const auto& [p, v] : inst.ct_values) {
      if (DefinedByUser(*o, name, p)) {
        sources[p] = "-D";
        continue;
      }
      // One candidate value (a graph's kernel has its element types fixed
      // this way): nothing to choose.
      auto cands = std::find_if(inst.ct_candidates.begin(), inst.ct_candidates.end(),
                                [&](const auto& c) { return c.first == p; });
      if (cands != inst.ct_candidates.end() && cands->second.size() == 1) {
        sources[p] = "fixed (its only candidate)";
        continue;
      }
      sources[p] = "default";
      if (!values) continue;
      for (const auto& [tp, tv] : *values)
        if (tp == p) {
          o->kernel_defines[name][p] = tv;
          sources[p] = "tuned (" + path + ", " + best->metric_kind + " " + std::to_string(best->metric) +
                       ", tuned for " + tune::ShapeText(best->shape) + note + ")";
        }
    }
  }
  return true;
}

std::string MetadataWithParamSources(const std::string& metadata, const Options& o) {
  size_t end = metadata.rfind('}');
  if (end == std::string::npos || o.param_sources.empty()) return metadata;
  std::string entry = ",\n  \"parameter_sources\": {";
  bool first_kernel = true;
  for (const auto& [kernel, sources] : o.param_sources) {
    entry += std::string(first_kernel ? "" : ",") + "\n    " + JsonString(kernel) + ": {";
    first_kernel = false;
    bool first = true;
    for (const auto& [p, s] : sources) {
      entry += std::string(first ? "" : ", ") + JsonString(p) + ": " + JsonString(s);
      first = false;
    }
    entry += "}";
  }
  entry += "\n  }";
  size_t last = metadata.find_last_not_of(" \n", end - 1);
  return metadata.substr(0, last + 1) + entry + "\n}\n";
}

}  // namespace tmc::driver
