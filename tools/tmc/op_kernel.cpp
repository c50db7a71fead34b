#include "tools/tmc/op_kernel.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>

#include "frontend/ast/ast_printer.h"
#include "frontend/compilation.h"
#include "graph/ast_walk.h"
#include "graph/auto_schedule.h"
#include "graph/fuse.h"
#include "graph/launch_plan.h"
#include "runtime/kernel_signature.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/run_graph.h"

namespace tmc::driver {
namespace {

class DropDiagnostics : public DiagnosticConsumer {
 public:
  void Handle(const Diagnostic&) override {}
};

// The input file checked without a word: the compile that follows reports
// its diagnostics once. -D values belong to the kernels to come, so they
// apply to none here.
struct QuietCompile {
  DropDiagnostics drop;
  DiagnosticEngine diags;
  Compilation comp;
  sema::CheckedModule* module = nullptr;

  QuietCompile(const Options& o, SourceManager& sm, CompileOptions copts)
      : diags(sm, drop), comp(sm, diags, std::move(copts)) {
    diags.SetErrorLimit(0);
    sema::CheckedModule* m = comp.CompileFile(o.inputs.front());
    if (m && m->ok && !diags.HasErrors()) module = m;
  }
};

CompileOptions PlainOptions(const Options& o) {
  Options plain = o;
  plain.kernel.clear();
  CompileOptions copts = FrontendOptions(plain);
  copts.check.defines.clear();
  return copts;
}

// "f16[M, 768]" -> {"M", "768"}.
std::vector<std::string> DimsOf(const std::string& type) {
  std::vector<std::string> dims;
  size_t open = type.find('[');
  if (open == std::string::npos) return dims;
  std::string inner = type.substr(open + 1, type.rfind(']') - open - 1);
  for (size_t at = 0; at <= inner.size();) {
    size_t comma = std::min(inner.find(',', at), inner.size());
    std::string d = inner.substr(at, comma - at);
    d.erase(0, d.find_first_not_of(' '));
    d.erase(d.find_last_not_of(' ') + 1);
    dims.push_back(d);
    at = comma + 1;
  }
  return dims;
}

// The alternatives of each kernel of the plan, which the runtime tries in
// order, launching the first whose conditions hold:
// - a rewritten hand-written kernel with launch conditions (matmul_tc_t
//   needs N % 8 == 0) is followed by the fused op's automatic schedule,
//   which serves every shape;
// - a kernel whose launch conditions name compile-time parameters serves
//   only some shapes with its default values (the automatic row
//   reduction: a warp per row for rows of at most 1024, a block per row
//   beyond); copies of it for the other values (NAME_TPR32) follow it.
// Each copy is checked once (a compile-time `where` may exclude one).
void AddAlternatives(Options* o, SourceManager& sm, graph::FusedGraph* fg) {
  auto compile = [&](const Options& with, const std::string& extra) {
    CompileOptions copts = PlainOptions(with);
    copts.main_appendix = o->op_source + extra;
    return std::make_unique<QuietCompile>(with, sm, copts);
  };
  auto first = compile(*o, "");
  if (!first->module) {
    for (graph::FusedKernel& k : fg->kernels) k.alternatives = {k.kernel_name};
    return;
  }
  // The automatic fallbacks.
  std::vector<std::vector<std::string>> lists;
  std::map<std::string, std::string> fallback_sources;
  for (graph::FusedKernel& k : fg->kernels) {
    lists.push_back({k.kernel_name});
    auto it = first->module->kernels.find(k.kernel_name);
    if (it == first->module->kernels.end() || it->second.launch_conditions.empty() || k.kernel_source.empty() ||
        k.schedule.rfind("automatic", 0) == 0)
      continue;
    // The conditions over the graph's constant dimensions: all true needs
    // no fallback; one false means the kernel never serves this graph.
    std::map<std::string, int64_t> known;
    for (const ast::Decl* d : first->module->ast->decls) {
      auto* kd = ast::dyn_cast<ast::KernelDecl>(d);
      if (!kd || kd->name.name != k.kernel_name) continue;
      for (size_t a = 0; a < kd->params.size() && a < k.args.size(); ++a) {
        std::vector<std::string> dims = DimsOf(k.args[a].type);
        for (size_t x = 0; x < kd->params[a].type.dims.size() && x < dims.size(); ++x)
          if (auto* sym = ast::dyn_cast<ast::NameExpr>(kd->params[a].type.dims[x]);
              sym && graph::IsNumber(dims[x]))
            known[sym->name] = std::stoll(dims[x]);
      }
    }
    bool all_hold = true;
    std::string fails;
    for (const ast::Expr* c : it->second.launch_conditions) {
      std::string text = ast::PrintExpr(c), error;
      std::optional<int64_t> v = runtime::EvalFormula(text, known, &error);
      all_hold = all_hold && v && *v;
      if (v && !*v && fails.empty()) {
        fails = text;
        for (const auto& [n, x] : known)
          if (std::regex_search(text, std::regex("\\b" + n + "\\b"))) fails += ", " + n + " = " + std::to_string(x);
      }
    }
    if (all_hold) continue;
    std::vector<std::string> ops;
    const ast::OpDecl* op = graph::FindOp(*first->module, k.op_name, &ops);
    if (!op) continue;
    graph::AutoKernel fallback = graph::ScheduleOp(*op, graph::VisibleNames(*first->module));
    std::string text = "\n// The automatic schedule, for the shapes that '" + k.kernel_name + "' does not serve\n" +
                       fallback.source;
    if (!compile(*o, text)->module) continue;
    o->op_source += text;
    fallback_sources[fallback.name] = fallback.source;
    if (fails.empty()) {
      lists.back().push_back(fallback.name);
      continue;
    }
    fg->notes.push_back("kernel " + std::to_string(lists.size() - 1) + " of graph '" + o->graph +
                        "' is scheduled automatically: " +
                        (k.schedule.rfind("kernel '", 0) == 0 ? k.schedule.substr(0, k.schedule.find('\'', 8) + 1) : "its kernel") +
                        " needs " + fails.substr(0, fails.find(',')) +
                        ", which does not hold for" + fails.substr(fails.find(',') + 1));
    lists.back() = {fallback.name};
    k.kernel_name = fallback.name;
    k.schedule = std::string("automatic (rule: ") + graph::RuleName(fallback.rule) + ")";
  }
  auto all = compile(*o, "");
  for (size_t i = 0; i < fg->kernels.size(); ++i) {
    graph::FusedKernel& k = fg->kernels[i];
    k.alternatives.clear();
    std::string copies;
    for (const std::string& name : lists[i]) {
      k.alternatives.push_back(name);
      if (!all->module) continue;
      auto it = all->module->kernels.find(name);
      if (it == all->module->kernels.end()) continue;
      const sema::KernelInstance& inst = it->second;
      std::vector<std::pair<std::string, std::vector<int64_t>>> searched;
      for (const auto& [p, values] : inst.ct_candidates) {
        auto value = std::find_if(inst.ct_values.begin(), inst.ct_values.end(), [&](const auto& v) { return v.first == p; });
        if (values.size() < 2 || value == inst.ct_values.end() || DecodeTypeValue(value->second)) continue;
        bool named = false;
        for (const ast::Expr* c : inst.launch_conditions)
          named = named || std::regex_search(ast::PrintExpr(c), std::regex("\\b" + p + "\\b"));
        if (named) searched.push_back({p, values});
      }
      if (searched.empty()) continue;
      std::vector<std::map<std::string, int64_t>> combos = {{}};
      for (const auto& [p, values] : searched) {
        std::vector<std::map<std::string, int64_t>> next;
        for (const auto& c : combos)
          for (int64_t v : values) {
            next.push_back(c);
            next.back()[p] = v;
          }
        combos = std::move(next);
      }
      // The kernel's text: the rewritten one, or the generated fallback.
      const std::string& source = name == k.kernel_name ? k.kernel_source : fallback_sources[name];
      for (const auto& combo : combos) {
        std::string suffix;
        bool is_default = true;
        for (const auto& [p, v] : combo) {
          suffix += "_" + p + std::to_string(v);
          for (const auto& cv : inst.ct_values) is_default = is_default && (cv.first != p || cv.second == v);
        }
        if (is_default) continue;
        std::string copy_name = name + suffix;
        std::string copy = std::regex_replace(source, std::regex("\\bkernel\\s+" + name + "\\b"), "kernel " + copy_name,
                                              std::regex_constants::format_first_only);
        Options trial = *o;
        trial.kernel_defines[copy_name] = combo;
        if (!compile(trial, copies + "\n" + copy)->module) continue;
        o->kernel_defines[copy_name] = combo;
        k.alternatives.push_back(copy_name);
        copies += "\n" + copy;
      }
    }
    o->op_source += copies;
  }
}

}  // namespace

bool PrepareOpKernel(Options* o, SourceManager& sm, DiagnosticEngine& diags) {
  QuietCompile quiet(*o, sm, PlainOptions(*o));
  sema::CheckedModule* m = quiet.module;
  if (!m) return true;
  const std::string& path = o->inputs.front();
  std::vector<std::string> known;
  const ast::OpDecl* op = graph::FindOp(*m, o->op, &known);
  if (!op) {
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "ops: " : ", ") + k;
    diags.Report(SourceRange{}, DiagKind::UnknownOp, o->op, o->op, path, list.empty() ? "it has no ops" : list);
    return false;
  }
  graph::AutoKernel k = graph::ScheduleOp(*op, graph::VisibleNames(*m));
  if (k.slow) diags.Report(op->name.range, DiagKind::AutoScheduleSlow, op->name.name, k.why_serial);
  o->op_source = "\n// ---- generated by tmc --op " + o->op + "\n" + k.source;
  o->kernel = k.name;
  return true;
}

bool PrepareGraphKernels(Options* o, SourceManager& sm, DiagnosticEngine& diags) {
  CompileOptions copts = PlainOptions(*o);
  QuietCompile quiet(*o, sm, copts);
  sema::CheckedModule* m = quiet.module;
  if (!m) return true;
  const std::string& path = o->inputs.front();
  const ast::GraphDecl* decl = nullptr;
  std::string known;
  for (const ast::Decl* d : m->ast->decls)
    if (auto* gd = ast::dyn_cast<ast::GraphDecl>(d)) {
      if (gd->name.name == o->graph) decl = gd;
      known += (known.empty() ? "graphs: " : ", ") + gd->name.name;
    }
  if (!decl) {
    diags.Report(SourceRange{}, DiagKind::UnknownGraph, o->graph, o->graph, path, known.empty() ? "it has no graphs" : known);
    return false;
  }
  graph::Graph g = graph::BuildGraph(*decl, *m);
  graph::Partition p = graph::PartitionGraph(g, *m, !o->no_fuse);
  graph::FusedGraph fg = graph::FuseGraph(g, p, *m, sm);
  // The fused ops (and the rewritten kernels) checked once more, to
  // schedule the rest automatically from the ops as checked.
  std::string text;
  for (const graph::FusedKernel& k : fg.kernels) text += "\n" + k.op_source + (k.kernel_source.empty() ? "" : "\n" + k.kernel_source);
  copts.main_appendix = text;
  copts.main_imports = fg.imports;
  QuietCompile with_fused(*o, sm, copts);
  if (with_fused.module) graph::ScheduleFused(&fg, *with_fused.module);
  o->op_source = "\n// ---- generated by tmc --graph " + o->graph + "\n";
  o->graph_kernels.clear();
  for (const graph::FusedKernel& k : fg.kernels) o->op_source += "\n" + k.op_source + "\n" + k.kernel_source;
  o->main_imports = fg.imports;
  AddAlternatives(o, sm, &fg);
  for (const std::string& note : fg.notes) diags.Report(decl->name.range, DiagKind::FusionFallback, note);
  for (const graph::FusedKernel& k : fg.kernels) {
    Options::GraphKernel& gk = o->graph_kernels.emplace_back();
    gk.name = k.kernel_name;
    gk.alternatives = k.alternatives;
    for (const graph::PlanArg& a : k.args) {
      gk.arg_types.push_back(a.type);
      gk.arg_values.push_back(a.value);
    }
  }
  o->graph_plan = graph::LaunchPlanJson(g, fg, graph::PlanLaunches(g, fg));
  o->main_imports = fg.imports;
  // tmc run checks the plan against the unfused graph: one op per
  // operation, evaluated one by one.
  if (o->command == "run" && o->kernel.empty()) {
    graph::FusedGraph unfused = graph::FuseGraph(g, graph::PartitionGraph(g, *m, false), *m, sm,
                                                 RunGraphReferencePrefix(o->graph));
    o->op_source += "\n// ---- the unfused reference of graph " + o->graph + "\n";
    for (const graph::FusedKernel& k : unfused.kernels) o->op_source += "\n" + k.op_source;
  }
  return true;
}

std::string MetadataWithPlan(const std::string& metadata, const std::string& plan) {
  size_t end = metadata.rfind('}');
  if (end == std::string::npos || plan.empty()) return metadata;
  size_t last = metadata.find_last_not_of(" \n", end - 1);
  return metadata.substr(0, last + 1) + ",\n  \"graphs\": [\n" + plan + "\n  ]\n}\n";
}

namespace {

// The value of a graph dimension: a number, a --shape symbol, or + - * /
// and parentheses over them (`2 * N`). Nothing when a symbol is missing
// (`missing` names it).
std::optional<int64_t> EvalDim(const std::string& text, const std::map<std::string, int64_t>& shapes,
                               std::string* missing) {
  size_t at = 0;
  std::function<std::optional<int64_t>()> sum;
  auto skip = [&] {
    while (at < text.size() && text[at] == ' ') ++at;
  };
  std::function<std::optional<int64_t>()> atom = [&]() -> std::optional<int64_t> {
    skip();
    if (at < text.size() && text[at] == '(') {
      ++at;
      auto v = sum();
      skip();
      if (at < text.size() && text[at] == ')') ++at;
      return v;
    }
    size_t start = at;
    while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_')) ++at;
    std::string word = text.substr(start, at - start);
    if (word.empty()) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(word[0]))) return std::stoll(word);
    if (auto it = shapes.find(word); it != shapes.end()) return it->second;
    *missing = word;
    return std::nullopt;
  };
  auto product = [&]() -> std::optional<int64_t> {
    auto v = atom();
    for (skip(); v && at < text.size() && (text[at] == '*' || text[at] == '/'); skip()) {
      char op = text[at++];
      auto r = atom();
      if (!r || (op == '/' && *r == 0)) return std::nullopt;
      v = op == '*' ? *v * *r : *v / *r;
    }
    return v;
  };
  sum = [&]() -> std::optional<int64_t> {
    auto v = product();
    for (skip(); v && at < text.size() && (text[at] == '+' || text[at] == '-'); skip()) {
      char op = text[at++];
      auto r = product();
      if (!r) return std::nullopt;
      v = op == '+' ? *v + *r : *v - *r;
    }
    return v;
  };
  return sum();
}

bool IsNumber(const std::string& s) {
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && *end == 0;
}

}  // namespace

void BindGraphKernel(const Options& o, const ast::KernelDecl& k, const Options::GraphKernel& gk,
                     std::map<std::string, int64_t>* shapes, std::map<std::string, std::string>* args,
                     std::string* missing) {
  shapes->clear();
  args->clear();
  for (size_t a = 0; a < k.params.size() && a < gk.arg_types.size(); ++a) {
    const ast::Param& p = k.params[a];
    if (!p.type.is_tensor) {
      // A literal passes its value; a graph parameter its --arg value,
      // else tmc run's default for scalars (the same in every kernel).
      const std::string& v = gk.arg_values[a];
      if (auto given = o.args.find(v); given != o.args.end()) (*args)[p.name.name] = given->second;
      else if (IsNumber(v) || v == "true" || v == "false") (*args)[p.name.name] = v;
      continue;
    }
    std::vector<std::string> dims = DimsOf(gk.arg_types[a]);
    for (size_t d = 0; d < p.type.dims.size() && d < dims.size(); ++d) {
      auto* sym = ast::dyn_cast<ast::NameExpr>(p.type.dims[d]);
      if (!sym) continue;
      std::optional<int64_t> value = EvalDim(dims[d], o.shapes, missing);
      if (value) (*shapes)[sym->name] = *value;
    }
  }
}

bool CheckGraphShapeSymbols(const Options& o, DiagnosticEngine& diags) {
  // Every --shape symbol must be one of the graph's (a typo would go unnoticed).
  std::set<std::string> symbols;
  for (const Options::GraphKernel& gk : o.graph_kernels)
    for (const std::string& t : gk.arg_types)
      for (const std::string& d : DimsOf(t))
        for (size_t at = 0; at < d.size();) {
          if (!std::isalpha(static_cast<unsigned char>(d[at])) && d[at] != '_') {
            ++at;
            continue;
          }
          size_t start = at;
          while (at < d.size() && (std::isalnum(static_cast<unsigned char>(d[at])) || d[at] == '_')) ++at;
          symbols.insert(d.substr(start, at - start));
        }
  for (const auto& [name, value] : o.shapes)
    if (!symbols.count(name)) {
      std::string list;
      for (const std::string& sym : symbols) list += (list.empty() ? "" : ", ") + sym;
      diags.Report(SourceRange{}, DiagKind::RunFailed,
                   "graph '" + o.graph + "' has no shape symbol '" + name + "' (it has " + list + ")");
      return false;
    }
  return true;
}

int RunGraphKernels(const Options& o, SourceManager& sm, DiagnosticEngine& diags,
                    const std::function<int(const Options&)>& run) {
  Compilation comp(sm, diags, FrontendOptions(o));
  sema::CheckedModule* m = comp.CompileFile(o.inputs.front());
  if (!m || !m->ok || diags.HasErrors()) return 1;
  if (!CheckGraphShapeSymbols(o, diags)) return 1;
  int rc = 0;
  bool found = false;
  for (size_t i = 0; i < o.graph_kernels.size() && rc == 0; ++i) {
    const Options::GraphKernel& gk = o.graph_kernels[i];
    if (!o.kernel.empty() && gk.name != o.kernel) continue;
    found = true;
    const ast::KernelDecl* k = nullptr;
    for (const ast::Decl* d : m->ast->decls)
      if (auto* kd = ast::dyn_cast<ast::KernelDecl>(d); kd && kd->name.name == gk.name) k = kd;
    if (!k) return 1;
    Options ko = o;
    ko.kernel = gk.name;
    std::string missing;
    BindGraphKernel(o, *k, gk, &ko.shapes, &ko.args, &missing);
    if (!missing.empty()) {
      diags.Report(SourceRange{}, DiagKind::RunFailed, "graph '" + o.graph + "' needs a value for its shape symbol '" +
                                                           missing + "' (--shape " + missing + "=...)");
      return 1;
    }
    std::printf("== kernel %zu of %zu of graph '%s': %s\n", i + 1, o.graph_kernels.size(), o.graph.c_str(),
                gk.name.c_str());
    std::fflush(stdout);
    rc |= run(ko);
  }
  if (!found) {
    std::string list;
    for (const Options::GraphKernel& gk : o.graph_kernels) list += (list.empty() ? "" : ", ") + gk.name;
    diags.Report(SourceRange{}, DiagKind::RunFailed, "graph '" + o.graph + "' has no kernel '" + o.kernel + "' (its kernels: " + list + ")");
    return 1;
  }
  return rc;
}

}  // namespace tmc::driver
