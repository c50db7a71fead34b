// Flags follow the conventions of clang: -o, -I DIR, -DNAME=VALUE (or -D
// NAME=VALUE), --flag=value.
#include "tools/tmc/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstdlib>

#include "ir/transforms/pipeline.h"
#include "tools/tmc/version.h"

namespace tmc::driver {
namespace {

constexpr const char* kUsage = R"(tmc: a compiler for .tm tensor programs scheduled with task mappings

usage:
  tmc [options] FILE.tm             check FILE.tm and emit what --emit names
  tmc mapping EXPR [options]        show a task mapping's workers, tasks and coverage
  tmc run FILE.tm --kernel K --shape M=..,N=.. [options]
                                    run a kernel on random inputs and compare it with its op

compile options:
  --emit=KIND             what to produce: check (default: diagnostics only),
                          ast, ir (after the lowering pipeline), llvm (optimized
                          LLVM IR), ptx, cubin (through ptxas), cuda (CUDA C++),
                          meta (kernel metadata JSON)
  -v                      with --emit=cubin: print ptxas's resource report
                          (registers, spills, shared memory)
  --arch=SM               target GPU: sm_80 (default), sm_86, sm_89, sm_90, sm_90a
  --print-after=PASS      print the IR after each run of PASS (repeatable)
  --print-after-all       print the IR after every pass that changes it
  --stop-after=PASS       stop the pipeline after PASS
  --verify-each           verify the IR after every pass
  -o FILE                 write the output to FILE instead of standard output
  -I DIR                  search DIR for imported modules
  -D NAME=VALUE           set a compile-time parameter (repeatable)
  --stdlib=DIR            root of the standard library (import std.*)
  --parse-only            stop after parsing (with --emit=ast: the raw tree)
  --verify-diagnostics    check diagnostics against expected-error/-warning/-note
                          comments in the source instead of printing them
  --split-input-file      treat each '// -----' separated chunk as its own file
  -Werror                 treat warnings as errors
  -w                      suppress warnings
  -ferror-limit=N         stop after N errors (0: no limit; default 20)

run options:
  --kernel NAME           the kernel to run (default: the file's only kernel)
  --shape S=V,...         values of the shape symbols
  --target=cpu|cuda       the CPU executor (default) or the GPU
  --seed N                seed of the random inputs (default 1)
  --check-bounds          check every global, shared and register access
  --check-races           report data races between the threads of a block
                          and between blocks
  --timeout SECONDS       a block still running after this long on the CPU
                          executor is a hang, reported at its loop (default 5;
                          0: no limit)
  --bench                 time repeated runs (median, spread, GB/s)
  --save-case DIR         also write the PTX, metadata, inputs and reference
                          output to DIR, for bench/gpu/check.sh to replay on a GPU
  --arg NAME=VALUE,...    values of scalar parameters (default: 1, 1.0, true)
  --rtol X, --atol X      tolerances (default: per output type, docs/runtime.md)
  --init-output=nan|zero  the output before the run: NaN (or an integer
                          sentinel) to find unwritten elements (default), or
                          zero for kernels that accumulate into it

mapping options:
  --worker W              list the tasks of worker W
  --grid                  draw the task domain with the owner of each task
  --threads T             assume T workers run (default: the mapping's workers)

  --help                  show this help
  --version               show the version
)";

bool ParseInt(const std::string& text, int64_t* out) {
  const char* b = text.data();
  const char* e = b + text.size();
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e;
}

bool Fail(const std::string& msg) {
  std::fprintf(stderr, "tmc: error: %s\n(run 'tmc --help' for usage)\n", msg.c_str());
  return false;
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options* o, bool* exit_now) {
  *exit_now = false;
  int i = 1;
  if (argc > 1 && std::string(argv[1]) == "mapping") {
    o->command = "mapping";
    i = 2;
  } else if (argc > 1 && std::string(argv[1]) == "run") {
    o->command = "run";
    i = 2;
  }
  bool missing_value = false;
  auto value_of = [&](const std::string& arg, const std::string& flag, std::string* v) {
    // Accepts "-Ivalue", "-I value", "--flag=value", "--flag value".
    if (arg == flag) {
      if (i + 1 >= argc) {
        missing_value = true;
        return false;
      }
      *v = argv[++i];
      return true;
    }
    if (arg.rfind(flag + "=", 0) == 0) {
      *v = arg.substr(flag.size() + 1);
      return true;
    }
    if (flag.size() == 2 && arg.rfind(flag, 0) == 0) {
      *v = arg.substr(2);
      return true;
    }
    return false;
  };
  for (; i < argc; ++i) {
    std::string a = argv[i], v;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      *exit_now = true;
      return true;
    }
    if (a == "--version") {
      std::printf("tmc %s\n", kTmcVersion);
      *exit_now = true;
      return true;
    }
    if (a == "--verify-diagnostics") o->verify_diagnostics = true;
    else if (a == "--split-input-file") o->split_input_file = true;
    else if (a == "--parse-only") o->parse_only = true;
    else if (a == "-Werror") o->warnings_as_errors = true;
    else if (a == "-w") o->no_warnings = true;
    else if (a == "--grid") o->grid = true;
    else if (a == "--print-after-all") o->print_after_all = true;
    else if (a == "--verify-each") o->verify_each = true;
    else if (a == "-v") o->ptxas_verbose = true;
    else if (a == "--check-bounds") o->check_bounds = true;
    else if (a == "--check-races") o->check_races = true;
    else if (a == "--bench") o->bench = true;
    else if (a.rfind("-ferror-limit=", 0) == 0) {
      int64_t n;
      if (!ParseInt(a.substr(14), &n) || n < 0) return Fail("invalid error limit in '" + a + "'");
      o->error_limit = static_cast<unsigned>(n);
    } else if (value_of(a, "--emit", &v)) {
      static const char* kKinds[] = {"check", "ast", "ir", "llvm", "ptx", "cubin", "cuda", "meta"};
      if (std::find(std::begin(kKinds), std::end(kKinds), v) == std::end(kKinds))
        return Fail("unknown --emit kind '" + v + "' (expected check, ast, ir, llvm, ptx, cubin, cuda or meta)");
      o->emit = v;
    } else if (value_of(a, "--print-after", &v) || value_of(a, "--stop-after", &v)) {
      if (!ir::IsPassName(v)) {
        std::string names;
        for (const std::string& n : ir::PassNames()) names += (names.empty() ? "" : ", ") + n;
        return Fail("unknown pass '" + v + "' (passes: " + names + ")");
      }
      if (a.rfind("--print-after", 0) == 0) o->print_after.insert(v);
      else o->stop_after = v;
    } else if (value_of(a, "--arch", &v)) {
      static const std::pair<const char*, int> kArchs[] = {
          {"sm_80", 80}, {"sm_86", 86}, {"sm_89", 89}, {"sm_90", 90}, {"sm_90a", 90}};
      bool found = false;
      for (auto& [name, sm] : kArchs)
        if (v == name) {
          o->arch = v;
          o->sm = sm;
          found = true;
        }
      if (!found) return Fail("unknown --arch '" + v + "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)");
    } else if (value_of(a, "--save-case", &v)) {
      o->save_case = v;
    } else if (value_of(a, "--arg", &v)) {
      size_t start = 0;
      while (start <= v.size()) {
        size_t comma = v.find(',', start);
        std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
          return Fail("--arg expects NAME=VALUE[,...], got '" + item + "'");
        std::string name = item.substr(0, eq);
        if (o->args.count(name)) return Fail("--arg gives '" + name + "' twice");
        o->args[name] = item.substr(eq + 1);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (value_of(a, "--rtol", &v) || value_of(a, "--atol", &v)) {
      char* end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(x >= 0) || std::isinf(x)) return Fail("invalid tolerance '" + v + "' (expected a number >= 0)");
      (a.rfind("--rtol", 0) == 0 ? o->rtol : o->atol) = x;
    } else if (value_of(a, "--init-output", &v)) {
      if (v != "nan" && v != "zero") return Fail("unknown --init-output '" + v + "' (expected nan or zero)");
      o->init_output = v;
    } else if (value_of(a, "--kernel", &v)) {
      o->kernel = v;
    } else if (value_of(a, "--target", &v)) {
      if (v != "cpu" && v != "cuda") return Fail("unknown --target '" + v + "' (expected cpu or cuda)");
      o->target = v;
    } else if (value_of(a, "--timeout", &v)) {
      char* end = nullptr;
      double t = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != 0 || !(t >= 0) || t > 1e6)
        return Fail("--timeout expects a number of seconds from 0 to 1000000, got '" + v + "'");
      o->timeout = t;
    } else if (value_of(a, "--seed", &v)) {
      int64_t n;
      if (!ParseInt(v, &n) || n < 0) return Fail("invalid seed '" + v + "'");
      o->seed = static_cast<uint64_t>(n);
    } else if (value_of(a, "--shape", &v)) {
      size_t start = 0;
      while (start <= v.size()) {
        size_t comma = v.find(',', start);
        std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        size_t eq = item.find('=');
        int64_t n;
        if (eq == std::string::npos || eq == 0 || !ParseInt(item.substr(eq + 1), &n) || n <= 0)
          return Fail("--shape expects NAME=POSITIVE_INT[,...], got '" + item + "'");
        if (o->shapes.count(item.substr(0, eq))) return Fail("--shape gives '" + item.substr(0, eq) + "' twice");
        o->shapes[item.substr(0, eq)] = n;
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (value_of(a, "--stdlib", &v)) {
      o->stdlib_dir = v;
    } else if (value_of(a, "--worker", &v)) {
      int64_t n;
      if (!ParseInt(v, &n)) return Fail("invalid worker '" + v + "'");
      o->worker = n;
    } else if (value_of(a, "--threads", &v)) {
      int64_t n;
      if (!ParseInt(v, &n) || n < 0) return Fail("invalid thread count '" + v + "'");
      o->threads = n;
    } else if (value_of(a, "-o", &v)) {
      o->output = v;
    } else if (value_of(a, "-I", &v)) {
      o->include_dirs.push_back(v);
    } else if (value_of(a, "-D", &v)) {
      size_t eq = v.find('=');
      int64_t n;
      if (eq == std::string::npos || eq == 0) return Fail("-D expects NAME=VALUE, got '" + v + "'");
      std::string val = v.substr(eq + 1);
      if (val == "true") n = 1;
      else if (val == "false") n = 0;
      else if (!ParseInt(val, &n)) return Fail("-D value of '" + v.substr(0, eq) + "' must be an integer or bool");
      o->defines[v.substr(0, eq)] = n;
    } else if (missing_value) {
      return Fail("missing value after '" + a + "'");
    } else if (a.size() > 1 && a[0] == '-') {
      return Fail("unknown option '" + a + "'");
    } else {
      o->inputs.push_back(a);
    }
  }
  if (o->inputs.size() != 1)
    return Fail(o->inputs.empty() ? (o->command == "mapping" ? "no mapping expression given" : "no input file")
                                  : "exactly one input is expected");
  return true;
}

}  // namespace tmc::driver
