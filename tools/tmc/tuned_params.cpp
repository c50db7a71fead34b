#include "tools/tmc/tuned_params.h"

#include <filesystem>

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
  for (uint32_t f = 0; f < sm.FileCount(); ++f) {
    all += std::string(sm.Path(f)) + '\0' + std::to_string(sm.Contents(f).size()) + '\0';
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
  return o.defines.count(param) && (o.kernel.empty() || o.kernel == kernel);
}

void ApplyTunedParams(Options* o) {
  if (o->no_tuning_db) return;
  std::string path = o->db_path.empty() ? tune::DefaultDbPath() : o->db_path;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  std::string error;
  auto db = tune::TuningDb::Open(path, /*create=*/false, &error);
  if (!db) {
    std::fprintf(stderr, "tmc: warning: %s; compiling without tuned parameters\n", error.c_str());
    return;
  }
  SourceManager sm;
  Silent silent;
  DiagnosticEngine diags(sm, silent);
  Compilation comp(sm, diags, FrontendOptions(*o));
  sema::CheckedModule* m = comp.CompileFile(o->inputs.front());
  if (!m || diags.HasErrors()) return;
  std::string hash = SourceHash(sm);
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
    // element types alone, -D overriding their values.
    tune::TuningKey key{name, hash, o->arch, FixedValuesText(inst, *o, name), "", kTmcVersion};
    std::optional<tune::BestEntry> best = db->Lookup(key, shape);
    if (!best) {
      Options types_only = *o;
      types_only.defines.clear();
      key.dtypes = FixedValuesText(inst, types_only, name);
      best = db->Lookup(key, shape);
    }
    std::optional<ParamValues> values = best ? ParseParamValues(best->params) : std::nullopt;
    auto& sources = o->param_sources[name];
    for (const auto& [p, v] : inst.ct_values) {
      if (DefinedByUser(*o, name, p)) {
        sources[p] = "-D";
        continue;
      }
      sources[p] = "default";
      if (!values) continue;
      for (const auto& [tp, tv] : *values)
        if (tp == p) {
          o->kernel_defines[name][p] = tv;
          sources[p] = "tuned (" + path + ", " + best->metric_kind + " " + std::to_string(best->metric) +
                       ", tuned for " + tune::ShapeText(best->shape) + ")";
        }
    }
  }
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
