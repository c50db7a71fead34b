// What the subcommands of the driver share: the frontend and diagnostics
// set up from the command line, and writing a file.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "frontend/compilation.h"
#include "support/diagnostics.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// The frontend's options from the command line: -I, --stdlib, -D.
CompileOptions FrontendOptions(const Options& o);

/// -Werror, -w, -Wno-FLAG and -ferror-limit applied to `diags`.
void ApplyDiagnosticOptions(const Options& o, DiagnosticEngine& diags);

/// A subcommand's frontend: sources, diagnostics printed to stderr with the
/// command line's settings, and a compilation made when asked (after the
/// caller has adjusted its options: graph kernels, tuned values).
struct CommandFrontend {
  SourceManager sm;
  TextDiagnosticPrinter printer{sm, stderr};
  DiagnosticEngine diags{sm, printer};
  std::unique_ptr<Compilation> compilation;

  explicit CommandFrontend(const Options& o) { ApplyDiagnosticOptions(o, diags); }
  /// Parses and checks `path` with `o`'s frontend options (-I, -D, ...);
  /// null as Compilation::CompileFile.
  sema::CheckedModule* Compile(const Options& o, const std::string& path) {
    compilation = std::make_unique<Compilation>(sm, diags, FrontendOptions(o));
    return compilation->CompileFile(path);
  }
};

/// The running tmc's own path (/proc/self/exe): its prefix locates an
/// installed stdlib and runtime; tmc tune runs it for its checks.
std::string SelfPath();

/// What a child process printed and how it ended (128 + N for signal N;
/// -1 when it could not start, with the reason in `err`).
struct ProcessResult {
  int exit_code = -1;
  std::string out, err;  // with `merged`: both streams interleaved in `out`
};

/// Runs `argv` (no shell; argv[0] looked up in PATH), its standard output
/// and error in temporary files.
ProcessResult RunProcess(const std::vector<std::string>& argv, bool merged = false);

/// Writes `bytes` to `path`; on failure false, with `error` naming the
/// file and the reason.
bool WriteFile(const std::string& path, const std::string& bytes, std::string* error);

/// Every combination of a kernel's compile-time parameter values, in the
/// order the candidates are listed (the first parameter slowest): a -D
/// value list, a single -D value, or the candidate list; a parameter with
/// none of these keeps its default (no entry).
/// tmc run's random inputs: uniform in ±[0.0625, 1.0625) for floats, never
/// zero (zeros hide unwritten outputs and wrong indexing); ±1..8 for
/// integers (unsigned: 1..8); true for bool. `uniform` draws in [-1, 1).
double RandomInputValue(ScalarKind k, std::mt19937_64& rng, std::uniform_real_distribution<double>& uniform);

std::vector<std::vector<std::pair<std::string, int64_t>>> CandidateSpace(const sema::KernelInstance& k, const Options& o);

/// How many of `combo`'s values differ from those `k` was compiled with
/// (its -D values, defaults, first candidates): 0 for the default
/// candidate. tmc run tries the candidates with the fewest first.
int ChangedParams(const sema::KernelInstance& k, const std::vector<std::pair<std::string, int64_t>>& combo);

/// tmc run's error for the first --arg that names none of `scalars`, the
/// scalar parameters of `owner` ("kernel 'k'", "graph 'g'"); empty when
/// each names one.
std::string UnknownScalarArgError(const std::string& owner, const std::vector<std::string>& scalars,
                                  const std::map<std::string, std::string>& args);

}  // namespace tmc::driver
