// The lowering pipeline from checked IR to IR ready for code generation.
#pragma once

#include <set>
#include <string>

#include "ir/transforms/pass.h"

namespace tmc::ir {

struct PipelineOptions {
  std::set<std::string> print_after;  // --print-after=NAME (repeatable)
  bool print_after_all = false;
  std::string stop_after;             // --stop-after=NAME
  // --verify-each; always on in debug builds and when the environment sets
  // TMC_VERIFY_EACH (to anything but 0), as the test suite does.
  bool verify_each = false;
  // Keep the body each pass started from, once the pass has replaced it,
  // in Module::replaced: for a process that leaves the module to its exit
  // (tools/tmc/teardown.h), which then never frees those trees node by node
  // (1.7% of compiling one of std.attention's kernels; trees a pass builds
  // and drops within itself are still freed).
  bool keep_replaced = false;
};

/// True if `name` is a registered pass.
bool IsPassName(const std::string& name);
/// The registered pass names, in pipeline order.
std::vector<std::string> PassNames();

/// Runs the pipeline on every function of `m`. IR printed by --print-after
/// goes to `log`. Returns false when a pass reported a user error.
bool RunPipeline(Module& m, PassContext& ctx, const PipelineOptions& options, std::string* log);

/// Whether compilations check their own output (the IR after every pass,
/// the LLVM module the code generator emits): always in debug builds, and
/// in release builds with --verify-each (`requested`) or TMC_VERIFY_EACH=1
/// in the environment, which the test suite sets (test/lit.cfg.py). A
/// failure is a compiler bug, reported as an internal error.
bool VerifyEach(bool requested);

}  // namespace tmc::ir
