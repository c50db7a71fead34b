// tmc FILE.tm --all-candidates -o DIR: every candidate of a kernel's
// parameter space, compiled in one process on all cores.
#pragma once

#include "tools/tmc/options.h"

namespace tmc::driver {

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
