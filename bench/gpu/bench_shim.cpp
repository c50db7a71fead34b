// libtmc_bench: the host runtime (runtime/) as one shared library for the
// stdlib benchmark (bench/gpu/stdlib_bench.py loads it with ctypes), plus
// three helpers that need no driver, so that the benchmark's dry run on a
// machine without a GPU checks every planned launch with the runtime's own
// code: the argument check and grid of tmc_launch, the launch conditions
// ("requires") and the metadata's shape formulas.
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "runtime/graph_plan.h"
#include "runtime/kernel_signature.h"
#include "runtime/tmc_runtime.h"

namespace {

void CopyError(const std::string& message, char* error, size_t error_size) {
  if (error && error_size) std::snprintf(error, error_size, "%s", message.c_str());
}

}  // namespace

extern "C" {

/// The layout of tmc_arg as this compiler lays it out, for the ctypes
/// mirror to compare with: sizeof(tmc_arg), offsetof tensor, dtype, value,
/// sizeof(tmc_tensor), offsetof(tmc_tensor, shape). Returns the count.
int tmc_bench_arg_layout(size_t* out, int n) {
  const size_t v[] = {sizeof(tmc_arg), offsetof(tmc_arg, tensor), offsetof(tmc_arg, dtype),
                      offsetof(tmc_arg, value), sizeof(tmc_tensor), offsetof(tmc_tensor, shape)};
  int count = static_cast<int>(sizeof v / sizeof v[0]);
  for (int i = 0; i < n && i < count; ++i) out[i] = v[i];
  return count;
}

/// What tmc_launch checks before it launches, without a driver: the kernel
/// `kernel` of `metadata_json` (tmc --emit=meta) against `args`. Returns 0
/// when the launch would go ahead (grid and block filled in), 1 when the
/// arguments or a launch condition are refused, 2 when the metadata cannot
/// be read or has no such kernel; `error` says why.
int tmc_bench_check(const char* metadata_json, const char* kernel, const tmc_arg* args, int num_args,
                    int64_t* grid, int64_t* block, char* error, size_t error_size) {
  std::vector<tmc::runtime::KernelSignature> sigs;
  std::string message;
  if (!tmc::runtime::ParseKernelMetadata(metadata_json ? metadata_json : "", &sigs, &message)) {
    CopyError("kernel metadata: " + message, error, error_size);
    return 2;
  }
  for (const auto& sig : sigs) {
    if (sig.name != kernel) continue;
    tmc::runtime::CheckedLaunch launch;
    if (!tmc::runtime::CheckArguments(sig, args, num_args, &launch, &message)) {
      CopyError("kernel '" + sig.name + "': " + message, error, error_size);
      return 1;
    }
    for (int d = 0; d < 3; ++d) {
      grid[d] = launch.grid[d];
      block[d] = launch.block[d];
    }
    return 0;
  }
  CopyError(std::string("no kernel '") + kernel + "' in the metadata", error, error_size);
  return 2;
}

/// Evaluates a shape or launch formula of the metadata with the runtime's
/// evaluator. Returns 0 and sets *value, or 1 with `error` set.
int tmc_bench_eval(const char* formula, const char* const* names, const int64_t* values, int n, int64_t* value,
                   char* error, size_t error_size) {
  std::map<std::string, int64_t> symbols;
  for (int i = 0; i < n; ++i) symbols[names[i]] = values[i];
  std::string message;
  std::optional<int64_t> v = tmc::runtime::EvalFormula(formula ? formula : "", symbols, &message);
  if (!v) {
    CopyError(message, error, error_size);
    return 1;
  }
  *value = *v;
  return 0;
}

/// What tmc_graph_launch checks before its first launch, without a driver:
/// graph `graph` of `metadata_json` (tmc --graph NAME --emit=meta) with
/// `args` (inputs, then outputs). Returns 0 and the workspace's bytes when
/// every kernel of the plan would launch (the alternative chosen for each
/// written to `chosen`, comma-separated), 1 when refused, 2 when the
/// metadata cannot be read or has no such graph.
int tmc_bench_graph_check(const char* metadata_json, const char* graph, const tmc_arg* args, int num_args,
                          uint64_t* workspace_bytes, char* chosen, size_t chosen_size, char* error, size_t error_size) {
  std::vector<tmc::runtime::KernelSignature> sigs;
  std::vector<tmc::runtime::GraphPlan> plans;
  std::string message;
  if (!tmc::runtime::ParseKernelMetadata(metadata_json ? metadata_json : "", &sigs, &message) ||
      !tmc::runtime::ParseGraphPlans(metadata_json, &plans, &message)) {
    CopyError("metadata: " + message, error, error_size);
    return 2;
  }
  for (const auto& plan : plans) {
    if (plan.name != graph) continue;
    tmc::runtime::BoundGraph bound;
    if (!tmc::runtime::BindGraph(plan, args, num_args, &bound, &message)) {
      CopyError(message, error, error_size);
      return 1;
    }
    std::string names;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      std::vector<tmc_arg> kargs;
      std::vector<const tmc::runtime::KernelSignature*> alternatives;
      for (const std::string& name : plan.steps[s].alternatives)
        for (const auto& sig : sigs)
          if (sig.name == name) alternatives.push_back(&sig);
      tmc::runtime::CheckedLaunch launch;
      int pick = -1;
      if (tmc::runtime::StepArguments(plan, bound, s, args, 1 << 20, &kargs, &message))
        pick = tmc::runtime::ChooseAlternative(alternatives, kargs, &launch, &message);
      if (pick < 0) {
        CopyError("kernel " + std::to_string(s) + " ('" + plan.steps[s].kernel + "'): " + message, error, error_size);
        return 1;
      }
      names += (names.empty() ? "" : ",") + alternatives[static_cast<size_t>(pick)]->name;
    }
    *workspace_bytes = bound.workspace_bytes;
    CopyError(names, chosen, chosen_size);
    return 0;
  }
  CopyError(std::string("no graph '") + graph + "' in the metadata", error, error_size);
  return 2;
}

}  // extern "C"
