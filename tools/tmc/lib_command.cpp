// tmc lib: compile, then generate C (a header and a source embedding the
// images and metadata), then build it with the system's C compiler and ar.
// The functions are generated from the metadata alone (the same JSON the
// runtime checks launches against), so every kernel and graph the
// compiler can describe gets one.
#include "tools/tmc/lib_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "codegen/nvptx/ptxas.h"
#include "frontend/compilation.h"
#include "runtime/graph_plan.h"
#include "runtime/json.h"
#include "runtime/kernel_signature.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/emit.h"
#include "tools/tmc/op_kernel.h"
#include "tools/tmc/tuned_params.h"
#include "tools/tmc/version.h"
#include "tune/tuning_db.h"


namespace tmc::driver {
namespace {

namespace fs = std::filesystem;

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Names a generated function, library or parameter must not take: C and
// C++ keywords, the types and macros the header uses, `main`, the
// runtime's own prefix, and the C library's common functions (a kernel
// named `malloc` would replace libc's in every program that links it).
std::string ReservedWhy(const std::string& name) {
  static const std::set<std::string> kKeywords = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
      "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char16_t",
      "char32_t", "char8_t", "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast",
      "co_await", "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false",
      "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
      "private", "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template",
      "this", "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor",
      "xor_eq", "NULL", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
      "uint64_t", "main"};
  static const std::set<std::string> kLibc = {
      "abort", "abs", "atexit", "atof", "atoi", "atol", "bsearch", "calloc", "ceil", "clock", "close", "cos", "div",
      "errno", "exit", "exp", "fabs", "fclose", "fflush", "floor", "fmax", "fmin", "fopen", "fprintf", "fputs",
      "fread", "free", "fwrite", "getenv", "labs", "log", "longjmp", "malloc", "memcmp", "memcpy", "memmove", "memset",
      "open", "pow", "printf", "puts", "qsort", "raise", "rand", "read", "realloc", "round", "setjmp", "signal", "sin",
      "snprintf", "sprintf", "sqrt", "srand", "strcat", "strcmp", "strcpy", "strlen", "strncmp", "strncpy", "system",
      "tan", "time", "write", "stdin", "stdout", "stderr", "pthread_mutex_lock", "pthread_mutex_unlock"};
  if (kKeywords.count(name)) return "a C or C++ keyword or a name the header uses";
  if (kLibc.count(name)) return "a function of the C library";
  if (name.rfind("tmc_", 0) == 0 || name.rfind("TMC_", 0) == 0) return "the runtime's prefix";
  return "";
}

const char* CType(tmc_dtype d) {
  switch (d) {
    case TMC_BOOL: return "bool";
    case TMC_I8: return "int8_t";
    case TMC_I16: return "int16_t";
    case TMC_I32: return "int32_t";
    case TMC_I64: return "int64_t";
    case TMC_U8: return "uint8_t";
    case TMC_U16: return "uint16_t";
    case TMC_U32: return "uint32_t";
    case TMC_U64: return "uint64_t";
    case TMC_F64: return "double";
    default: return "float";  // f32, and f16/bf16 scalars (converted by the runtime)
  }
}

bool IsFloatDtype(tmc_dtype d) { return d == TMC_F16 || d == TMC_BF16 || d == TMC_F32 || d == TMC_F64; }

// A parameter of a generated function.
struct CParam {
  std::string name;
  bool tensor = false, output = false;
  tmc_dtype dtype = TMC_F32;
  std::vector<std::string> shape;
};

struct CFunction {
  std::string name;      // the kernel's or graph's
  bool graph = false;
  size_t unit = 0;
  std::vector<size_t> variants;  // units of its tuned variants (shape-bucket dispatch)
  std::string summary;   // what it implements, compile-time values, conditions
  std::vector<CParam> params;
};

std::string ShapeText(const std::vector<std::string>& shape) {
  std::string s;
  for (const std::string& d : shape) s += (s.empty() ? "" : ", ") + d;
  return "[" + s + "]";
}

std::string ParamList(const CFunction& f) {
  std::string s;
  for (const CParam& p : f.params) {
    s += ", ";
    if (p.tensor) s += std::string(p.output ? "tmc_tensor* " : "const tmc_tensor* ") + p.name;
    else s += std::string(CType(p.dtype)) + " " + p.name;
  }
  return s;
}

std::string DocComment(const CFunction& f) {
  std::string s = "/* " + f.name + (f.graph ? " (graph)" : "") + ": " + f.summary + "\n";
  for (const CParam& p : f.params)
    s += fmt::format(" *   {:<10} {}{}{}\n", p.name, runtime::DtypeName(p.dtype), p.tensor ? ShapeText(p.shape) : " scalar",
                     p.tensor ? (p.output ? "  (output)" : "  (input)") : "");
  s += " * Tensors are device memory (tmc_malloc); shapes and types are checked\n"
       " * before the launch: a mismatch returns TMC_ERROR_SIGNATURE and launches\n"
       " * nothing (tmc_last_error() names the argument). `stream` may be NULL. */\n";
  return s;
}

void AppendBytes(std::string* out, const std::string& bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    *out += fmt::format("{}{}", i % 24 == 0 ? "\n  " : "", static_cast<unsigned>(static_cast<unsigned char>(bytes[i])));
    *out += ",";
  }
}

// `s` as the inside of a C string literal.
std::string CString(const std::string& s) {
  std::string out;
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\', out += static_cast<char>(ch);
    else if (ch < 0x20 || ch >= 0x7f || ch == '?') out += fmt::format("\\{:03o}", ch);  // '?': no trigraphs
    else out += static_cast<char>(ch);
  }
  return out;
}

int ArchNumber(const std::string& arch) { return std::atoi(arch.c_str() + 3); }  // sm_90a -> 90

std::string Command(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The runtime's header and library: --runtime-dir (or $TMC_RUNTIME_DIR:
// one directory with tmc_runtime.h and libtmc_runtime.so, or a prefix with
// include/tmc and lib), else installed beside tmc (PREFIX/bin/tmc,
// PREFIX/include/tmc, PREFIX/lib), else the build tree tmc was built in.
struct RuntimePaths {
  std::string include_dir, lib_dir;  // lib_dir: empty when no library was found
};

bool FindRuntime(const std::string& given, RuntimePaths* out, std::string* error) {
  std::error_code ec;
  auto has_lib = [&](const fs::path& d) {
    return fs::exists(d / "libtmc_runtime.so", ec) || fs::exists(d / "libtmc_runtime.a", ec);
  };
  auto try_prefix = [&](const fs::path& prefix) {
    if (!fs::exists(prefix / "include" / "tmc" / "tmc_runtime.h", ec)) return false;
    out->include_dir = (prefix / "include" / "tmc").string();
    for (const char* lib : {"lib", "lib64", "lib/x86_64-linux-gnu"})
      if (has_lib(prefix / lib)) out->lib_dir = (prefix / lib).string();
    return true;
  };
  auto try_flat = [&](const fs::path& dir) {
    if (!fs::exists(dir / "tmc_runtime.h", ec)) return false;
    out->include_dir = dir.string();
    if (has_lib(dir)) out->lib_dir = dir.string();
    return true;
  };
  const char* env = std::getenv("TMC_RUNTIME_DIR");
  std::string wanted = !given.empty() ? given : env && *env ? env : "";
  if (!wanted.empty()) {
    if (try_flat(wanted) || try_prefix(wanted)) return true;
    *error = "no tmc_runtime.h in '" + wanted + "' (nor in its include/tmc)";
    return false;
  }
  fs::path prefix = fs::path(SelfPath()).parent_path().parent_path();
  if (try_prefix(prefix)) return true;
  if (fs::exists(fs::path(TMC_RUNTIME_SOURCE_DIR) / "tmc_runtime.h", ec)) {
    out->include_dir = TMC_RUNTIME_SOURCE_DIR;
    if (has_lib(prefix / "runtime")) out->lib_dir = (prefix / "runtime").string();
    return true;
  }
  *error = "cannot find the runtime's header tmc_runtime.h beside tmc (" + prefix.string() +
           "/include/tmc) or in the sources it was built from; install tmc (cmake --install) or give --runtime-dir DIR";
  return false;
}

// The start of a kernel's launcher with tuned variants: the shape symbols
// bound from its tensor arguments, then the build tuned nearest to them
// (the database's rule: the fewest power-of-two buckets apart, summed over
// the symbols, then the smallest product of the dimensions' ratios, i.e.
// the sum of |log2 a - log2 b|), launched; the default build (which
// follows) when the nearest is it, when a variant fails (its launch
// conditions refuse the shapes, say), or for shapes outside (0, 2^40].
std::string Dispatch(const std::string& lib, const CFunction& f, const std::vector<LibUnit>& units, size_t n) {
  std::map<std::string, std::string> bound;  // symbol -> "args[i].tensor.shape[d]"
  for (size_t i = 0; i < f.params.size(); ++i)
    if (f.params[i].tensor)
      for (size_t d = 0; d < f.params[i].shape.size(); ++d)
        if (IsCIdentifier(f.params[i].shape[d]) && !bound.count(f.params[i].shape[d]))
          bound[f.params[i].shape[d]] = fmt::format("args[{}].tensor.shape[{}]", i, d);
  // Rows: (unit, shape); the default build's as unit SIZE_MAX.
  std::vector<std::pair<size_t, std::map<std::string, int64_t>>> rows;
  for (size_t u : f.variants)
    for (const auto& shape : units[u].variant_shapes) rows.push_back({u, shape});
  if (auto it = units[f.unit].default_shapes.find(f.name); it != units[f.unit].default_shapes.end())
    for (const auto& shape : it->second) rows.push_back({SIZE_MAX, shape});
  std::vector<std::string> symbols;
  for (const auto& [sym, v] : rows.empty() ? std::map<std::string, int64_t>{} : rows.front().second)
    if (bound.count(sym)) symbols.push_back(sym);
  if (symbols.empty()) return "";
  std::string table, now;
  for (const auto& [u, shape] : rows) {
    if (shape.size() != symbols.size()) continue;  // FindVariants keeps only full shapes
    std::string dims;
    for (const std::string& sym : symbols) dims += fmt::format("{}{}", dims.empty() ? "" : ", ", shape.at(sym));
    table += fmt::format("      {{{}, {{{}}}}},\n", u == SIZE_MAX ? "(size_t)-1" : std::to_string(u), dims);
  }
  for (size_t s = 0; s < symbols.size(); ++s) now += fmt::format("    now[{}] = {};\n", s, bound.at(symbols[s]));
  return fmt::format(
      "  {{\n"
      "    /* Shape-bucket dispatch over the tuned builds ({2}); (size_t)-1: the default build. */\n"
      "    static const struct {{ size_t unit; int64_t shape[{1}]; }} tuned[] = {{\n{3}    }};\n"
      "    int64_t now[{1}], buckets, best_buckets = -1;\n"
      "    double ratio, best_ratio = 0;\n"
      "    size_t i, best = 0;\n"
      "    int s, in_range = 1;\n"
      "    tmc_kernel* variant;\n"
      "{4}"
      "    for (s = 0; s < {1}; ++s) in_range = in_range && now[s] > 0 && now[s] <= ((int64_t)1 << 40);\n"
      "    for (i = 0; in_range && i < sizeof tuned / sizeof tuned[0]; ++i) {{\n"
      "      buckets = 0, ratio = 1;\n"
      "      for (s = 0; s < {1}; ++s) {{\n"
      "        int64_t a = {0}_bucket(now[s]), b = {0}_bucket(tuned[i].shape[s]);\n"
      "        buckets += a > b ? a - b : b - a;\n"
      "        ratio *= now[s] > tuned[i].shape[s] ? (double)now[s] / (double)tuned[i].shape[s]\n"
      "                                            : (double)tuned[i].shape[s] / (double)now[s];\n"
      "      }}\n"
      "      if (best_buckets < 0 || buckets < best_buckets || (buckets == best_buckets && ratio < best_ratio))\n"
      "        best = i, best_buckets = buckets, best_ratio = ratio;\n"
      "    }}\n"
      "    if (in_range && tuned[best].unit != (size_t)-1) {{\n"
      "      st = {0}_module(ctx, tuned[best].unit, &module);\n"
      "      if (st == TMC_SUCCESS) st = tmc_module_get_kernel(module, \"{5}\", &variant);\n"
      "      if (st == TMC_SUCCESS) st = tmc_launch(variant, args, {6}, stream);\n"
      "      if (st == TMC_SUCCESS) return st;\n"
      "      /* The variant cannot run these shapes here: the default build. */\n"
      "    }}\n"
      "  }}\n",
      lib, symbols.size(), fmt::format("{}", fmt::join(symbols, ", ")), table, now, f.name, n);
}

// A tuned variant of a kernel (shape-bucket dispatch).
struct KernelVariant {
  std::string kernel, params;
  ParamValues values;
  std::vector<std::map<std::string, int64_t>> shapes;  // the shapes it is the best for
};

// The tuned variants of each kernel of `only`: the database's best entries
// for it (this source, the library's first arch, its fixed values, this
// tmc; for each shape the entry the database's own lookup prefers:
// measured over modelled, then the lower metric) grouped by their values.
// A group whose values are the default build's (`m`'s) is no variant: its
// shapes go to `base->default_shapes`, so that calls near them keep the
// default build. Only shapes that name exactly the symbols the kernel's
// tensors bind count. None with --shape (one set for the library) or when
// -D sets one of the tuned parameters.
bool FindVariants(const Options& given, const Options& part, const SourceManager& sm, const sema::CheckedModule& m,
                  const std::vector<std::string>& only, LibUnit* base, std::vector<KernelVariant>* out) {
  if (given.no_tuning_db || !given.shapes.empty()) return true;
  std::string path = given.db_path.empty() ? tune::DefaultDbPath() : given.db_path;
  std::error_code ec;
  if (!fs::exists(path, ec)) return true;
  std::string error;
  std::unique_ptr<tune::TuningDb> db = tune::TuningDb::Open(path, /*create=*/false, &error);
  if (!db) {
    std::fprintf(stderr, "tmc: warning: %s; no shape-bucket dispatch\n", error.c_str());
    return true;
  }
  std::vector<tune::BestEntry> best = db->AllBest(&error);
  std::string hash = SourceHash(sm);
  for (const std::string& k : only) {
    auto inst = m.kernels.find(k);
    if (inst == m.kernels.end() || inst->second.ct_candidates.empty()) continue;
    std::set<std::string> bound;  // the symbols the kernel's tensor dimensions name
    for (const ast::Decl* d : m.ast->decls)
      if (auto* kd = ast::dyn_cast<ast::KernelDecl>(d); kd && kd->name.name == k)
        for (const ast::Param& p : kd->params)
          if (p.type.is_tensor)
            for (const ast::Expr* dim : p.type.dims)
              if (auto* n = ast::dyn_cast<ast::NameExpr>(dim)) bound.insert(n->name);
    std::string fixed = FixedValuesText(inst->second, part, k);
    std::map<tune::Shape, const tune::BestEntry*> per_shape;
    for (const tune::BestEntry& e : best) {
      if (e.key.kernel != k || e.key.source_hash != hash || e.key.arch != given.lib_archs.front() ||
          e.key.dtypes != fixed || e.key.tmc_version != kTmcVersion || e.shape.empty())
        continue;
      std::set<std::string> named;
      for (const auto& [sym, v] : e.shape) named.insert(sym);
      if (named != bound) continue;
      const tune::BestEntry*& pick = per_shape[e.shape];
      auto rank = [](const tune::BestEntry& b) { return std::make_pair(b.metric_kind != tune::kMeasured, b.metric); };
      if (!pick || rank(e) < rank(*pick)) pick = &e;
    }
    std::map<std::string, KernelVariant> groups;
    for (const auto& [shape, e] : per_shape) {
      std::optional<ParamValues> values = ParseParamValues(e->params);
      if (!values) continue;
      bool user = false, is_default = true;
      for (const auto& [p, v] : *values) {
        user = user || DefinedByUser(part, k, p);
        const auto& used = inst->second.ct_values;
        is_default = is_default && std::find(used.begin(), used.end(), std::make_pair(p, v)) != used.end();
      }
      if (user) continue;
      std::map<std::string, int64_t> shape_map(shape.begin(), shape.end());
      if (is_default) {
        base->default_shapes[k].push_back(shape_map);
        continue;
      }
      KernelVariant& g = groups[e->params];
      g.kernel = k;
      g.params = e->params;
      g.values = *values;
      g.shapes.push_back(shape_map);
    }
    if (groups.empty()) base->default_shapes.erase(k);
    for (auto& [params, g] : groups) out->push_back(std::move(g));
  }
  return true;
}

}  // namespace

bool GenerateLibrary(const std::string& name, const std::string& source_file, const std::vector<LibUnit>& units,
                     std::string* header, std::string* source, std::string* error) {
  if (!IsCIdentifier(name)) return *error = "the library name '" + name + "' is not a C identifier", false;
  std::vector<CFunction> functions;
  std::set<std::string> taken = {name + "_load", name + "_unload", name + "_part_count", name + "_part_metadata",
                                 name + "_part_module", name + "_call_kernel", name + "_bucket"};
  for (size_t u = 0; u < units.size(); ++u) {
    runtime::Json meta;
    std::string why;
    if (!runtime::ParseJson(units[u].metadata, &meta, &why)) return *error = "unreadable metadata: " + why, false;
    std::vector<runtime::GraphPlan> plans;
    if (!runtime::ParseGraphPlans(units[u].metadata, &plans, &why)) return *error = "unreadable launch plan: " + why, false;
    if (!units[u].variant_of.empty()) continue;  // a tuned variant: called through its kernel's function
    if (plans.empty()) {
      const runtime::Json* kernels = meta.Get("kernels");
      for (const runtime::Json& k : kernels ? kernels->items : std::vector<runtime::Json>{}) {
        CFunction f;
        f.name = k.Get("name")->str;
        f.unit = u;
        const runtime::Json* impl = k.Get("implements");
        f.summary = impl && !impl->str.empty() ? "implements op " + impl->str : "a kernel";
        if (const runtime::Json* ct = k.Get("compile_time"); ct && !ct->fields.empty()) {
          std::string values;
          for (const auto& [p, v] : ct->fields)
            values += (values.empty() ? "" : ", ") + p + "=" +
                      (v.kind == runtime::Json::Kind::String ? v.str : fmt::format("{}", static_cast<int64_t>(v.number)));
          f.summary += "; compiled with " + values;
        }
        if (const runtime::Json* req = k.Get("requires"); req && !req->items.empty()) {
          std::string conds;
          for (const runtime::Json& c : req->items)
            if (c.str != "true") conds += (conds.empty() ? "" : ", ") + c.str;  // a `where` that always holds
          if (!conds.empty()) f.summary += "\n * Launch conditions (else TMC_ERROR_SIGNATURE): " + conds;
        }
        for (const runtime::Json& p : k.Get("params")->items) {
          runtime::ParamInfo info;
          if (!runtime::ParseParamInfo(p, &info)) return *error = "unreadable parameter of '" + f.name + "'", false;
          if (info.kind == runtime::ParamInfo::Kind::Shape) continue;
          const runtime::Json* out = p.Get("output");
          f.params.push_back({info.name, info.kind == runtime::ParamInfo::Kind::Tensor,
                              out && out->kind == runtime::Json::Kind::Bool && out->b, info.dtype, info.shape});
        }
        functions.push_back(std::move(f));
      }
    } else {
      for (const runtime::GraphPlan& g : plans) {
        CFunction f;
        f.name = g.name;
        f.graph = true;
        f.unit = u;
        f.summary = fmt::format("{} kernel launch{}, intermediate values in a workspace", g.steps.size(),
                                g.steps.size() == 1 ? "" : "es");
        for (size_t i = 0; i < g.signature.params.size(); ++i) {
          const runtime::ParamInfo& info = g.signature.params[i];
          if (info.kind == runtime::ParamInfo::Kind::Shape) continue;
          f.params.push_back({info.name, info.kind == runtime::ParamInfo::Kind::Tensor,
                              i < g.outputs.size() && g.outputs[i], info.dtype, info.shape});
        }
        functions.push_back(std::move(f));
      }
    }
  }
  for (const std::string& n : {name, name + "_load"})
    if (std::string why = ReservedWhy(n); !why.empty())
      return *error = "the library name '" + name + "' cannot be used ('" + n + "' is " + why +
                      "): choose another with -o DIR/NAME",
             false;
  for (const CFunction& f : functions) {
    if (!IsCIdentifier(f.name)) return *error = "'" + f.name + "' is not a C identifier", false;
    if (std::string why = ReservedWhy(f.name); !why.empty())
      return *error = std::string(f.graph ? "graph" : "kernel") + " '" + f.name + "' cannot be a C function: its name is " +
                      why + " (rename it, or leave it out with --kernel/--graph)",
             false;
    for (const CParam& p : f.params)
      if (std::string why = ReservedWhy(p.name); !why.empty())
        return *error = "parameter '" + p.name + "' of '" + f.name + "' cannot be a C parameter: its name is " + why,
               false;
    std::vector<std::string> names = {f.name};
    if (!f.graph) names.push_back(name + "_run_" + f.name);  // its static launcher
    if (f.graph) names.insert(names.end(), {f.name + "_workspace_size", f.name + "_with_workspace"});
    for (const std::string& n : names)
      if (!taken.insert(n).second)
        return *error = "two functions of the library would be named '" + n + "' (give --kernel or --graph to choose)",
               false;
    for (const CParam& p : f.params)
      if (p.name == "ctx" || p.name == "stream" || p.name == "workspace" || p.name == "workspace_bytes" ||
          p.name == "bytes" || p.name == "args" || p.name == "module" || p.name == "st" || p.name == "kernel" ||
          p.name == "graph")
        return *error = "parameter '" + p.name + "' of '" + f.name + "' clashes with the generated function's own", false;
  }
  if (functions.empty()) return *error = "nothing to put in the library: no kernel and no graph", false;
  for (CFunction& f : functions) {
    if (f.graph) continue;
    auto shapes_text = [](const std::vector<std::map<std::string, int64_t>>& list) {
      std::string shapes;
      for (const auto& shape : list) {
        std::string one;
        for (const auto& [sym, v] : shape) one += (one.empty() ? "" : ",") + sym + "=" + std::to_string(v);
        shapes += (shapes.empty() ? "" : "; ") + one;
      }
      return shapes;
    };
    for (size_t u = 0; u < units.size(); ++u)
      if (units[u].variant_of == f.name) {
        f.variants.push_back(u);
        f.summary += (f.variants.size() == 1 ? "\n * Tuned variants, the one tuned nearest to the call's shapes runs:" : "") +
                     std::string("\n *   ") + units[u].variant_params + " for " + shapes_text(units[u].variant_shapes);
      }
    if (f.variants.empty()) continue;
    if (auto it = units[f.unit].default_shapes.find(f.name); it != units[f.unit].default_shapes.end())
      f.summary += "\n *   the values above for " + shapes_text(it->second);
    f.summary += "\n *   (else, and where a variant's conditions refuse the shapes, the values above)";
  }

  std::string guard;
  for (char c : name) guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  guard = "TMC_LIB_" + guard + "_H";
  std::string archs;
  for (const LibImage& im : units.front().images) archs += (archs.empty() ? "" : ", ") + im.arch + (im.ptx ? " (PTX)" : "");
  if (units.front().host) archs += ", the host (CPU contexts: the CPU executor)";
  std::string& h = *header;
  h = fmt::format(
      "/* {0}.h: generated by tmc {1} (tmc lib) from {2}. Do not edit.\n"
      " * Link with lib{0}.a (or lib{0}.so) and the tmc runtime (-ltmc_runtime).\n"
      " * Code for: {3}.\n"
      " * The image for the device is chosen when a context first uses the\n"
      " * library: a cubin for its compute capability, else PTX that the driver\n"
      " * compiles{5}. docs/deploy.md. */\n"
      "#ifndef {4}\n#define {4}\n\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
      "#include \"tmc_runtime.h\"\n\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n"
      "/* Loads the library's code into `ctx` (done on first use otherwise). */\n"
      "tmc_status {0}_load(tmc_context* ctx);\n"
      "/* Unloads it from `ctx`, with the graphs' workspaces; call before tmc_shutdown(ctx). */\n"
      "void {0}_unload(tmc_context* ctx);\n"
      "/* For language bindings (tmc's Python package): the library's parts (its\n"
      " * kernels, each graph, each tuned variant of a kernel), the metadata of each (tmc --emit=meta JSON,\n"
      " * with the launch plan of a graph), and a part's module in `ctx`, for\n"
      " * tmc_module_get_kernel and tmc_module_get_graph. */\n"
      "size_t {0}_part_count(void);\n"
      "const char* {0}_part_metadata(size_t part);\n"
      "tmc_status {0}_part_module(tmc_context* ctx, size_t part, tmc_module** module);\n"
      "/* Kernel `kernel` with its arguments as tmc_launch takes them (the\n"
      " * parameters as written, shape symbols taken from the tensors), through\n"
      " * the same choice of tuned variant as its typed function. */\n"
      "tmc_status {0}_call_kernel(tmc_context* ctx, tmc_stream* stream, const char* kernel, const tmc_arg* args,\n"
      "                           int num_args);\n\n",
      name, kTmcVersion, fs::path(source_file).filename().string(), archs, guard,
      units.front().host ? ";\n * a CPU context runs the host code on the CPU executor" : "");
  for (const CFunction& f : functions) {
    h += DocComment(f);
    h += fmt::format("tmc_status {}(tmc_context* ctx, tmc_stream* stream{});\n", f.name, ParamList(f));
    if (f.graph) {
      h += fmt::format(
          "/* The bytes of workspace {0} needs for these shapes (tensor data is not read). */\n"
          "tmc_status {0}_workspace_size(tmc_context* ctx{1}, size_t* bytes);\n"
          "/* {0} with the caller's workspace: device memory of `workspace_bytes`,\n"
          " * at least {0}_workspace_size's (checked). {0} itself allocates one on\n"
          " * first use and keeps it until {0}'s library is unloaded. */\n"
          "tmc_status {0}_with_workspace(tmc_context* ctx, tmc_stream* stream, uint64_t workspace, size_t workspace_bytes{1});\n",
          f.name, ParamList(f));
    }
    h += "\n";
  }
  h += fmt::format("#ifdef __cplusplus\n}}  /* extern \"C\" */\n#endif\n\n#endif  /* {} */\n", guard);

  std::string& c = *source;
  c = fmt::format(
      "/* Generated by tmc {1} (tmc lib) from {2}. Do not edit. */\n"
      "#include \"{0}.h\"\n\n#include <pthread.h>\n#include <stdio.h>\n#include <string.h>\n\n"
      "typedef struct {{ int arch; int arch_specific; int ptx; const unsigned char* data; size_t size; }} {0}_image;\n\n",
      name, kTmcVersion, fs::path(source_file).filename().string());
  for (size_t u = 0; u < units.size(); ++u) {
    for (size_t i = 0; i < units[u].images.size(); ++i) {
      std::string bytes = units[u].images[i].bytes;
      if (units[u].images[i].ptx) bytes.push_back('\0');
      c += fmt::format("static const unsigned char {}_unit{}_image{}[] = {{", name, u, i);
      AppendBytes(&c, bytes);
      c += "\n};\n";
    }
    c += fmt::format("static const unsigned char {}_unit{}_metadata[] = {{", name, u);
    AppendBytes(&c, units[u].metadata + std::string(1, '\0'));
    c += fmt::format("\n}};\nstatic const {0}_image {0}_unit{1}_images[] = {{\n", name, u);
    for (size_t i = 0; i < units[u].images.size(); ++i) {
      const LibImage& im = units[u].images[i];
      c += fmt::format("  {{{}, {}, {}, {}_unit{}_image{}, sizeof {}_unit{}_image{}}},\n", ArchNumber(im.arch),
                       im.arch.back() == 'a' ? 1 : 0, im.ptx ? 1 : 0, name, u, i, name, u, i);
    }
    c += "};\n";
  }
  c += fmt::format("static const {0}_image* const {0}_units[] = {{", name);
  for (size_t u = 0; u < units.size(); ++u) c += fmt::format("{}{}_unit{}_images", u ? ", " : "", name, u);
  c += "};\n";
  c += fmt::format("static const size_t {0}_unit_images[] = {{", name);
  for (size_t u = 0; u < units.size(); ++u) c += fmt::format("{}{}", u ? ", " : "", units[u].images.size());
  c += "};\n";
  c += fmt::format("static const unsigned char* const {0}_metadata[] = {{", name);
  for (size_t u = 0; u < units.size(); ++u) c += fmt::format("{}{}_unit{}_metadata", u ? ", " : "", name, u);
  c += "};\n";
  // --cpu: each unit's host entry points and site locations.
  bool host = units.front().host;
  if (host) {
    std::vector<size_t> kernel_counts;
    for (size_t u = 0; u < units.size(); ++u) {
      runtime::Json meta;
      std::string why;
      runtime::ParseJson(units[u].metadata, &meta, &why);  // parsed above: it is valid
      std::vector<std::string> names;
      if (const runtime::Json* kernels = meta.Get("kernels"))
        for (const runtime::Json& k : kernels->items) names.push_back(k.Get("name")->str);
      kernel_counts.push_back(names.size());
      for (const std::string& k : names)
        c += fmt::format("extern void {}{}(void* thread, const uint64_t* args);\n", units[u].host_prefix, k);
      c += fmt::format("static const tmc_host_kernel {}_unit{}_host[] = {{\n", name, u);
      for (const std::string& k : names) c += fmt::format("  {{\"{}\", {}{}}},\n", k, units[u].host_prefix, k);
      if (names.empty()) c += "  {NULL, NULL},\n";
      c += fmt::format("}};\nstatic const char* const {}_unit{}_sites[] = {{\n", name, u);
      for (const std::string& site : units[u].sites) c += "  \"" + CString(site) + "\",\n";
      if (units[u].sites.empty()) c += "  \"\",\n";
      c += "};\n";
    }
    c += fmt::format("static const tmc_host_image {0}_host[] = {{\n", name);
    for (size_t u = 0; u < units.size(); ++u)
      c += fmt::format("  {{(const char*){0}_unit{1}_metadata, {0}_unit{1}_host, {2}, {0}_unit{1}_sites, {3}}},\n", name, u,
                       kernel_counts[u], units[u].sites.size());
    c += "};\n";
  }
  c += fmt::format(R"C(#define {0}_UNITS {1}
#define {0}_CONTEXTS 16

/* The modules loaded into each context, under a lock. */
static pthread_mutex_t {0}_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {{ tmc_context* ctx; tmc_module* modules[{0}_UNITS]; }} {0}_loaded[{0}_CONTEXTS];

/* The image for a device of compute capability major.minor: a cubin built
 * for it (an sm_90a one only for 9.0), else one of the same major for an
 * older minor, else the PTX of the newest arch not above it. */
static const {0}_image* {0}_pick(size_t unit, int major, int minor) {{
  int cc = major * 10 + minor;
  const {0}_image* best = NULL;
  size_t i;
  for (i = 0; i < {0}_unit_images[unit]; ++i) {{
    const {0}_image* im = &{0}_units[unit][i];
    if (!im->ptx && im->arch == cc) return im;
  }}
  for (i = 0; i < {0}_unit_images[unit]; ++i) {{
    const {0}_image* im = &{0}_units[unit][i];
    if (!im->ptx && !im->arch_specific && im->arch / 10 == major && im->arch <= cc && (!best || im->arch > best->arch))
      best = im;
  }}
  if (best) return best;
  for (i = 0; i < {0}_unit_images[unit]; ++i) {{
    const {0}_image* im = &{0}_units[unit][i];
    if (im->ptx && im->arch <= cc && (!im->arch_specific || im->arch == cc) && (!best || im->arch > best->arch))
      best = im;
  }}
  return best;
}}

static tmc_status {0}_module(tmc_context* ctx, size_t unit, tmc_module** out) {{
  tmc_status st = TMC_SUCCESS;
  int slot = -1, free_slot = -1, i;
  if (!ctx) return tmc_set_error(TMC_ERROR_INVALID_ARGUMENT, "{0}: null context");
  pthread_mutex_lock(&{0}_lock);
  for (i = 0; i < {0}_CONTEXTS; ++i) {{
    if ({0}_loaded[i].ctx == ctx) slot = i;
    if (!{0}_loaded[i].ctx && free_slot < 0) free_slot = i;
  }}
  if (slot < 0) {{
    if (free_slot < 0) {{
      pthread_mutex_unlock(&{0}_lock);
      return tmc_set_error(TMC_ERROR_INVALID_ARGUMENT, "{0}: more than 16 contexts use the library ({0}_unload frees one)");
    }}
    slot = free_slot;
    {0}_loaded[slot].ctx = ctx;
  }}
  if (!{0}_loaded[slot].modules[unit] && tmc_context_is_cpu(ctx)) {{
{3}
  }} else if (!{0}_loaded[slot].modules[unit]) {{
    int major = 0, minor = 0;
    const {0}_image* im;
    st = tmc_device_compute_capability(ctx, &major, &minor);
    if (st == TMC_SUCCESS) {{
      im = {0}_pick(unit, major, minor);
      if (!im) {{
        char message[160];
        snprintf(message, sizeof message, "{0}: no code for compute capability %d.%d (built for {2})", major, minor);
        st = tmc_set_error(TMC_ERROR_NOT_FOUND, message);
      }} else {{
        st = tmc_module_load(ctx, im->data, im->size, (const char*){0}_metadata[unit], &{0}_loaded[slot].modules[unit]);
      }}
    }}
  }}
  *out = {0}_loaded[slot].modules[unit];
  pthread_mutex_unlock(&{0}_lock);
  return st;
}}

tmc_status {0}_load(tmc_context* ctx) {{
  size_t u;
  tmc_module* m;
  for (u = 0; u < {0}_UNITS; ++u) {{
    tmc_status st = {0}_module(ctx, u, &m);
    if (st != TMC_SUCCESS) return st;
  }}
  return TMC_SUCCESS;
}}

void {0}_unload(tmc_context* ctx) {{
  int i;
  size_t u;
  pthread_mutex_lock(&{0}_lock);
  for (i = 0; i < {0}_CONTEXTS; ++i)
    if (ctx && {0}_loaded[i].ctx == ctx) {{
      for (u = 0; u < {0}_UNITS; ++u)
        if ({0}_loaded[i].modules[u]) tmc_module_unload({0}_loaded[i].modules[u]);
      memset(&{0}_loaded[i], 0, sizeof {0}_loaded[i]);
    }}
  pthread_mutex_unlock(&{0}_lock);
}}

size_t {0}_part_count(void) {{ return {0}_UNITS; }}

const char* {0}_part_metadata(size_t part) {{ return part < {0}_UNITS ? (const char*){0}_metadata[part] : NULL; }}

tmc_status {0}_part_module(tmc_context* ctx, size_t part, tmc_module** module) {{
  if (!module) return tmc_set_error(TMC_ERROR_INVALID_ARGUMENT, "{0}_part_module: null output");
  if (part >= {0}_UNITS) return tmc_set_error(TMC_ERROR_NOT_FOUND, "{0}_part_module: no such part");
  return {0}_module(ctx, part, module);
}}

static tmc_status {0}_null(const char* function, const char* param) {{
  char message[200];
  snprintf(message, sizeof message, "%s: argument '%s' is a null pointer", function, param);
  return tmc_set_error(TMC_ERROR_INVALID_ARGUMENT, message);
}}

)C",
                   name, units.size(), [&] {
                     std::string a;
                     for (const LibImage& im : units.front().images) a += (a.empty() ? "" : ", ") + im.arch;
                     return a;
                   }(),
                   host ? fmt::format("    st = tmc_module_load_host(ctx, &{}_host[unit], &{}_loaded[slot].modules[unit]);", name, name)
                        : fmt::format("    st = tmc_set_error(TMC_ERROR_NOT_FOUND, \"{}: no code for a CPU context (built "
                                      "without tmc lib --cpu)\");", name));
  if (std::any_of(functions.begin(), functions.end(), [](const CFunction& f) { return !f.variants.empty(); }))
    c += fmt::format(
        "/* ceil(log2(v)): the power-of-two bucket of a dimension (shape-bucket dispatch). */\n"
        "static int64_t {0}_bucket(int64_t v) {{\n  int64_t b = 0;\n  while (v > 1) v = (v + 1) / 2, ++b;\n  return b;\n}}\n\n",
        name);
  std::string call_kernel;  // the body of NAME_call_kernel
  for (const CFunction& f : functions) {
    // The argument array, null checks first.
    std::string fill;
    size_t n = f.params.size();
    for (size_t i = 0; i < n; ++i) {
      const CParam& p = f.params[i];
      if (p.tensor) {
        fill += fmt::format("  if (!{1}) return {2}_null(\"{0}\", \"{1}\");\n", f.name, p.name, name);
        fill += fmt::format("  args[{0}].is_tensor = 1;\n  args[{0}].tensor = *{1};\n", i, p.name);
      } else {
        fill += fmt::format("  args[{0}].dtype = (tmc_dtype){1};\n", i, static_cast<int>(p.dtype));
        fill += IsFloatDtype(p.dtype) ? fmt::format("  args[{}].value.f = (double){};\n", i, p.name)
                                      : fmt::format("  args[{}].value.i = (int64_t){};\n", i, p.name);
      }
    }
    std::string args_decl = fmt::format("  tmc_arg args[{}];\n  tmc_module* module;\n  tmc_status st;\n", std::max<size_t>(n, 1));
    std::string prologue = fmt::format("  memset(args, 0, sizeof args);\n{}  st = {}_module(ctx, {}, &module);\n"
                                       "  if (st != TMC_SUCCESS) return st;\n",
                                       fill, name, f.unit);
    if (!f.graph) {
      // NAME_run_K launches from an argument array (the typed function's,
      // or a binding's through NAME_call_kernel), choosing a tuned variant
      // first where there are some.
      std::string dispatch = f.variants.empty() ? "" : Dispatch(name, f, units, n);
      c += fmt::format("static tmc_status {0}_run_{1}(tmc_context* ctx, tmc_stream* stream, const tmc_arg* args) {{\n"
                       "  tmc_module* module;\n  tmc_kernel* kernel;\n  tmc_status st;\n{2}"
                       "  st = {0}_module(ctx, {3}, &module);\n  if (st != TMC_SUCCESS) return st;\n"
                       "  st = tmc_module_get_kernel(module, \"{1}\", &kernel);\n  if (st != TMC_SUCCESS) return st;\n"
                       "  return tmc_launch(kernel, args, {4}, stream);\n}}\n\n",
                       name, f.name, dispatch, f.unit, n);
      c += fmt::format("tmc_status {0}(tmc_context* ctx, tmc_stream* stream{1}) {{\n  tmc_arg args[{2}];\n"
                       "  memset(args, 0, sizeof args);\n{3}  return {4}_run_{0}(ctx, stream, args);\n}}\n\n",
                       f.name, ParamList(f), std::max<size_t>(n, 1), fill, name);
      call_kernel += fmt::format("  if (strcmp(kernel, \"{0}\") == 0) {{\n"
                                 "    if (num_args != {1}) return tmc_set_error(TMC_ERROR_SIGNATURE, \"{2}_call_kernel: "
                                 "'{0}' takes {1} arguments\");\n"
                                 "    return {2}_run_{0}(ctx, stream, args);\n  }}\n",
                                 f.name, n, name);
      continue;
    }
    c += fmt::format("tmc_status {0}_with_workspace(tmc_context* ctx, tmc_stream* stream, uint64_t workspace, "
                     "size_t workspace_bytes{1}) {{\n"
                     "{2}  tmc_graph* graph;\n{3}"
                     "  st = tmc_module_get_graph(module, \"{0}\", &graph);\n  if (st != TMC_SUCCESS) return st;\n"
                     "  return tmc_graph_launch(graph, args, {4}, workspace, workspace_bytes, stream);\n}}\n\n",
                     f.name, ParamList(f), args_decl, prologue, n);
    std::string call_args;
    for (const CParam& p : f.params) call_args += ", " + p.name;
    c += fmt::format("tmc_status {0}(tmc_context* ctx, tmc_stream* stream{1}) {{\n"
                     "  return {0}_with_workspace(ctx, stream, 0, 0{2});\n}}\n\n",
                     f.name, ParamList(f), call_args);
    c += fmt::format("tmc_status {0}_workspace_size(tmc_context* ctx{1}, size_t* bytes) {{\n"
                     "{2}  tmc_graph* graph;\n"
                     "  if (!bytes) return {3}_null(\"{0}_workspace_size\", \"bytes\");\n{4}"
                     "  st = tmc_module_get_graph(module, \"{0}\", &graph);\n  if (st != TMC_SUCCESS) return st;\n"
                     "  return tmc_graph_workspace_size(graph, args, {5}, bytes);\n}}\n\n",
                     f.name, ParamList(f), args_decl, name, prologue, n);
  }
  c += fmt::format("tmc_status {0}_call_kernel(tmc_context* ctx, tmc_stream* stream, const char* kernel, const tmc_arg* args,\n"
                   "                           int num_args) {{\n"
                   "  if (!kernel || (!args && num_args))\n"
                   "    return tmc_set_error(TMC_ERROR_INVALID_ARGUMENT, \"{0}_call_kernel: null kernel name or arguments\");\n"
                   "{1}  return tmc_set_error(TMC_ERROR_NOT_FOUND, \"{0}_call_kernel: no such kernel in the library\");\n}}\n",
                   name, call_kernel);
  return true;
}

int LibCommand(const Options& given) {
  const std::string& path = given.inputs.front();
  fs::path out(given.output);
  std::string name = out.filename().string();
  fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "tmc: error: %s\n", message.c_str());
    return 1;
  };
  if (!IsCIdentifier(name))
    return fail("-o DIR/NAME: the library name '" + name + "' must be a C identifier (it prefixes the generated functions)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail("cannot create '" + dir.string() + "': " + ec.message());

  // What goes in: the file's kernels (all, or --kernel's), and each graph
  // (--graph's; without --kernel and --graph, every graph the file declares).
  // -D applies to the library's kernels only (not to the file's others, nor
  // to the imported modules' kernels, whose candidates may differ).
  std::vector<std::string> graphs = given.lib_graphs;
  bool file_kernels = true;
  std::set<std::string> library_kernels(given.lib_kernels.begin(), given.lib_kernels.end());
  std::map<std::string, std::set<std::string>> kernel_params;  // of the file's kernels
  if ((given.lib_graphs.empty() && given.lib_kernels.empty()) || !given.defines.empty()) {
    Options listing = given;
    listing.defines_scope = {"\n"};  // no kernel: -D is checked below
    CommandFrontend fe(listing);
    sema::CheckedModule* m = fe.Compile(listing, path);
    if (!m || !m->ok || fe.diags.HasErrors()) return 1;
    bool all = given.lib_graphs.empty() && given.lib_kernels.empty();
    if (all) file_kernels = false;
    for (const ast::Decl* d : m->ast->decls) {
      if (all && d->kind == ast::DeclKind::Graph) graphs.push_back(d->name.name);
      if (auto* k = ast::dyn_cast<ast::KernelDecl>(d)) {
        if (all) file_kernels = true;
        if (given.lib_kernels.empty()) library_kernels.insert(k->name.name);
        for (const ast::CtParam& p : k->ct_params) kernel_params[k->name.name].insert(p.name.name);
      }
    }
    if (all && !file_kernels && graphs.empty()) return fail("'" + path + "' declares no kernel and no graph");
  }
  std::vector<Options> parts;
  if (file_kernels && (given.lib_graphs.empty() || !given.lib_kernels.empty())) {
    Options k = given;
    k.graph.clear();
    k.defines_scope = library_kernels;
    for (const auto& [param, value] : given.defines) {
      bool used = false;
      for (const std::string& kn : library_kernels) used = used || kernel_params[kn].count(param);
      if (!used && given.lib_graphs.empty())
        return fail("-D " + param + ": no kernel of the library has a parameter '" + param + "'");
    }
    parts.push_back(k);
  }
  for (const std::string& g : graphs) {
    Options p = given;
    p.graph = g;
    parts.push_back(p);
  }
  std::vector<LibUnit> units;
  std::vector<std::string> host_objects;  // --cpu: one per unit
  std::set<std::string> read;  // every file a compile read: the module and its imports
  // One part: `only` of the checked module `m` for every arch (a cubin
  // and PTX each) and, with --cpu, for the host.
  auto compile_unit = [&](const Options& part, const sema::CheckedModule& m, DiagnosticEngine& diags,
                          const std::vector<std::string>& only, LibUnit* out) {
    LibUnit& unit = *out;
    for (const std::string& arch : given.lib_archs) {
      Options a = part;
      a.arch = arch;
      a.sm = ArchNumber(arch);
      a.emit = "ptx";
      a.cache = given.cache.value_or(true);
      std::string meta;
      std::string ptx = EmitModule(m, a, diags, only, &meta);
      if (diags.HasErrors()) return false;
      if (unit.metadata.empty()) unit.metadata = part.graph.empty() ? meta : MetadataWithPlan(meta, part.graph_plan);
      codegen::PtxasResult cubin = codegen::AssemblePtx(ptx, arch, false);
      if (cubin.ok) unit.images.push_back({arch, false, cubin.cubin});
      else if (cubin.error.rfind("ptxas not found", 0) != 0) return fail("ptxas failed for " + arch + ": " + cubin.error), false;
      unit.images.push_back({arch, true, ptx});  // for devices no cubin fits, and without ptxas
    }
    if (given.lib_cpu) {
      // The host code is lowered as for the first arch: the metadata the
      // runtime checks its launches against is that arch's.
      Options a = part;
      a.arch = given.lib_archs.front();
      a.sm = ArchNumber(a.arch);
      unit.host = true;
      unit.host_prefix = name + "_host" + std::to_string(units.size()) + "_";
      std::string object;
      if (!EmitHostObject(m, a, diags, only, unit.host_prefix, &object, &unit.sites) || diags.HasErrors()) return false;
      host_objects.push_back(std::move(object));
    }
    return true;
  };
  std::vector<KernelVariant> variants;
  for (Options& part : parts) {
    CommandFrontend fe(part);
    SourceManager& sm = fe.sm;
    DiagnosticEngine& diags = fe.diags;
    // -D applies to every kernel of the library, not to the last --kernel.
    part.kernel.clear();
    if (!part.graph.empty() && !PrepareGraphKernels(&part, sm, diags)) return 1;
    if (!part.graph.empty() && !part.shapes.empty() && !CheckGraphShapeSymbols(part, diags)) return 1;
    if (!ApplyTunedParams(&part)) return 1;
    sema::CheckedModule* m = fe.Compile(part, path);
    if (!m || !m->ok || diags.HasErrors()) return 1;
    for (uint32_t f = 0; f < sm.FileCount(); ++f)
      if (fs::is_regular_file(std::string(sm.Path(f)), ec)) read.insert(fs::absolute(std::string(sm.Path(f)), ec).string());
    std::vector<std::string> only;
    if (!part.graph.empty()) {
      for (const Options::GraphKernel& k : part.graph_kernels) only.insert(only.end(), k.alternatives.begin(), k.alternatives.end());
    } else if (!given.lib_kernels.empty()) {
      for (const std::string& k : given.lib_kernels) {
        if (!m->kernels.count(k)) return fail("'" + path + "' has no kernel named '" + k + "'");
        only.push_back(k);
      }
    } else {
      for (const ast::Decl* d : m->ast->decls)
        if (d->kind == ast::DeclKind::Kernel) only.push_back(d->name.name);
      if (only.empty())
        return fail("'" + path + "' declares no kernel (name the graphs to compile with --graph)");
    }
    LibUnit unit;
    if (!compile_unit(part, *m, diags, only, &unit)) return 1;
    units.push_back(std::move(unit));
    if (part.graph.empty() && !FindVariants(given, part, sm, *m, only, &units.back(), &variants)) return 1;
  }
  // Shape-bucket dispatch: each tuned variant of a kernel is a part of its
  // own (a separate module, so the kernel keeps its name), compiled with
  // the variant's values.
  for (const KernelVariant& v : variants) {
    Options part = parts.front();
    part.kernel.clear();
    for (const auto& [p, value] : v.values) part.kernel_defines[v.kernel][p] = value;
    CommandFrontend fe(part);
    sema::CheckedModule* m = fe.Compile(part, path);
    LibUnit unit;
    unit.variant_of = v.kernel;
    unit.variant_params = v.params;
    unit.variant_shapes = v.shapes;
    // The database is advice: a variant that does not build (for another
    // --arch than it was tuned on, say) is left out, not the library.
    if (!m || !m->ok || fe.diags.HasErrors() || !compile_unit(part, *m, fe.diags, {v.kernel}, &unit)) {
      std::fprintf(stderr, "tmc lib: warning: the tuned variant %s of '%s' does not build; left out\n", v.params.c_str(),
                   v.kernel.c_str());
      continue;
    }
    units.push_back(std::move(unit));
  }

  std::string header, source, error;
  if (!GenerateLibrary(name, path, units, &header, &source, &error)) return fail(error);
  RuntimePaths rt;
  if (!FindRuntime(given.runtime_dir, &rt, &error)) return fail(error);
  if (given.lib_shared && rt.lib_dir.empty())
    return fail("--shared links libtmc_runtime, which is not beside its header in '" + rt.include_dir +
                "' (give --runtime-dir DIR)");
  fs::path h = dir / (name + ".h"), c = dir / (name + ".c"), o = dir / (name + ".o");
  fs::path a = dir / ("lib" + name + ".a"), so = dir / ("lib" + name + ".so");
  std::vector<fs::path> objects = {o};
  for (size_t u = 0; u < host_objects.size(); ++u) objects.push_back(dir / (name + "_host" + std::to_string(u) + ".o"));
  // A failed build leaves nothing half made behind.
  auto fail_clean = [&](const std::string& message) {
    for (const fs::path& f : {h, c, a, so}) fs::remove(f, ec);
    for (const fs::path& f : objects) fs::remove(f, ec);
    return fail(message);
  };
  if (!WriteFile(h.string(), header, &error) || !WriteFile(c.string(), source, &error)) return fail_clean(error);
  for (size_t u = 0; u < host_objects.size(); ++u)
    if (!WriteFile(objects[u + 1].string(), host_objects[u], &error)) return fail_clean(error);
  const char* cc_env = std::getenv("CC");
  std::string cc = cc_env && *cc_env ? cc_env : "cc";
  std::vector<std::string> compile = {cc, "-std=c11", "-O2", "-fPIC", "-I", dir.string(), "-I", rt.include_dir, "-c",
                                      c.string(), "-o", o.string()};
  ProcessResult r = RunProcess(compile, /*merged=*/true);
  if (r.exit_code != 0)
    return fail_clean("the C compiler failed on the generated source:\n" + Command(compile) + "\n" + r.err + r.out);
  fs::remove(a, ec);
  std::vector<std::string> archive = {"ar", "rcs", a.string()};
  for (const fs::path& f : objects) archive.push_back(f.string());
  r = RunProcess(archive, /*merged=*/true);
  if (r.exit_code != 0) return fail_clean("ar failed:\n" + Command(archive) + "\n" + r.err + r.out);
  if (given.lib_shared) {
    std::vector<std::string> link = {cc, "-shared", "-o", so.string()};
    for (const fs::path& f : objects) link.push_back(f.string());
    link.insert(link.end(), {"-Wl,-soname,lib" + name + ".so", "-L", rt.lib_dir, "-Wl,-rpath," + rt.lib_dir, "-ltmc_runtime", "-lm"});
    r = RunProcess(link, /*merged=*/true);
    if (r.exit_code != 0) return fail_clean("linking the shared library failed:\n" + Command(link) + "\n" + r.err + r.out);
  }
  for (const fs::path& f : objects) fs::remove(f, ec);
  if (!given.lib_keep_source) fs::remove(c, ec);
  if (!given.depfile.empty()) {
    // A Makefile rule (what CMake's DEPFILE and Ninja's depfile read).
    auto escape = [](const std::string& p) {
      std::string e;
      for (char ch : p) e += ch == ' ' ? std::string("\\ ") : ch == '$' ? std::string("$$") : std::string(1, ch);
      return e;
    };
    std::string rule = escape(fs::absolute(a, ec).string()) + " " + escape(fs::absolute(h, ec).string()) + ":";
    for (const std::string& f : read) rule += " \\\n  " + escape(f);
    if (!WriteFile(given.depfile, rule + "\n", &error)) return fail_clean(error);
  }
  size_t tuned = static_cast<size_t>(
      std::count_if(units.begin(), units.end(), [](const LibUnit& u) { return !u.variant_of.empty(); }));
  std::string variants_text = tuned ? fmt::format(", {} tuned variant{}", tuned, tuned == 1 ? "" : "s") : "";
  std::fprintf(stderr, "tmc lib: %s and %s%s (%zu part%s%s, %s)\n", h.string().c_str(), a.string().c_str(),
               given.lib_shared ? (" and " + so.string()).c_str() : "", units.size() - tuned,
               units.size() - tuned == 1 ? "" : "s", variants_text.c_str(), [&] {
                 std::string s;
                 for (const LibImage& im : units.front().images) s += (s.empty() ? "" : ", ") + im.arch + (im.ptx ? " PTX" : " cubin");
                 if (given.lib_cpu) s += ", host";
                 return s;
               }().c_str());
  return 0;
}

}  // namespace tmc::driver
