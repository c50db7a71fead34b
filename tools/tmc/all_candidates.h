// tmc FILE.tm --all-candidates -o DIR: every candidate of a kernel's
// parameter space, compiled in one process on all cores.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tools/tmc/options.h"

namespace tmc::driver {

using ParamValues = std::vector<std::pair<std::string, int64_t>>;

/// "BM=128,BN=64,T=f16": a candidate's values as `-D` and the tuning
/// database write them.
std::string ParamValuesText(const ParamValues& params);

struct CandidateResult {
  std::string kernel;
  ParamValues params;
  enum class Status { Ok, Excluded, Failed } status = Status::Failed;
  std::string reason;        // excluded: the constraint; failed: the diagnostics
  std::string output, meta;  // what --emit asks for, and the kernel metadata
  std::string ptxas_report;  // with `ptxas_report`: ptxas -v's output
};

/// Checks and compiles each (kernel, values) of `todo` of the file
/// `o.inputs[0]`: the front ends one after another on this thread, the
/// lowering and LLVM (and with `ptxas_report`, ptxas -v on the PTX) on
/// `-j` threads, each with its own LLVM context. Candidates whose `where`
/// fails are Excluded; any other error makes one Failed, not the others.
/// `on_compiled(i, result)`, when given, runs on the worker thread right
/// after candidate i's back end (Ok or Failed there), so that a caller can
/// go on with it (tmc tune checks it) while others compile. With
/// `others_checked` (the caller checked the whole file without errors),
/// each candidate parses the file's other kernels without their bodies
/// (CompileOptions::main_kernel_only); otherwise it reads them whole, so
/// that an error in one fails the candidate.
std::vector<CandidateResult> CompileCandidates(
    const Options& o, const std::vector<std::pair<std::string, ParamValues>>& todo, bool ptxas_report,
    bool others_checked, const std::function<void(size_t, CandidateResult&)>& on_compiled = nullptr);

/// For each kernel with compile-time parameters (or `--kernel`), every
/// combination of their `in [...]` values (a `-D` value fixes one) is
/// checked; those whose `where` clause fails are excluded, the others are
/// lowered and compiled on `-j` threads, each with its own LLVM context.
/// Writes one output per candidate and `index.json` into the directory
/// `-o` names. A candidate that fails is reported with its parameters and
/// its diagnostics, and does not stop the others. Returns the exit code:
/// 1 if the file does not compile or any candidate failed.
int CompileAllCandidates(const Options& o);

}  // namespace tmc::driver
