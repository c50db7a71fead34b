// Flags follow the conventions of clang: -o, -I DIR, -DNAME=VALUE (or -D
// NAME=VALUE), --flag=value, -O2, -Wno-FLAG. One table says what each flag
// takes, which subcommands use it and its help line, so a flag that the
// chosen subcommand would ignore is an error and each subcommand's --help
// lists exactly its own flags.
#include "tools/tmc/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ir/transforms/pipeline.h"
#include "support/diagnostics.h"
#include "tools/tmc/version.h"

namespace tmc::driver {
namespace {

enum Command : unsigned { kCompile = 1, kRun = 2, kMapping = 4, kTune = 8, kDb = 16, kLib = 32, kAll = 63 };

enum class Form {
  Switch,    // -v, --grid
  Separate,  // --emit=KIND, --emit KIND; one-letter flags also -oFILE
  Joined,    // -ferror-limit=N, -Wno-FLAG: the value follows the name
};

using Apply = bool (*)(Options* o, const std::string& value, std::string* error);

struct Flag {
  const char* name;
  Form form;
  const char* value_name;  // in the help text
  unsigned commands;
  const char* help;        // lines after the first are indented
  Apply apply;
};

bool ParseInt(const std::string& text, int64_t* out) {
  const char* b = text.data();
  const char* e = b + text.size();
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e;
}

// An integer as the language writes one (docs/language.md, §2): decimal,
// 0x hexadecimal or 0b binary, with `_` between digits, and a sign.
bool ParseIntLiteral(std::string text, int64_t* out) {
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.erase(0, 1);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X' || text[1] == 'b' || text[1] == 'B')) {
    base = text[1] == 'x' || text[1] == 'X' ? 16 : 2;
    text.erase(0, 2);
  }
  if (text.empty() || text.front() == '_') return false;
  std::erase(text, '_');
  uint64_t magnitude = 0;
  const char* b = text.data();
  auto [p, ec] = std::from_chars(b, b + text.size(), magnitude, base);
  if (ec != std::errc() || p != b + text.size()) return false;
  if (magnitude > (negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX})) return false;
  *out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool Error(std::string* error, std::string text) {
  *error = std::move(text);
  return false;
}

// A tolerance: a finite number >= 0.
bool ParseTolerance(const std::string& v, std::optional<double>* out, std::string* error) {
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !(x >= 0) || std::isinf(x)) return Error(error, "invalid tolerance '" + v + "' (expected a number >= 0)");
  *out = x;
  return true;
}

bool SetEmit(Options* o, const std::string& v, std::string* error) {
  static const char* kKinds[] = {"check", "ast", "ir", "llvm", "ptx", "cubin", "cuda", "meta", "tm", "graph", "dot"};
  if (std::find(std::begin(kKinds), std::end(kKinds), v) == std::end(kKinds))
    return Error(error, "unknown --emit kind '" + v +
                            "' (expected check, ast, ir, llvm, ptx, cubin, cuda, meta, tm, graph or dot)");
  o->emit = v;
  return true;
}

bool CheckPass(const std::string& v, std::string* error) {
  if (ir::IsPassName(v)) return true;
  std::string names;
  for (const std::string& n : ir::PassNames()) names += (names.empty() ? "" : ", ") + n;
  return Error(error, "unknown pass '" + v + "' (passes: " + names + ")");
}

// One arch, or (tmc lib) a comma-separated list: the first is the one a
// single compile uses.
bool SetArch(Options* o, const std::string& v, std::string* error) {
  static const std::pair<const char*, int> kArchs[] = {
      {"sm_80", 80}, {"sm_86", 86}, {"sm_89", 89}, {"sm_90", 90}, {"sm_90a", 90}};
  o->lib_archs.clear();
  size_t start = 0;
  for (;;) {
    size_t comma = v.find(',', start);
    std::string one = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto it = std::find_if(std::begin(kArchs), std::end(kArchs), [&](const auto& a) { return one == a.first; });
    if (it == std::end(kArchs))
      return Error(error, "unknown --arch '" + one + "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)");
    if (std::find(o->lib_archs.begin(), o->lib_archs.end(), one) != o->lib_archs.end())
      return Error(error, "--arch names '" + one + "' twice");
    o->lib_archs.push_back(one);
    if (o->lib_archs.size() == 1) {
      o->arch = one;
      o->sm = it->second;
    }
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

// The comma-separated items of a flag's value (--shape M=1,N=2, --arg,
// -D NAME=V1,V2); an empty item stays, so that the caller reports it.
// Without the blanks around it: `--shape "R=2, C=5"` and `R = 2` work.
std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> SplitCommas(const std::string& v) {
  std::vector<std::string> items;
  for (size_t start = 0;;) {
    size_t comma = v.find(',', start);
    std::string item = Trim(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (size_t eq = item.find('='); eq != std::string::npos)
      item = Trim(item.substr(0, eq)) + "=" + Trim(item.substr(eq + 1));
    items.push_back(item);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

bool AddShapes(Options* o, const std::string& v, std::string* error) {
  for (const std::string& item : SplitCommas(v)) {
    size_t eq = item.find('=');
    int64_t n;
    if (eq == std::string::npos || eq == 0 || !ParseInt(item.substr(eq + 1), &n) || n <= 0)
      return Error(error, "--shape expects NAME=POSITIVE_INT[,...], got '" + item + "'");
    std::string name = item.substr(0, eq);
    if (o->shapes.count(name))
      return Error(error, "--shape gives '" + name + "' twice (" + name + "=" + std::to_string(o->shapes[name]) +
                              " and " + item + ")");
    o->shapes[name] = n;
  }
  return true;
}

bool AddDefine(Options* o, const std::string& v, std::string* error) {
  size_t eq = v.find('=');
  int64_t n;
  if (eq == std::string::npos || eq == 0) return Error(error, "-D expects NAME=VALUE, got '" + v + "'");
  std::string name = v.substr(0, eq), val = v.substr(eq + 1);
  if (!IsIdentifier(name)) return Error(error, "-D name '" + name + "' is not an identifier");
  // NAME=V1,V2,...: the values --all-candidates tries (the first for the rest).
  std::vector<int64_t> values;
  for (const std::string& one : SplitCommas(val)) {
    if (one == "true") n = 1;
    else if (one == "false") n = 0;
    else if (auto type = ParseScalar(one)) n = EncodeTypeValue(*type);  // an element-type parameter's value
    else if (!ParseIntLiteral(one, &n))
      return Error(error, "-D value of '" + name + "' must be an integer (42, 0x2a, 0b101010), a bool or a scalar type, got '" +
                              one + "'");
    // A value listed twice is one candidate (not two writing one file).
    if (std::find(values.begin(), values.end(), n) == values.end()) values.push_back(n);
  }
  o->defines[name] = values.front();
  if (values.size() > 1) o->define_lists[name] = values;
  else o->define_lists.erase(name);
  return true;
}

bool DisableWarning(Options* o, const std::string& v, std::string* error) {
  std::vector<std::string> flags = WarningFlags();
  if (std::find(flags.begin(), flags.end(), v) == flags.end()) {
    std::string names;
    for (const std::string& f : flags) names += (names.empty() ? "" : ", ") + f;
    return Error(error, "unknown warning '-Wno-" + v + "' (warnings: " + names + ")");
  }
  o->disabled_warnings.insert(v);
  return true;
}

// The flags, in the order --help shows them.
const Flag kFlags[] = {
    {"--emit", Form::Separate, "KIND", kCompile,
     "what to produce: check (default: every diagnostic,\n"
     "through the whole lowering, no output), ast, ir (after\n"
     "the lowering pipeline), llvm (optimized LLVM IR), ptx,\n"
     "cubin (through ptxas), cuda (CUDA C++), meta (kernel\n"
     "metadata JSON), tm (with --op: the op's kernel as .tm),\n"
     "graph (each graph's partition into kernels), dot (the\n"
     "same for Graphviz)",
     SetEmit},
    {"--no-fuse", Form::Switch, nullptr, kCompile | kRun, "partition graphs into one kernel per operation",
     [](Options* o, const std::string&, std::string*) { return o->no_fuse = true, true; }},
    {"-o", Form::Separate, "FILE", kCompile | kDb | kLib, "write the output to FILE instead of standard output",
     [](Options* o, const std::string& v, std::string*) { return o->output = v, true; }},
    {"--arch", Form::Separate, "SM", kCompile | kRun | kTune | kLib,
     "target GPU: sm_80 (default), sm_86, sm_89, sm_90, sm_90a\n(tmc lib: a list, sm_80,sm_90a)", SetArch},
    {"-O0", Form::Switch, nullptr, kCompile | kTune | kLib, "optimization level for llvm, ptx and cubin (-O0 to -O3;\ndefault -O3): -O2 and -O3 run tmc's pass pipeline, -O0 and\n-O1 LLVM's",
     [](Options* o, const std::string&, std::string*) { return o->opt_level = 0, true; }},
    {"-O1", Form::Switch, nullptr, kCompile | kTune | kLib, nullptr,
     [](Options* o, const std::string&, std::string*) { return o->opt_level = 1, true; }},
    {"-O2", Form::Switch, nullptr, kCompile | kTune | kLib, nullptr,
     [](Options* o, const std::string&, std::string*) { return o->opt_level = 2, true; }},
    {"-O3", Form::Switch, nullptr, kCompile | kTune | kLib, nullptr,
     [](Options* o, const std::string&, std::string*) { return o->opt_level = 3, true; }},
    {"-ffp-contract=", Form::Joined, "fast|off", kCompile | kRun | kTune | kLib,
     "fuse a * b + c into one fma (fast, the default, as nvcc\n--fmad=true) or keep each rounding (off)",
     [](Options* o, const std::string& v, std::string* e) {
       if (v != "fast" && v != "off" && v != "on") return Error(e, "invalid value '" + v + "' in '-ffp-contract=" + v + "'; expected fast or off");
       return o->fp_contract = v != "off", true;
     }},
    {"-findex-bits=", Form::Joined, "32|64", kCompile | kRun | kTune | kLib,
     "width of element offsets into global tensors on the GPU:\n32 (default; the runtime refuses tensors of 2^31 or\nmore elements) or 64",
     [](Options* o, const std::string& v, std::string* e) {
       if (v != "32" && v != "64") return Error(e, "invalid value '" + v + "' in '-findex-bits=" + v + "'; expected 32 or 64");
       return o->index_bits = v == "32" ? 32 : 64, true;
     }},
    {"--all-candidates", Form::Switch, nullptr, kCompile,
     "compile every candidate of each kernel's parameter space\nthat satisfies its 'where' clause (one PTX, cubin or CUDA\nfile per candidate and index.json in the directory -o\nnames; -D NAME=V fixes a parameter, -D NAME=V1,V2 lists\nits values); on all cores",
     [](Options* o, const std::string&, std::string*) { return o->all_candidates = true, true; }},
    {"-j", Form::Separate, "N", kCompile | kTune, "threads for --all-candidates and tmc tune (default:\none per core)",
     [](Options* o, const std::string& v, std::string* e) {
       int64_t n;
       if (!ParseInt(v, &n) || n < 1 || n > 1024) return Error(e, "invalid thread count '" + v + "' for -j");
       return o->jobs = static_cast<int>(n), true;
     }},
    {"-ftime-report", Form::Switch, nullptr, kCompile,
     "print the time of each stage (parse, check, IR passes,\nLLVM optimization, NVPTX code generation, ptxas)\nto standard error",
     [](Options* o, const std::string&, std::string*) { return o->time_report = true, true; }},
    {"-lineinfo", Form::Switch, nullptr, kCompile, "PTX line information (.file/.loc) for the .tm source,\nas nvcc -lineinfo (profilers show .tm lines)",
     [](Options* o, const std::string&, std::string*) { return o->debug_info = std::max(o->debug_info, DebugInfo::LineTables), true; }},
    {"-g", Form::Switch, nullptr, kCompile, "full debug information (implies -lineinfo)",
     [](Options* o, const std::string&, std::string*) { return o->debug_info = DebugInfo::Full, true; }},
    {"-v", Form::Switch, nullptr, kCompile, "with --emit=cubin: print ptxas's resource report\n(registers, spills, shared memory)",
     [](Options* o, const std::string&, std::string*) { return o->ptxas_verbose = true, true; }},
    {"--print-after", Form::Separate, "PASS", kCompile, "print the IR after each run of PASS to standard error\n(repeatable)",
     [](Options* o, const std::string& v, std::string* e) { return CheckPass(v, e) && (o->print_after.insert(v), true); }},
    {"--print-after-all", Form::Switch, nullptr, kCompile, "print the IR after every pass that changes it",
     [](Options* o, const std::string&, std::string*) { return o->print_after_all = true, true; }},
    {"--stop-after", Form::Separate, "PASS", kCompile, "stop the pipeline after PASS",
     [](Options* o, const std::string& v, std::string* e) { return CheckPass(v, e) && (o->stop_after = v, true); }},
    {"--verify-each", Form::Switch, nullptr, kCompile, "verify the IR after every pass and the LLVM module",
     [](Options* o, const std::string&, std::string*) { return o->verify_each = true, true; }},
    {"--parse-only", Form::Switch, nullptr, kCompile, "stop after parsing (with --emit=ast: the raw tree)",
     [](Options* o, const std::string&, std::string*) { return o->parse_only = true, true; }},
    {"--verify-diagnostics", Form::Switch, nullptr, kCompile,
     "check diagnostics against expected-error/-warning/-note\ncomments in the source instead of printing them",
     [](Options* o, const std::string&, std::string*) { return o->verify_diagnostics = true, true; }},
    {"--split-input-file", Form::Switch, nullptr, kCompile, "treat each '// -----' separated chunk as its own file",
     [](Options* o, const std::string&, std::string*) { return o->split_input_file = true, true; }},
    {"--kernel", Form::Separate, "NAME", kCompile | kRun | kTune | kLib,
     "compile only the kernel NAME of the file; tmc run: the\nkernel to run (default: the file's only kernel);\n--all-candidates: the kernel whose space to compile\n(default: every kernel with parameters)",
     [](Options* o, const std::string& v, std::string*) { return o->kernel = v, o->lib_kernels.push_back(v), true; }},
    {"--graph", Form::Separate, "NAME", kCompile | kRun | kTune | kLib,
     "compile the graph NAME into its fused kernels (tmc run:\ncheck each against its part of the graph;\ndocs/fusion.md)",
     [](Options* o, const std::string& v, std::string*) { return o->graph = v, o->lib_graphs.push_back(v), true; }},
    {"--op", Form::Separate, "NAME", kCompile | kRun,
     "compile (or, with tmc run, check) the op NAME with an\nautomatic schedule instead of a hand-written kernel\n(docs/fusion.md)",
     [](Options* o, const std::string& v, std::string*) { return o->op = v, true; }},
    {"--shape", Form::Separate, "S=V,...", kCompile | kRun | kTune | kLib,
     "values of the shape symbols (each once); a compile\nand tmc run --target=cuda take the tuned parameters\nfor them from the tuning database", AddShapes},
    {"--check-shape", Form::Separate, "S=V,...", kTune,
     "the shape of each candidate's check on the CPU\nexecutor (default: each dimension at most 72)",
     [](Options* o, const std::string& v, std::string* e) {
       std::map<std::string, int64_t> saved;
       saved.swap(o->shapes);
       bool ok = AddShapes(o, v, e);
       o->check_shapes.swap(o->shapes);
       o->shapes.swap(saved);
       if (!ok) *e = "--check-shape" + e->substr(e->find(' '));
       return ok;
     }},
    {"--db", Form::Separate, "PATH", kCompile | kRun | kTune | kDb | kLib,
     "the tuning database (default: $TMC_TUNING_DB, else\n~/.cache/tmc/tuning.db)",
     [](Options* o, const std::string& v, std::string*) { return o->db_path = v, true; }},
    {"--no-tuning-db", Form::Switch, nullptr, kCompile | kRun | kLib,
     "ignore the tuning database (-D values and defaults)",
     [](Options* o, const std::string&, std::string*) { return o->no_tuning_db = true, true; }},
    {"--cache", Form::Switch, nullptr, kCompile,
     "use the compile cache (on by default for tmc run\nand tmc tune; $TMC_CACHE_DIR or ~/.cache/tmc/kernels)",
     [](Options* o, const std::string&, std::string*) { return o->cache = true, true; }},
    {"--no-cache", Form::Switch, nullptr, kCompile | kRun | kTune | kLib, "never read or write the compile cache",
     [](Options* o, const std::string&, std::string*) { return o->cache = false, true; }},
    {"--shared", Form::Switch, nullptr, kLib, "also build libNAME.so (linked with -ltmc_runtime)",
     [](Options* o, const std::string&, std::string*) { return o->lib_shared = true, true; }},
    {"--cpu", Form::Switch, nullptr, kLib,
     "also compile the kernels for the host: a CPU context\n(tmc_init(TMC_DEVICE_CPU), tmc_init_auto without a GPU)\nruns them on the CPU executor",
     [](Options* o, const std::string&, std::string*) { return o->lib_cpu = true, true; }},
    {"--depfile", Form::Separate, "FILE", kLib,
     "write the files the library depends on (the module and\nits imports) as a Makefile rule, for build systems",
     [](Options* o, const std::string& v, std::string*) { return o->depfile = v, true; }},
    {"--runtime-dir", Form::Separate, "DIR", kLib,
     "where tmc_runtime.h and libtmc_runtime are (a directory\nor a prefix; default: beside tmc, or $TMC_RUNTIME_DIR)",
     [](Options* o, const std::string& v, std::string*) { return o->runtime_dir = v, true; }},
    {"--keep-source", Form::Switch, nullptr, kLib, "keep the generated NAME.c beside NAME.h",
     [](Options* o, const std::string&, std::string*) { return o->lib_keep_source = true, true; }},
    {"--shard", Form::Separate, "I/N", kTune,
     "tune the I-th of N slices (0-based) of the candidates\n(of the plan's entries with --plan)",
     [](Options* o, const std::string& v, std::string* e) {
       size_t slash = v.find('/');
       int64_t i, n;
       if (slash == std::string::npos || !ParseInt(v.substr(0, slash), &i) || !ParseInt(v.substr(slash + 1), &n) ||
           n < 1 || i < 0 || i >= n)
         return Error(e, "--shard expects I/N with 0 <= I < N, got '" + v + "'");
       o->shard_index = static_cast<int>(i);
       o->shard_count = static_cast<int>(n);
       return true;
     }},
    {"--plan", Form::Separate, "FILE", kTune,
     "tune each line 'KERNEL S=V,...' of FILE (# comments)",
     [](Options* o, const std::string& v, std::string*) { return o->plan_file = v, true; }},
    {"--target", Form::Separate, "cpu|cuda", kRun, "the CPU executor (default) or the GPU",
     [](Options* o, const std::string& v, std::string* e) {
       if (v != "cpu" && v != "cuda") return Error(e, "unknown --target '" + v + "' (expected cpu or cuda)");
       return o->target = v, true;
     }},
    {"--seed", Form::Separate, "N", kRun, "seed of the random inputs (default 1)",
     [](Options* o, const std::string& v, std::string* e) {
       int64_t n;
       if (!ParseInt(v, &n) || n < 0) return Error(e, "invalid seed '" + v + "'");
       return o->seed = static_cast<uint64_t>(n), true;
     }},
    {"--check-bounds", Form::Switch, nullptr, kRun, "check every global, shared and register access",
     [](Options* o, const std::string&, std::string*) { return o->check_bounds = true, true; }},
    {"--check-races", Form::Switch, nullptr, kRun, "report data races between the threads of a block\nand between blocks",
     [](Options* o, const std::string&, std::string*) { return o->check_races = true, true; }},
    {"--bench", Form::Switch, nullptr, kRun, "time repeated runs (median, spread, GB/s)",
     [](Options* o, const std::string&, std::string*) { return o->bench = true, true; }},
    {"--save-case", Form::Separate, "DIR", kRun,
     "also write the PTX, metadata, inputs and reference\noutput to DIR, for bench/gpu/check.sh to replay on a GPU",
     [](Options* o, const std::string& v, std::string*) { return o->save_case = v, true; }},
    {"--timeout", Form::Separate, "SECONDS", kRun,
     "a block still running after this long on the CPU\nexecutor is a hang, reported at its loop (default 5;\n0: no limit)",
     [](Options* o, const std::string& v, std::string* e) {
       char* end = nullptr;
       double t = std::strtod(v.c_str(), &end);
       if (v.empty() || *end != 0 || !(t >= 0) || t > 1e6)
         return Error(e, "--timeout expects a number of seconds from 0 to 1000000, got '" + v + "'");
       return o->timeout = t, true;
     }},
    {"--arg", Form::Separate, "NAME=VALUE,...", kRun, "values of scalar parameters (default: 1, 1.0, true)",
     [](Options* o, const std::string& v, std::string* e) {
       for (const std::string& item : SplitCommas(v)) {
         size_t eq = item.find('=');
         if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
           return Error(e, "--arg expects NAME=VALUE[,...], got '" + item + "'");
         std::string name = item.substr(0, eq);
         if (o->args.count(name)) return Error(e, "--arg gives '" + name + "' twice");
         o->args[name] = item.substr(eq + 1);
       }
       return true;
     }},
    {"--rtol", Form::Separate, "X", kRun, "relative tolerance (default: per output type,\ndocs/runtime.md)",
     [](Options* o, const std::string& v, std::string* e) { return ParseTolerance(v, &o->rtol, e); }},
    {"--atol", Form::Separate, "X", kRun, "absolute tolerance (default: per output type)",
     [](Options* o, const std::string& v, std::string* e) { return ParseTolerance(v, &o->atol, e); }},
    {"--init-output", Form::Separate, "nan|zero", kRun,
     "the output before the run: NaN (or an integer\nsentinel) to find unwritten elements (default), or\nzero for kernels that accumulate into it",
     [](Options* o, const std::string& v, std::string* e) {
       if (v != "nan" && v != "zero") return Error(e, "unknown --init-output '" + v + "' (expected nan or zero)");
       return o->init_output = v, true;
     }},
    {"--profile", Form::Switch, nullptr, kRun, nullptr,
     [](Options* o, const std::string&, std::string*) { return o->profile = "text", true; }},
    {"--profile=", Form::Joined, "text|json", kRun,
     "memory behaviour per source line on the CPU executor:\nglobal sectors and coalescing, shared-memory bank\nconflicts, active lanes, barriers, bytes moved against\nevery tensor once (docs/runtime.md); json: the same\nas one JSON document on standard output",
     [](Options* o, const std::string& v, std::string* e) {
       if (v != "text" && v != "json") return Error(e, "unknown --profile format '" + v + "' (expected text or json)");
       return o->profile = v, true;
     }},
    {"--worker", Form::Separate, "W", kMapping, "list the tasks of worker W",
     [](Options* o, const std::string& v, std::string* e) {
       int64_t n;
       if (!ParseInt(v, &n)) return Error(e, "invalid worker '" + v + "'");
       return o->worker = n, true;
     }},
    {"--grid", Form::Switch, nullptr, kMapping, "draw the task domain with the owner of each task",
     [](Options* o, const std::string&, std::string*) { return o->grid = true, true; }},
    {"--threads", Form::Separate, "T", kMapping, "assume T workers run (default: the mapping's workers)",
     [](Options* o, const std::string& v, std::string* e) {
       int64_t n;
       if (!ParseInt(v, &n) || n < 0) return Error(e, "invalid thread count '" + v + "'");
       return o->threads = n, true;
     }},
    {"-I", Form::Separate, "DIR", kAll, "search DIR for imported modules",
     [](Options* o, const std::string& v, std::string*) { return o->include_dirs.push_back(v), true; }},
    {"--stdlib", Form::Separate, "DIR", kAll, "root of the standard library (import std.*)",
     [](Options* o, const std::string& v, std::string*) { return o->stdlib_dir = v, true; }},
    {"-D", Form::Separate, "NAME=VALUE", kAll,
     "set a compile-time parameter of a kernel (repeatable;\nwith --kernel, of that kernel only); for tmc mapping, a constant the expression may use",
     AddDefine},
    {"-Werror", Form::Switch, nullptr, kAll, "treat warnings as errors",
     [](Options* o, const std::string&, std::string*) { return o->warnings_as_errors = true, true; }},
    {"-w", Form::Switch, nullptr, kAll, "suppress warnings",
     [](Options* o, const std::string&, std::string*) { return o->no_warnings = true, true; }},
    {"-Wno-", Form::Joined, "FLAG", kAll, "suppress one warning, named as in its message\n([-Wunused-variable] -> -Wno-unused-variable)",
     DisableWarning},
    {"-ferror-limit=", Form::Joined, "N", kAll, "stop after N errors (0: no limit; default 20)",
     [](Options* o, const std::string& v, std::string* e) {
       int64_t n;
       if (!ParseInt(v, &n) || n < 0) return Error(e, "invalid error limit in '-ferror-limit=" + v + "'");
       return o->error_limit = static_cast<unsigned>(n), true;
     }},
    {"-fcolor-diagnostics", Form::Switch, nullptr, kAll, "colour diagnostics (default: when standard error is a\nterminal)",
     [](Options* o, const std::string&, std::string*) { return o->color = true, true; }},
    {"-fno-color-diagnostics", Form::Switch, nullptr, kAll, "never colour diagnostics",
     [](Options* o, const std::string&, std::string*) { return o->color = false, true; }},
};

const char* CommandName(unsigned c) {
  return c == kRun ? "tmc run" : c == kMapping ? "tmc mapping" : c == kTune ? "tmc tune" : c == kDb ? "tmc db"
         : c == kLib ? "tmc lib" : "tmc";
}

std::string Usage(unsigned command) {
  std::string s;
  if (command == kCompile) {
    s = "tmc: a compiler for .tm tensor programs scheduled with task mappings\n\n"
        "usage:\n"
        "  tmc [options] FILE.tm             check FILE.tm and emit what --emit names\n"
        "  tmc run FILE.tm [options]         run a kernel on random inputs and compare it with its op\n"
        "  tmc mapping EXPR [options]        show a task mapping's workers, tasks and coverage\n"
        "  tmc tune FILE.tm [options]        search a kernel's parameters, record the best\n"
        "  tmc db show|export|import|merge   the tuning database\n"
        "  tmc lib FILE.tm -o DIR/NAME       a C library (NAME.h, libNAME.a) of its kernels and graphs\n\n"
        "'tmc run --help', 'tmc mapping --help', 'tmc tune --help', 'tmc db --help' and\n"
        "'tmc lib --help' list the options of those commands.\n\n";
  } else if (command == kRun) {
    s = "tmc run: run a kernel on random inputs and compare it with the op it implements\n\n"
        "usage:\n"
        "  tmc run FILE.tm [--kernel K] --shape M=..,N=.. [options]\n\n";
  } else if (command == kTune) {
    s = "tmc tune: search a kernel's compile-time parameters and record the best in the\n"
        "tuning database (docs/tuning.md)\n\n"
        "usage:\n"
        "  tmc tune FILE.tm --kernel K --shape M=..,N=.. [options]\n"
        "  tmc tune FILE.tm --graph G --shape M=.. [--kernel K] [options]\n"
        "  tmc tune FILE.tm --plan PLAN [options]\n\n";
  } else if (command == kLib) {
    s = "tmc lib: a C library from a .tm module: NAME.h and libNAME.a, one function per\n"
        "kernel and graph, code for every --arch embedded (docs/deploy.md)\n\n"
        "usage:\n"
        "  tmc lib FILE.tm -o DIR/NAME [--arch sm_80,sm_90a] [--kernel K ...] [--graph G ...] [--shared] [--cpu]\n\n";
  } else if (command == kDb) {
    s = "tmc db: the tuning database (docs/tuning.md)\n\n"
        "usage:\n"
        "  tmc db show [--db PATH]              the best parameters, then every measurement\n"
        "  tmc db export [--db PATH] [-o FILE]  as JSON\n"
        "  tmc db import FILE.json [--db PATH]  add an export's entries\n"
        "  tmc db merge A.db B.db ... [--db PATH]  add other databases' entries (the better\n"
        "                                       result wins where both have one)\n\n";
  } else {
    s = "tmc mapping: show a task mapping's workers, tasks and coverage\n\n"
        "usage:\n"
        "  tmc mapping EXPR [options]        EXPR may use the constants of the standard\n"
        "                                    library and of -I modules (tmc mapping mma_c)\n\n";
  }
  s += "options:\n";
  auto line = [&](const std::string& left, const char* help) {
    std::string text = help;
    std::string pad(26, ' ');
    std::string first = "  " + left;
    first += first.size() < 26 ? std::string(26 - first.size(), ' ') : "\n" + pad;
    size_t nl;
    while ((nl = text.find('\n')) != std::string::npos) {
      first += text.substr(0, nl) + "\n" + pad;
      text = text.substr(nl + 1);
    }
    s += first + text + "\n";
  };
  for (const Flag& f : kFlags) {
    if (!(f.commands & command) || !f.help) continue;
    std::string left = f.name;
    if (left == "-O0") left = "-O0 ... -O3";
    else if (left == "--profile=") left = "--profile[=text|json]";
    else if (f.form == Form::Joined) left += f.value_name;
    else if (f.form == Form::Separate) left += (left.size() == 2 ? " " : "=") + std::string(f.value_name);
    line(left, f.help);
  }
  line("--help", "show this help");
  line("--version", "show the version");
  return s;
}

bool Fail(const std::string& msg, unsigned command) {
  std::fprintf(stderr, "tmc: error: %s\n(run '%s --help' for usage)\n", msg.c_str(), CommandName(command));
  return false;
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options* o, bool* exit_now) {
  *exit_now = false;
  int i = 1;
  unsigned command = kCompile;
  if (argc > 1 && std::string(argv[1]) == "mapping") {
    o->command = "mapping";
    command = kMapping;
    i = 2;
  } else if (argc > 1 && std::string(argv[1]) == "run") {
    o->command = "run";
    command = kRun;
    i = 2;
  } else if (argc > 1 && std::string(argv[1]) == "tune") {
    o->command = "tune";
    command = kTune;
    i = 2;
  } else if (argc > 1 && std::string(argv[1]) == "db") {
    o->command = "db";
    command = kDb;
    i = 2;
  } else if (argc > 1 && std::string(argv[1]) == "lib") {
    o->command = "lib";
    command = kLib;
    i = 2;
  }
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(Usage(command).c_str(), stdout);
      *exit_now = true;
      return true;
    }
    if (a == "--version") {
      std::printf("tmc %s\n", kTmcVersion);
      *exit_now = true;
      return true;
    }
    // A lone '-' or anything not starting with '-' is an input.
    if (a.size() < 2 || a[0] != '-') {
      o->inputs.push_back(a);
      continue;
    }
    const Flag* flag = nullptr;
    std::string value;
    bool missing_value = false;
    for (const Flag& f : kFlags) {
      std::string name = f.name;
      if (f.form == Form::Switch) {
        if (a != name) continue;
      } else if (f.form == Form::Joined) {
        if (a.rfind(name, 0) != 0) continue;
        value = a.substr(name.size());
      } else if (a == name) {
        if (i + 1 >= argc) missing_value = true;
        else value = argv[++i];
      } else if (a.rfind(name + "=", 0) == 0) {
        value = a.substr(name.size() + 1);
      } else if (name.size() == 2 && a.rfind(name, 0) == 0) {
        value = a.substr(2);  // -Ifoo, -DNAME=1, -ofile
      } else {
        continue;
      }
      flag = &f;
      break;
    }
    if (!flag) return Fail("unknown option '" + a + "'", command);
    if (missing_value) return Fail("missing value after '" + a + "'", command);
    if (!(flag->commands & command)) {
      std::vector<std::string> names;
      for (unsigned c : {kCompile, kRun, kMapping, kTune, kDb, kLib})
        if (flag->commands & c) names.push_back("'" + std::string(CommandName(c)) + "'");
      std::string users;
      for (size_t n = 0; n < names.size(); ++n)
        users += (n == 0 ? "" : n + 1 == names.size() ? " and " : ", ") + names[n];
      return Fail("option '" + std::string(flag->name) + "' is not used by '" + CommandName(command) +
                      "' (it is an option of " + users + ")",
                  command);
    }
    std::string error;
    if (!flag->apply(o, value, &error)) return Fail(error, command);
  }
  if (command == kDb) {
    static const char* kActions[] = {"show", "export", "import", "merge"};
    if (o->inputs.empty() || std::find(std::begin(kActions), std::end(kActions), o->inputs[0]) == std::end(kActions))
      return Fail(o->inputs.empty() ? "no action given (show, export, import or merge)"
                                    : "unknown action '" + o->inputs[0] + "' (expected show, export, import or merge)",
                  command);
    size_t files = o->inputs.size() - 1;
    if ((o->inputs[0] == "show" || o->inputs[0] == "export") && files != 0)
      return Fail("'tmc db " + o->inputs[0] + "' takes no file (the database is --db PATH)", command);
    if (o->inputs[0] == "import" && files != 1) return Fail("'tmc db import' takes one JSON file", command);
    if (o->inputs[0] == "merge" && files == 0) return Fail("'tmc db merge' needs the databases to merge in", command);
    return true;
  }
  if (command == kTune) {
    if (o->plan_file.empty() && o->kernel.empty() && o->graph.empty())
      return Fail("name the kernel to tune with --kernel (or give --graph or --plan)", command);
    if (o->plan_file.empty() && o->shapes.empty())
      return Fail("give the shape to tune for with --shape M=..,N=.. (or give --plan)", command);
    if (!o->plan_file.empty() && !o->graph.empty())
      return Fail("--plan names kernels of the file: it takes no --graph", command);
    if (!o->plan_file.empty() && (!o->kernel.empty() || !o->shapes.empty()))
      return Fail("--plan names the kernels and shapes: it takes no --kernel or --shape", command);
  }
  if (command != kLib && o->lib_archs.size() > 1)
    return Fail("--arch lists several archs only for tmc lib (a compile writes one)", command);
  if (command != kLib && o->lib_graphs.size() > 1) return Fail("--graph is given twice", command);
  if (command == kLib) {
    if (o->output.empty() || o->output == "-") return Fail("name the library with -o DIR/NAME", command);
    if (o->lib_archs.empty()) o->lib_archs = {o->arch};
  }
  if (o->inputs.size() != 1)
    return Fail(o->inputs.empty() ? (command == kMapping ? "no mapping expression given" : "no input file")
                                  : "exactly one input is expected",
                command);
  if (!o->all_candidates && !o->define_lists.empty())
    return Fail("-D " + o->define_lists.begin()->first + "=V1,V2,... lists values to try: it needs --all-candidates",
                command);
  if (!o->op.empty() && !o->graph.empty()) return Fail("'--op' and '--graph' cannot be combined", command);
  if (!o->graph.empty() && o->all_candidates)
    return Fail("'--graph' and '--all-candidates' cannot be combined (yet)", command);
  if (command == kCompile && !o->graph.empty() && !o->kernel.empty())
    return Fail("'--graph' compiles all of the graph's kernels: it takes no '--kernel'", command);
  if (!o->op.empty() && !o->kernel.empty())
    return Fail("'--op' compiles the op's automatic kernel: it takes no '--kernel'", command);
  if (!o->op.empty() && o->all_candidates)
    return Fail("'--op' and '--all-candidates' cannot be combined (yet): compile the --emit=tm kernel's candidates",
                command);
  if (o->emit == "tm" && o->op.empty() && o->graph.empty())
    return Fail("--emit=tm prints generated kernels: it needs --op NAME or --graph NAME", command);
  if (command == kCompile && !o->shapes.empty() && (o->all_candidates || !o->op.empty()))
    return Fail("--shape chooses tuned parameters for a compile of a file's or a graph's kernels: not with "
                "--all-candidates or --op",
                command);
  if (command == kCompile && !o->kernel.empty() && o->op.empty() && o->graph.empty()) {
    if (o->lib_kernels.size() > 1) return Fail("a compile takes one '--kernel' (or none: every kernel)", command);
    if (!o->all_candidates && (o->emit == "ast" || o->emit == "graph" || o->emit == "dot" || o->parse_only ||
                               o->split_input_file))
      return Fail(std::string("'--kernel' keeps one kernel in the compiled output: not with ") +
                      (o->split_input_file ? "--split-input-file"
                       : o->parse_only     ? "--parse-only"
                                           : "--emit=" + o->emit),
                  command);
  }
  if (command == kCompile && !o->all_candidates) {
    if (o->jobs) return Fail("'-j' sets the threads of --all-candidates: it needs --all-candidates", command);
  }
  if (!o->profile.empty()) {
    if (o->target != "cpu")
      return Fail("--profile measures the CPU executor's accesses: it needs --target=cpu", command);
    if (o->bench)
      return Fail("--profile instruments every access, which --bench would time: use them in separate runs", command);
  }
  if (o->all_candidates) {
    if (o->output.empty() || o->output == "-")
      return Fail("--all-candidates writes one file per candidate: name a directory with -o", command);
    if (o->emit != "ptx" && o->emit != "cubin" && o->emit != "cuda" && o->emit != "check")
      return Fail("--all-candidates writes ptx, cubin or cuda (not --emit=" + o->emit + ")", command);
    if (o->emit == "check") o->emit = "ptx";
  }
  return true;
}

}  // namespace tmc::driver
