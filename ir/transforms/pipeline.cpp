// The pipeline, in order, with the reason for each position.
#include "ir/transforms/pipeline.h"

#include <fmt/format.h>

#include <cstdlib>

#include "ir/printer.h"
#include "ir/transforms/check_register_indices.h"
#include "ir/transforms/check_register_memory.h"
#include "ir/transforms/check_target_features.h"
#include "ir/transforms/flatten_buffers.h"
#include "ir/transforms/lower_task_mappings.h"
#include "ir/transforms/plan_shared_memory.h"
#include "ir/transforms/simplify.h"
#include "ir/transforms/sink_wgmma_fences.h"
#include "ir/transforms/split_tails.h"
#include "ir/transforms/unroll.h"
#include "ir/verifier.h"
#include "support/check.h"

namespace tmc::ir {
namespace {

using PassFn = void (*)(Function&, PassContext&);

struct Step {
  const char* name;
  PassFn run;
  VerifyStage after;  // what holds once this step has run
};

const std::vector<Step>& Pipeline() {
  static const std::vector<Step> kSteps = {
      // Before anything else: a kernel with instructions the target lacks
      // goes no further than this error.
      {"check-target-features", CheckTargetFeatures, {false, false}},
      // Task mappings first: everything after sees plain loops and arrays.
      {"lower-task-mappings", LowerTaskMappings, {true, false}},
      // Before unrolling, while a tile's guarded accesses are still one
      // loop: split full tiles (no guards) from the tail.
      {"split-tails", SplitTails, {true, false}},
      // Unroll the repeat loops, so that register-array indices become
      // constants that simplify can fold.
      {"unroll", Unroll, {true, false}},
      // Fold constants, drop mapping guards that the block size proves
      // redundant, and simplify div/mod of thread indices.
      {"simplify", Simplify, {true, false}},
      // Once unrolling and folding have removed the ifs they decide: a
      // wgmma's fence and commit into each branch of an if around it.
      {"sink-wgmma-fences", SinkWgmmaFences, {true, false}},
      // Only now flatten: index arithmetic is already as simple as the
      // multi-dimensional form allows.
      {"flatten-buffers", FlattenBuffers, {true, true}},
      // Fold the flattened offsets (constant register indices, strides).
      {"simplify", Simplify, {true, true}},
      // Now every register index that can be a constant is one.
      {"check-register-indices", CheckRegisterIndices, {true, true}},
      // After unrolling, which multiplies declarations inside loops.
      {"check-register-memory", CheckRegisterMemory, {true, true}},
      {"plan-shared-memory", PlanSharedMemory, {true, true}},
  };
  return kSteps;
}

}  // namespace

bool IsPassName(const std::string& name) {
  for (const Step& s : Pipeline())
    if (name == s.name) return true;
  return false;
}

std::vector<std::string> PassNames() {
  std::vector<std::string> names;
  for (const Step& s : Pipeline())
    if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
  return names;
}

bool VerifyEach(bool requested) {
  // The test suite sets TMC_VERIFY_EACH (test/lit.cfg.py), so that its
  // release build verifies every compilation of every test, `tmc run`
  // included, as a debug build does.
#ifndef NDEBUG
  (void)requested;
  return true;
#else
  const char* env = std::getenv("TMC_VERIFY_EACH");
  return requested || (env && *env && std::string(env) != "0");
#endif
}

bool RunPipeline(Module& m, PassContext& ctx, const PipelineOptions& options, std::string* log) {
  unsigned errors = ctx.diags ? ctx.diags->ErrorCount() : 0;
  bool verify = VerifyEach(options.verify_each);
  for (auto& fn : m.functions) {
    for (const Step& step : Pipeline()) {
      std::string before = options.print_after_all ? Print(*fn) : "";
      Stmt body = options.keep_replaced ? fn->body : nullptr;
      step.run(*fn, ctx);
      if (body && fn->body != body) m.replaced.push_back(std::move(body));
      if (verify) {
        std::vector<std::string> problems = Verify(*fn, step.after);
        if (!problems.empty())
          TMC_CHECK(false, fmt::format("IR verification failed after {} in {}: {}", step.name, fn->name,
                                       problems.front()));
      }
      bool print = options.print_after.count(step.name) > 0 ||
                   (options.print_after_all && Print(*fn) != before);
      if (print) *log += fmt::format("// -----// IR after {} //----- //\n{}", step.name, Print(*fn));
      if (options.stop_after == step.name) break;
    }
  }
  return !ctx.diags || ctx.diags->ErrorCount() == errors;
}

}  // namespace tmc::ir
