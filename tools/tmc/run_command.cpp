// tmc run: compile, make seeded random inputs (never zeros), poison the
// output with NaN (or a sentinel for integers) so that unwritten elements
// show, run on the CPU executor or the GPU, evaluate the op's reference in
// f64, and print a small table. Checking modes report through diagnostics
// at the source line of the faulty access.
#include "tools/tmc/run_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <regex>
#include <tuple>

#include "codegen/cpu/cpu_jit.h"
#include "codegen/cpu/op_reference_jit.h"
#include "frontend/ast/ast_printer.h"
#include "frontend/compilation.h"
#include "ir/from_ast.h"
#include "ir/printer.h"
#include "ir/reference_eval.h"
#include "ir/transforms/pipeline.h"
#include "ir/transforms/simplify.h"
#include "runtime/cpu/cpu_executor.h"
#include "runtime/half.h"
#include "runtime/kernel_signature.h"
#include "runtime/output_check.h"
#include "runtime/tmc_runtime.hpp"
#include "tools/tmc/cpu_findings.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/emit.h"
#include "tools/tmc/profile_report.h"

#include <filesystem>
#include <sstream>


namespace tmc::driver {
namespace {

using ir::Expr;

// Host storage of one tensor, 64-byte aligned.
struct Storage {
  ScalarKind dtype;
  std::vector<int64_t> shape;
  std::vector<uint64_t> words;  // backing, aligned to 8
  char* data() { return reinterpret_cast<char*>(words.data()); }
  int64_t Size() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  size_t Bytes() const { return static_cast<size_t>(Size()) * static_cast<size_t>(ScalarBytes(dtype)); }
};

tmc_dtype Dtype(ScalarKind k) { return static_cast<tmc_dtype>(static_cast<int>(k)); }
double Get(const Storage& s, int64_t i) { return runtime::ElementValue(s.words.data(), Dtype(s.dtype), i); }
void Set(Storage& s, int64_t i, double v) { runtime::SetElement(s.data(), Dtype(s.dtype), i, v); }

// Integer IR expressions over the launch's symbols (shapes, grid formulas),
// in 64 bits with overflow and division by zero reported in `why`.
std::optional<int64_t> EvalInt(const Expr& e, const std::map<const ir::Var*, int64_t>& vars, std::string* why = nullptr) {
  auto no = [&](const char* what) -> std::optional<int64_t> {
    if (why && why->empty()) *why = what;
    return std::nullopt;
  };
  if (auto c = ir::AsConstInt(e)) return c;
  if (auto* v = e->as<ir::VarRef>()) {
    auto it = vars.find(v->var.get());
    if (it == vars.end()) return no("uses a value that is not known before the launch");
    return it->second;
  }
  if (auto* c = e->as<ir::Cast>()) return EvalInt(c->operand, vars, why);
  if (auto* u = e->as<ir::Unary>(); u && u->op == ir::UnaryOp::Not) {
    auto x = EvalInt(u->operand, vars, why);
    return x ? std::optional<int64_t>(*x == 0) : std::nullopt;
  }
  auto* b = e->as<ir::Binary>();
  if (!b) return no("is not an integer formula");
  auto x = EvalInt(b->lhs, vars, why), y = EvalInt(b->rhs, vars, why);
  if (!x || !y) return std::nullopt;
  int64_t r = 0;
  switch (b->op) {
    case ir::BinaryOp::Add: if (__builtin_add_overflow(*x, *y, &r)) return no("overflows 64 bits"); return r;
    case ir::BinaryOp::Sub: if (__builtin_sub_overflow(*x, *y, &r)) return no("overflows 64 bits"); return r;
    case ir::BinaryOp::Mul: if (__builtin_mul_overflow(*x, *y, &r)) return no("overflows 64 bits"); return r;
    case ir::BinaryOp::Div:
    case ir::BinaryOp::Mod:
      if (*y == 0) return no("divides by zero");
      if (*x == INT64_MIN && *y == -1) return no("overflows 64 bits");
      return b->op == ir::BinaryOp::Div ? *x / *y : *x % *y;
    case ir::BinaryOp::Min: return std::min(*x, *y);
    case ir::BinaryOp::Max: return std::max(*x, *y);
    // Launch conditions: comparisons and logic give 1 or 0.
    case ir::BinaryOp::Lt: return *x < *y;
    case ir::BinaryOp::Le: return *x <= *y;
    case ir::BinaryOp::Gt: return *x > *y;
    case ir::BinaryOp::Ge: return *x >= *y;
    case ir::BinaryOp::Eq: return *x == *y;
    case ir::BinaryOp::Ne: return *x != *y;
    case ir::BinaryOp::And: return *x != 0 && *y != 0;
    case ir::BinaryOp::Or: return *x != 0 || *y != 0;
    default: return no("is not an integer formula");
  }
}

// A scalar argument from --arg, checked against the parameter's type.
std::optional<double> ParseScalarArg(const std::string& text, ScalarKind t, std::string* why) {
  if (t == ScalarKind::Bool) {
    if (text == "true" || text == "1") return 1.0;
    if (text == "false" || text == "0") return 0.0;
    *why = "expected true or false";
    return std::nullopt;
  }
  char* end = nullptr;
  if (IsFloat(t)) {
    double v = std::strtod(text.c_str(), &end);
    if (*end || text.empty()) {
      *why = "expected a number";
      return std::nullopt;
    }
    return v;
  }
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (*end || text.empty() || errno) {
    *why = "expected an integer";
    return std::nullopt;
  }
  bool in_range = v < 0 ? IsSigned(t) && v >= IntegerMin(t) : static_cast<uint64_t>(v) <= IntegerMax(t);
  if (!in_range) {
    *why = std::string("out of range for ") + std::string(ScalarName(t));
    return std::nullopt;
  }
  return static_cast<double>(v);
}

// Where a kernel lives: the file itself, or one of its imports.
// The launch conditions of `fn` (`where BC >= C`) for the shapes given by
// name; true when they hold or cannot be evaluated (a missing shape is
// reported later). `failed` receives the first that does not hold.
bool ConditionsHold(const ir::Function& fn, const std::map<std::string, int64_t>& shapes, std::string* failed,
                    size_t* failed_index = nullptr) {
  std::map<const ir::Var*, int64_t> vars;
  for (const ir::Param& p : fn.params)
    if (p.is_shape_symbol)
      if (auto it = shapes.find(p.var->name); it != shapes.end()) vars[p.var.get()] = it->second;
  for (size_t i = 0; i < fn.launch_conditions.size(); ++i) {
    const Expr& c = fn.launch_conditions[i];
    std::string why;
    std::optional<int64_t> v = EvalInt(c, vars, &why);
    // A missing shape is reported later; a condition that divides by zero
    // or overflows for these shapes does not hold (as at a launch).
    if (!v && why.find("not known") != std::string::npos) continue;
    if (!v || *v == 0) {
      // As the metadata states it: `(true && (RY == 1)) || ...` simplified.
      *failed = ir::Print(ir::SimplifyExpr(c)) + (v ? "" : " (it " + why + ")");
      if (failed_index) *failed_index = i;
      return false;
    }
  }
  return true;
}

// Collects diagnostics without printing them (a candidate tried in a
// search whose errors only mean "not this one").
class Quiet : public DiagnosticConsumer {
 public:
  void Handle(const Diagnostic&) override {}
};

struct KernelSite {
  const ast::KernelDecl* kernel = nullptr;
  const sema::CheckedModule* module = nullptr;
};

KernelSite FindKernel(const sema::CheckedModule& m, const std::string& wanted, std::string* error) {
  KernelSite found;
  std::vector<std::string> names;
  auto scan = [&](const sema::CheckedModule& mod) {
    for (const ast::Decl* d : mod.ast->decls)
      if (auto* k = ast::dyn_cast<ast::KernelDecl>(d)) {
        names.push_back(k->name.name);
        if ((wanted.empty() ? !found.kernel : k->name.name == wanted) && !found.kernel) found = {k, &mod};
      }
  };
  scan(m);
  // Kernels of imported modules, when the file has none of that name (or,
  // without --kernel, none at all).
  if (!found.kernel || (wanted.empty() && names.empty()))
    for (const sema::CheckedModule* imp : m.imports) scan(*imp);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  if (!found.kernel) {
    *error = names.empty() ? "the file and its imports have no kernel"
                           : "no kernel '" + wanted + "' (the file and its imports have " + list + ")";
  } else if (wanted.empty() && names.size() > 1) {
    *error = "choose a kernel with --kernel (the file has " + list + ")";
    found = {};
  }
  return found;
}

const ast::OpDecl* ImplementedOp(const sema::CheckedModule& m, const ast::KernelDecl& k) {
  if (!k.implements) return nullptr;
  sema::Symbol* s = m.exports->LookupLocal(k.implements->name);
  for (const sema::CheckedModule* imp : m.imports)
    if (!s) s = imp->exports->LookupLocal(k.implements->name);
  return s && s->kind == sema::Symbol::Kind::Op ? static_cast<const ast::OpDecl*>(s->decl) : nullptr;
}

// The module as `tmc --emit=ptx` compiles it with the same flags (32-bit
// offsets, fma contraction), for a GPU run or a replay case: lowered again,
// since the CPU executor's lowering keeps 64-bit offsets and source indices.
struct GpuCode {
  std::string ptx, meta;
};

// Writes a replay case for bench/gpu/check.sh; returns an error or "".
std::string SaveCase(const std::string& dir, const GpuCode& code, const ir::Function& fn,
                     const std::vector<Storage>& initial, size_t output,
                     const std::vector<std::pair<size_t, double>>& scalars, const std::vector<double>& reference,
                     runtime::Tolerance tol) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create '" + dir + "': " + ec.message();
  std::ostringstream manifest, args;
  manifest << "kernel " << fn.name << "\ntolerance " << tol.rtol << "\natol " << tol.atol << "\n";
  size_t offset = 0, ti = 0;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ir::Param& p = fn.params[i];
    if (p.is_shape_symbol) continue;
    if (p.buffer) {
      Storage st = initial[ti];
      // The output as a run starts it: poisoned, so that the replay finds
      // unwritten elements too.
      if (ti == output) runtime::Poison(st.data(), Dtype(st.dtype), st.Size(), 0);
      manifest << "tensor " << ScalarName(st.dtype) << " " << offset << " " << st.Bytes() << " " << (ti == output ? 1 : 0)
               << " " << st.shape.size();
      for (int64_t d : st.shape) manifest << " " << d;
      manifest << "\n";
      args.write(reinterpret_cast<const char*>(st.words.data()), static_cast<std::streamsize>(st.Bytes()));
      offset += st.Bytes();
      ++ti;
    } else {
      for (auto& [si, v] : scalars)
        if (si == i) manifest << "scalar " << ScalarName(p.var->type) << " " << fmt::format("{:.17g}", v) << "\n";
    }
  }
  auto write = [&](const char* name, const std::string& bytes) -> std::string {
    std::string error;
    WriteFile((fs::path(dir) / name).string(), bytes, &error);
    return error;
  };
  std::string expected(reinterpret_cast<const char*>(reference.data()), reference.size() * sizeof(double));
  for (auto [name, bytes] : {std::pair<const char*, std::string>{"kernel.ptx", code.ptx},
                             {"meta.json", code.meta},
                             {"args.bin", args.str()},
                             {"manifest.txt", manifest.str()},
                             {"expected.bin", expected}})
    if (std::string e = write(name, bytes); !e.empty()) return e;
  return "";
}

// The run needs one kernel: the module's others are dropped before the
// passes and code generation (a tensor-core kernel beside it would cost
// seconds, more with --check-bounds).
std::unique_ptr<ir::Module> LowerOneKernel(const sema::CheckedModule& module, const std::string& kernel) {
  std::unique_ptr<ir::Module> m = ir::LowerFromAst(module);
  std::erase_if(m->functions, [&](const std::unique_ptr<ir::Function>& f) {
    return f->kind == ir::Function::Kind::Kernel && f->name != kernel;
  });
  return m;
}

}  // namespace

int RunKernelCommand(const Options& o, SourceManager& sm, DiagnosticEngine& diags) {
  auto fail = [&](const std::string& msg) {
    diags.Report(SourceRange{}, DiagKind::RunFailed, msg);
    return 1;
  };
  Compilation comp(sm, diags, FrontendOptions(o));
  sema::CheckedModule* m = comp.CompileFile(o.inputs.front());
  if (!m || !m->ok || diags.HasErrors()) return 1;

  // The kernel (in the file or an import), and the op it implements.
  std::string error;
  KernelSite site = FindKernel(*m, o.kernel, &error);
  if (!site.kernel) return fail(error);
  const ast::KernelDecl* kernel = site.kernel;
  const ast::OpDecl* op = ImplementedOp(*site.module, *kernel);

  std::unique_ptr<ir::Module> module = LowerOneKernel(*site.module, kernel->name.name);
  ir::PassContext ctx{&diags, o.sm, o.arch};
  ctx.keep_source_indices = o.check_bounds;  // per-dimension bounds checks
  std::string log;
  if (!ir::RunPipeline(*module, ctx, {}, &log) || diags.HasErrors()) return 1;
  const ir::Function* fn = nullptr;
  for (const auto& f : module->functions)
    if (f->kind == ir::Function::Kind::Kernel && f->name == kernel->name.name) fn = f.get();
  if (!fn) return fail("kernel '" + kernel->name.name + "' was not compiled");

  // Launch conditions (`where BC >= C`): the candidate compiled by default
  // may not serve these shapes; then the first candidate, in the order the
  // values are listed, whose conditions hold is chosen, as a launch would.
  std::unique_ptr<Quiet> chosen_quiet;
  std::unique_ptr<DiagnosticEngine> chosen_diags;
  std::unique_ptr<Compilation> chosen_comp;
  std::string chosen;  // "BC=1024"
  size_t failed_index = 0;
  if (std::string failed; !ConditionsHold(*fn, o.shapes, &failed, &failed_index)) {
    const sema::KernelInstance& inst = site.module->kernels.at(kernel->name.name);
    bool found = false;
    std::string tried;
    std::string shape_values;
    for (const auto& [name, v] : o.shapes) shape_values += (shape_values.empty() ? "" : ", ") + name + "=" + std::to_string(v);
    // A condition that names no parameter the search may change (`K % 8
    // == 0`) fails for every candidate: say so at once.
    if (failed_index < inst.launch_conditions.size()) {
      std::string text = ast::PrintExpr(inst.launch_conditions[failed_index]);
      bool searchable = false;
      for (const auto& [p, values] : inst.ct_candidates) {
        if (o.defines.count(p) || o.define_lists.count(p) || values.size() < 2) continue;
        if (std::regex_search(text, std::regex("\\b" + p + "\\b"))) searchable = true;
      }
      if (!searchable)
        return fail("kernel '" + kernel->name.name + "' does not serve these shapes (" + shape_values + "): " + failed +
                    " does not hold, and no compile-time parameter changes it");
    }
    // Element types are the user's tensors' types: searched never.
    std::map<std::string, int64_t> types;
    for (const auto& [p, v] : inst.ct_values)
      if (DecodeTypeValue(v)) types[p] = v;
    // Closest to the compiled candidate first (fewest parameters changed),
    // then in the order listed: a parameter that no condition mentions
    // (a vector width) keeps its default while the condition's is searched.
    auto space = CandidateSpace(inst, o);
    std::stable_sort(space.begin(), space.end(),
                     [&](const auto& a, const auto& b) { return ChangedParams(inst, a) < ChangedParams(inst, b); });
    for (const auto& combo : space) {
      bool other_type = false;
      for (const auto& [p, v] : combo) other_type = other_type || (types.count(p) && types[p] != v);
      if (other_type) continue;
      // The same source manager: reports of the chosen candidate's run
      // name its lines as they name the others'.
      auto quiet = std::make_unique<Quiet>();
      auto cdiags = std::make_unique<DiagnosticEngine>(sm, *quiet);
      CompileOptions copts = FrontendOptions(o);
      std::string label;
      for (const auto& [p, v] : combo) {
        copts.check.kernel_defines[kernel->name.name][p] = v;
        label += (label.empty() ? "" : ", ") + p + "=" + CtValueString(v);
      }
      auto ccomp = std::make_unique<Compilation>(sm, *cdiags, copts);
      sema::CheckedModule* cm = ccomp->CompileFile(o.inputs.front());
      if (!cm || !cm->ok || cdiags->HasErrors()) continue;  // excluded by a compile-time 'where'
      KernelSite csite = FindKernel(*cm, o.kernel, &error);
      if (!csite.kernel) continue;
      std::unique_ptr<ir::Module> cmod = LowerOneKernel(*csite.module, kernel->name.name);
      ir::PassContext cctx{cdiags.get(), o.sm, o.arch};
      cctx.keep_source_indices = o.check_bounds;
      if (!ir::RunPipeline(*cmod, cctx, {}, &log) || cdiags->HasErrors()) continue;
      const ir::Function* cfn = nullptr;
      for (const auto& f : cmod->functions)
        if (f->kind == ir::Function::Kind::Kernel && f->name == kernel->name.name) cfn = f.get();
      if (!cfn || !ConditionsHold(*cfn, o.shapes, &failed)) {
        tried += (tried.empty() ? "" : "; ") + label;
        continue;
      }
      site = csite;
      kernel = csite.kernel;
      op = ImplementedOp(*site.module, *kernel);
      module = std::move(cmod);
      fn = cfn;
      chosen = label;
      chosen_quiet = std::move(quiet);
      chosen_diags = std::move(cdiags);
      chosen_comp = std::move(ccomp);
      found = true;
      break;
    }
    if (!found)
      return fail("no candidate of kernel '" + kernel->name.name + "' serves these shapes (" + shape_values + ")" +
                  (tried.empty() ? std::string() : "; tried " + tried) + ": " + failed + " does not hold" +
                  (tried.empty() ? std::string() : " for the last"));
  }

  // Shape symbols.
  std::map<const ir::Var*, int64_t> values;
  std::map<std::string, int64_t> unused = o.shapes;
  for (const ir::Param& p : fn->params) {
    if (!p.is_shape_symbol) continue;
    auto it = o.shapes.find(p.var->name);
    if (it == o.shapes.end()) return fail("shape symbol '" + p.var->name + "' needs a value: --shape " + p.var->name + "=...");
    if (it->second > INT32_MAX) return fail("shape symbol '" + p.var->name + "' must be below 2^31");
    values[p.var.get()] = it->second;
    unused.erase(p.var->name);
  }
  if (!unused.empty()) return fail("kernel '" + fn->name + "' has no shape symbol '" + unused.begin()->first + "'");

  // Scalar arguments: --arg, else the documented defaults.
  std::vector<std::string> scalar_names;
  for (const ir::Param& p : fn->params)
    if (!p.buffer && !p.is_shape_symbol) scalar_names.push_back(p.var->name);
  if (std::string e = UnknownScalarArgError("kernel '" + fn->name + "'", scalar_names, o.args); !e.empty()) return fail(e);

  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Storage> tensors;
  std::vector<uint64_t> slots(fn->params.size(), 0);
  std::vector<std::pair<size_t, double>> scalars;  // param index, value
  std::vector<std::string> tensor_names;
  // Scalars first: with the shapes they give the grid, which is checked
  // before any tensor is made (a grid over the limit is refused at once).
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const ir::Param& p = fn->params[i];
    if (p.buffer || p.is_shape_symbol) continue;
    double v = 1;  // the documented default: 1, 1.0 or true
    if (auto it = o.args.find(p.var->name); it != o.args.end()) {
      std::string why;
      auto parsed = ParseScalarArg(it->second, p.var->type, &why);
      if (!parsed)
        return fail("invalid value '" + it->second + "' for scalar parameter '" + p.var->name + "' of type " +
                    std::string(ScalarName(p.var->type)) + ": " + why);
      v = *parsed;
    }
    scalars.emplace_back(i, v);
    if (IsInteger(p.var->type)) values[p.var.get()] = static_cast<int64_t>(v);
  }
  // The grid: each dimension positive and within the hardware's limits.
  int64_t grid[3] = {1, 1, 1};
  const int64_t* kGridLimit = runtime::kMaxGridDim;
  for (size_t g = 0; g < fn->grid.size(); ++g) {
    std::string why;
    auto v = EvalInt(fn->grid[g], values, &why);
    std::string text = ir::Print(fn->grid[g]);
    if (text.size() > 2 && text.front() == '(' && text.back() == ')') text = text.substr(1, text.size() - 2);
    std::string formula = "grid dimension " + std::to_string(g) + " (" + text + ")";
    if (!v) return fail(formula + " " + why + " for these shapes");
    if (*v <= 0) return fail(formula + " is " + std::to_string(*v) + " for these shapes; it must be positive");
    if (*v > kGridLimit[g])
      return fail(formula + " is " + std::to_string(*v) + " for these shapes, over the limit of " +
                  std::to_string(kGridLimit[g]) + " blocks in that dimension");
    grid[g] = *v;
  }
  if (std::string e = runtime::ClusterGridError(grid, fn->cluster.data()); !e.empty()) return fail(e + " for these shapes");

  for (size_t i = 0; i < fn->params.size(); ++i) {
    const ir::Param& p = fn->params[i];
    if (p.buffer) {
      Storage s;
      s.dtype = p.buffer->elem;
      for (const Expr& d : p.buffer->shape) {
        std::string why;
        auto v = EvalInt(d, values, &why);
        if (!v || *v <= 0)
          return fail("cannot compute the shape of '" + p.buffer->name + "': dimension " + ir::Print(d) + " " +
                      (v ? "is " + std::to_string(*v) + ", not positive" : why));
        s.shape.push_back(*v);
      }
      // As the runtime's checks before a launch (and the GPU's encoding).
      if (p.buffer->tma && !p.buffer->tma_box.empty()) {
        std::string why = runtime::TmaShapeError(s.shape, static_cast<size_t>(ScalarBytes(s.dtype)));
        if (!why.empty()) return fail("'" + p.buffer->name + "' " + why);
      }
      // Host memory is finite: refuse before allocating, not by crashing.
      constexpr double kMaxBytes = 8.0 * (1ull << 30);
      // In double: the element count of a large shape may overflow 64 bits.
      double elems = 1;
      for (int64_t d : s.shape) elems *= static_cast<double>(d);
      double total = elems * ScalarBytes(s.dtype);
      for (const Storage& prev : tensors) total += static_cast<double>(prev.Bytes());
      if (total > kMaxBytes) return fail(fmt::format("the tensors need {:.1f} GiB; tmc run allows 8 GiB", total / (1ull << 30)));
      s.words.assign((s.Bytes() + 7) / 8 + 8, 0);
      for (int64_t e = 0; e < s.Size(); ++e) Set(s, e, RandomInputValue(s.dtype, rng, uniform));
      tensor_names.push_back(p.buffer->name);
      tensors.push_back(std::move(s));
    }
  }
  if (tensors.empty()) return fail("kernel '" + fn->name + "' has no tensor parameter to check");
  // The outputs: the op's results, which are the kernel's last parameters;
  // without an op, the last tensor.
  size_t output_count = op ? op->results.size() : 1;
  if (output_count > tensors.size()) return fail("the kernel has fewer tensors than op '" + op->name.name + "' has results");
  std::vector<size_t> outputs;
  for (size_t r = tensors.size() - output_count; r < tensors.size(); ++r) outputs.push_back(r);
  const std::vector<Storage> inputs = tensors;  // the arguments before any run

  // Argument slots, in parameter order.
  size_t t = 0;
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const ir::Param& p = fn->params[i];
    if (p.buffer) {
      slots[i] = reinterpret_cast<uint64_t>(tensors[t++].data());
    } else if (p.is_shape_symbol) {
      int32_t v = static_cast<int32_t>(values.at(p.var.get()));
      std::memcpy(&slots[i], &v, 4);
    }
  }
  for (auto& [i, v] : scalars) {
    Storage tmp{fn->params[i].var->type, {1}, {0}};
    Set(tmp, 0, v);
    slots[i] = tmp.words[0];
  }
  // Runs the kernel once, with the output initialised by `pattern` (0, 1:
  // poison; -1: zero); reports the checker's findings.
  double best_ms = 0, spread_ms = 0;
  bool bench_done = false;
  std::optional<codegen::CpuModule> cpu;
  // --profile: the first run's (a confirming rerun would count twice).
  runtime::CpuProfile profile;
  bool profiled = false;
  // Compiled once, on first use (a confirming rerun reuses it).
  std::optional<GpuCode> gpu;
  auto gpu_code = [&]() -> const GpuCode* {
    if (gpu) return &*gpu;
    Options ptx_options = o;
    ptx_options.emit = "ptx";
    GpuCode code;
    code.ptx = EmitModule(*site.module, ptx_options, diags, {}, &code.meta);
    if (diags.HasErrors()) return nullptr;  // reported
    return &gpu.emplace(std::move(code));
  };
  auto execute = [&](int pattern) -> bool {
    for (size_t i = 0; i < tensors.size(); ++i) tensors[i].words = inputs[i].words;
    for (size_t r : outputs) {
      Storage& out = tensors[r];
      if (pattern < 0) std::fill(out.words.begin(), out.words.end(), 0);
      else runtime::Poison(out.data(), Dtype(out.dtype), out.Size(), pattern);
    }
    if (o.target == "cuda") {
      tmc_context* cu = nullptr;
      if (tmc_init(0, &cu) != TMC_SUCCESS) return fail(tmc_last_error()), false;
      const GpuCode* code = gpu_code();
      if (!code) return false;
      tmc_module* mod = nullptr;
      tmc_kernel* k = nullptr;
      if (tmc_module_load(cu, code->ptx.c_str(), code->ptx.size() + 1, code->meta.c_str(), &mod) != TMC_SUCCESS ||
          tmc_module_get_kernel(mod, fn->name.c_str(), &k) != TMC_SUCCESS)
        return fail(tmc_last_error()), false;
      std::vector<tmc_arg> args;
      std::vector<uint64_t> device;
      size_t ti = 0;
      for (size_t i = 0; i < fn->params.size(); ++i) {
        const ir::Param& p = fn->params[i];
        if (p.is_shape_symbol) continue;
        tmc_arg a{};
        if (p.buffer) {
          Storage& st = tensors[ti++];
          uint64_t d = 0;
          if (tmc_malloc(cu, st.Bytes(), &d) != TMC_SUCCESS || tmc_copy_to_device(cu, d, st.data(), st.Bytes()) != TMC_SUCCESS)
            return fail(tmc_last_error()), false;
          device.push_back(d);
          a.is_tensor = 1;
          a.tensor.data = d;
          a.tensor.dtype = Dtype(st.dtype);
          a.tensor.rank = static_cast<int>(st.shape.size());
          for (size_t r = 0; r < st.shape.size(); ++r) a.tensor.shape[r] = st.shape[r];
        } else {
          a.dtype = Dtype(p.var->type);
          for (auto& [si, v] : scalars)
            if (si == i) {
              if (IsFloat(p.var->type)) a.value.f = v;
              else a.value.i = static_cast<int64_t>(v);
            }
        }
        args.push_back(a);
      }
      if (tmc_launch(k, args.data(), static_cast<int>(args.size()), nullptr) != TMC_SUCCESS ||
          tmc_synchronize(cu) != TMC_SUCCESS)
        return fail(tmc_last_error()), false;
      for (size_t r : outputs)
        if (tmc_copy_to_host(cu, tensors[r].data(), device[r], tensors[r].Bytes()) != TMC_SUCCESS)
          return fail(tmc_last_error()), false;
      if (o.bench && !bench_done && tmc::TimeLaunches(cu, k, args, 3, 20, &best_ms, &spread_ms) != TMC_SUCCESS)
        return fail(tmc_last_error()), false;
      bench_done = true;
      return true;
    }
    if (!cpu) {
      cpu.emplace();
      std::string err;
      if (!codegen::CompileForCpu(*module, o.check_bounds || o.check_races || !o.profile.empty(), ExecutorSymbols(),
                                  &*cpu, &err))
        return fail("CPU compilation failed: " + err), false;
    }
    runtime::CpuLaunch launch;
    launch.kernel = cpu->kernels.at(fn->name);
    launch.name = fn->name.c_str();
    launch.args = slots.data();
    std::copy(grid, grid + 3, launch.grid);
    for (size_t b = 0; b < fn->block.size(); ++b) launch.block[b] = fn->block[b];
    std::copy(fn->cluster.begin(), fn->cluster.end(), launch.cluster);
    launch.shared_bytes = fn->shared_bytes;
    launch.check_races = o.check_races;
    launch.timeout_s = o.timeout;
    if (!o.profile.empty() && !profiled) {
      launch.profile = &profile;
      profiled = true;
    }
    auto t0 = std::chrono::steady_clock::now();
    std::vector<runtime::CpuFinding> findings = runtime::RunOnCpu(launch);
    best_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!findings.empty()) {
      ReportFindings(findings, *cpu, *fn, launch.block[0] * launch.block[1] * launch.block[2], o.timeout, diags);
      return false;
    }
    if (o.bench && !bench_done) {
      std::vector<double> times;
      for (int r = 0; r < 5; ++r) {
        auto a = std::chrono::steady_clock::now();
        runtime::RunOnCpu(launch);
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
      }
      std::sort(times.begin(), times.end());
      best_ms = times[times.size() / 2];
      spread_ms = times.back() - times.front();
      bench_done = true;
    }
    return true;
  };

  bool poison = o.init_output == "nan";
  if (!execute(poison ? 0 : -1)) return 1;
  // Never-written elements still hold the poison. An integer kernel may
  // write the poison's value itself: such elements count as unwritten
  // only if they also keep the second pattern in a second run.
  std::vector<std::vector<bool>> unwritten(outputs.size());
  if (poison) {
    bool suspects = false;
    for (size_t r = 0; r < outputs.size(); ++r) {
      Storage& out = tensors[outputs[r]];
      unwritten[r].assign(static_cast<size_t>(out.Size()), false);
      for (int64_t e = 0; e < out.Size(); ++e) {
        bool p = runtime::IsPoison(out.data(), Dtype(out.dtype), e, 0);
        unwritten[r][static_cast<size_t>(e)] = p;
        suspects |= p && !IsFloat(out.dtype);
      }
    }
    if (suspects) {
      std::vector<std::vector<uint64_t>> first;
      for (size_t r : outputs) first.push_back(tensors[r].words);
      if (!execute(1)) return 1;
      for (size_t r = 0; r < outputs.size(); ++r) {
        Storage& out = tensors[outputs[r]];
        if (IsFloat(out.dtype)) {
          out.words = first[r];
          continue;
        }
        for (int64_t e = 0; e < out.Size(); ++e)
          unwritten[r][static_cast<size_t>(e)] =
              unwritten[r][static_cast<size_t>(e)] && runtime::IsPoison(out.data(), Dtype(out.dtype), e, 1);
        out.words = first[r];
        for (int64_t e = 0; e < out.Size(); ++e)
          if (unwritten[r][static_cast<size_t>(e)]) Set(out, e, 0);  // not compared; keep the element defined
      }
    }
  }

  // With --profile=json, standard output is the JSON document alone.
  auto say = [&](const std::string& text) {
    if (o.profile != "json") std::fputs(text.c_str(), stdout);
  };
  std::string shapes;
  for (auto& [n, v] : o.shapes) shapes += (shapes.empty() ? "" : ", ") + n + "=" + std::to_string(v);
  say(fmt::format("kernel:     {} ({}, {}){}\n", fn->name, o.target, shapes.empty() ? "no shapes" : shapes,
                  chosen.empty() ? "" : ", candidate " + chosen + " chosen at launch"));
  auto unwritten_line = [&](size_t r) {
    int64_t n = std::count(unwritten[r].begin(), unwritten[r].end(), true);
    return poison ? fmt::format("{} of {}", n, tensors[outputs[r]].Size()) : std::string("not checked (--init-output=zero)");
  };
  int64_t op_flops = 0;
  bool pass = true;
  for (const auto& u : unwritten) pass = pass && std::count(u.begin(), u.end(), true) == 0;
  if (!op) {
    say(fmt::format("reference:  none (the kernel implements no op)\nunwritten:  {}\nresult:     {}\n", unwritten_line(0),
                    pass ? "PASS" : "FAIL"));
  } else {
    // Op parameters take the kernel's tensors and scalars, in order.
    size_t si = 0, ti = 0;
    std::vector<ir::HostTensor> ordered;
    for (const ast::Param& p : op->params) {
      ir::HostTensor h;
      if (p.type.is_tensor) {
        if (ti >= inputs.size()) return fail("the kernel has fewer tensors than op '" + op->name.name + "'");
        h.shape = inputs[ti].shape;
        for (int64_t e = 0; e < inputs[ti].Size(); ++e) h.values.push_back(Get(inputs[ti], e));
        ++ti;
      } else {
        if (si >= scalars.size()) return fail("the kernel has fewer scalars than op '" + op->name.name + "'");
        h.values.push_back(scalars[si++].second);
      }
      ordered.push_back(std::move(h));
    }
    // The outputs' shapes give the result dimensions no input determines.
    std::vector<ir::HostTensor> refs(outputs.size());
    for (size_t r = 0; r < outputs.size(); ++r) refs[r].shape = tensors[outputs[r]].shape;
    if (!codegen::EvaluateOpCompiled(*op, ordered, &refs, &error, &op_flops)) return fail("reference evaluation failed: " + error);
    if (!o.save_case.empty()) {
      if (outputs.size() != 1) return fail("--save-case replays kernels with one output; '" + fn->name + "' has " +
                                           std::to_string(outputs.size()));
      const GpuCode* code = gpu_code();
      if (!code) return 1;
      runtime::Tolerance tol = runtime::DefaultTolerance(Dtype(tensors[outputs[0]].dtype));
      if (o.rtol) tol.rtol = *o.rtol;
      if (o.atol) tol.atol = *o.atol;
      std::string e = SaveCase(o.save_case, *code, *fn, inputs, outputs[0], scalars, refs[0].values, tol);
      if (!e.empty()) return fail("--save-case: " + e);
    }
    say(fmt::format("reference:  op {} (f64)\n", op->name.name));
    // Every output against its result; one output keeps the short form.
    for (size_t r = 0; r < outputs.size(); ++r) {
      Storage& out = tensors[outputs[r]];
      tmc_dtype out_type = Dtype(out.dtype);
      const ir::HostTensor& ref = refs[r];
      if (ref.Size() != out.Size())
        return fail("result '" + op->results[r].name.name + "' of the op and output '" + tensor_names[outputs[r]] +
                    "' of the kernel differ in size");
      runtime::Tolerance tol = runtime::DefaultTolerance(out_type);
      if (o.rtol) tol.rtol = *o.rtol;
      if (o.atol) tol.atol = *o.atol;
      runtime::Comparison c = runtime::CompareOutput(out.data(), out_type, out.Size(), ref.values.data(), tol, unwritten[r]);
      pass = pass && c.pass;
      if (outputs.size() > 1)
        say(fmt::format("output:     {} (result '{}' of {})\n", tensor_names[outputs[r]], op->results[r].name.name,
                        op->name.name));
      if (c.compared > 0) {
        say(fmt::format("rel. L2:    {:.3e}   (rtol {:.0e}, atol {:.0e} for {})\n", c.rel_l2, tol.rtol, tol.atol, ScalarName(out.dtype)));
        say(fmt::format("max abs:    {:.3e}   ({} of {} compared elements outside atol + rtol * |ref|)\n", c.max_abs, c.outside, c.compared));
      } else {
        say("rel. L2:    none (no element where both are finite)\n");
      }
      if (c.nan || c.ref_nan)
        say(fmt::format("NaN:        {} of {} (the reference has {}; {} where they disagree)\n", c.nan, out.Size(), c.ref_nan,
                        c.nonfinite_mismatch));
      if (c.inf || c.ref_inf)
        say(fmt::format("Inf:        {} of {} (the reference has {}; {} where NaN or inf disagree)\n", c.inf, out.Size(),
                        c.ref_inf, c.nonfinite_mismatch));
      say(fmt::format("unwritten:  {}\n", unwritten_line(r)));
    }
    say(fmt::format("result:     {}\n", pass ? "PASS" : "FAIL"));
  }
  if (!o.profile.empty()) {
    ProfileRun run;
    run.kernel = fn->name;
    for (const auto& [n, v] : fn->ct_values)
      run.compile_time += (run.compile_time.empty() ? "" : ", ") + n + "=" + CtValueString(v);
    run.shapes = o.shapes;
    run.result = pass ? "PASS" : "FAIL";
    run.blocks = grid[0] * grid[1] * grid[2];
    run.block_threads = 1;
    for (int64_t d : fn->block) run.block_threads *= d;
    for (const Storage& st : tensors) run.min_bytes += static_cast<int64_t>(st.Bytes());
    run.tensors = static_cast<int>(tensors.size());
    if (o.profile == "json") std::fputs(ProfileJson(profile, *cpu, sm, run).c_str(), stdout);
    else std::fputs(("\n" + ProfileText(profile, *cpu, sm, run)).c_str(), stdout);
  }
  if (o.bench) {
    double bytes = 0;
    for (const Storage& st : tensors) bytes += static_cast<double>(st.Bytes());
    fmt::print("time:       {:.3f} ms median, spread {:.3f} ms ({})\n", best_ms, spread_ms, o.target);
    if (op_flops > 0) fmt::print("compute:    {:.4g} GFLOP/s (the op's {} flops)\n", static_cast<double>(op_flops) / (best_ms * 1e6), op_flops);
    fmt::print("bandwidth:  {:.4g} GB/s (each tensor read or written once)\n", bytes / (best_ms * 1e6));
  }
  return pass ? 0 : 1;
}

}  // namespace tmc::driver
