// A graph's launch plan as the module metadata describes it (the "graphs"
// entry of `tmc FILE --graph NAME --emit=meta`), and what one launch of it
// needs: its arguments checked, its shape symbols bound, the workspace's
// size, and each kernel's arguments. Shared by tmc_graph_launch (GPU) and
// `tmc run --graph` (CPU executor). No driver is needed here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/kernel_signature.h"
#include "runtime/tmc_runtime.h"

namespace tmc::runtime {

/// What one kernel parameter of a step is bound to.
struct GraphStepArg {
  enum class Kind { Param, Buffer, Literal } kind = Kind::Param;
  int index = 0;        // Param: the graph's parameter; Buffer: the buffer
  std::string literal;  // Literal: its text ("2.0", "true")
  tmc_dtype dtype = TMC_F32;
};

struct GraphStep {
  std::string kernel;
  /// The kernel and its copies for other compile-time values, each with
  /// its own launch conditions: the first whose conditions hold runs.
  std::vector<std::string> alternatives;
  std::string op;        // the fused op it implements
  std::string schedule;  // how it is scheduled, for listings
  std::vector<GraphStepArg> args;
};

/// An intermediate value in the workspace.
struct GraphBuffer {
  std::string value;               // the graph value, as --emit=graph names it
  tmc_dtype dtype = TMC_F32;
  std::vector<std::string> shape;  // formulas over the graph's shape symbols
  std::string offset;              // formula: bytes from the workspace's start
  int written_by = 0;
  int last_read_by = 0;
};

struct GraphPlan {
  std::string name;
  /// The graph's parameters, inputs then outputs (outputs flagged by
  /// `outputs`), checked like a kernel's.
  KernelSignature signature;
  std::vector<bool> outputs;
  std::vector<std::string> values;  // the graph value of each parameter
  std::vector<GraphBuffer> buffers;
  std::string workspace;  // formula: bytes
  std::vector<GraphStep> steps;
};

/// Reads the "graphs" of module metadata (none is not an error).
bool ParseGraphPlans(const std::string& json, std::vector<GraphPlan>* graphs, std::string* error);

/// A launch of a plan with concrete arguments.
struct BoundGraph {
  std::map<std::string, int64_t> symbols;
  uint64_t workspace_bytes = 0;
};

/// Checks `args` (the graph's parameters in order: inputs, then outputs)
/// as a kernel's are checked, and computes the workspace's size.
bool BindGraph(const GraphPlan& plan, const tmc_arg* args, int num_args, BoundGraph* out, std::string* error);

/// The arguments of step `step`: graph parameters as given, buffers at
/// `workspace` plus their offsets, literals as scalars.
bool StepArguments(const GraphPlan& plan, const BoundGraph& bound, size_t step, const tmc_arg* args,
                   uint64_t workspace, std::vector<tmc_arg>* out, std::string* error);

/// The first of a step's alternatives whose checks pass for `args` (its
/// launch conditions hold), with its launch in `out`; -1 when none does,
/// with the reason of each in `error`.
int ChooseAlternative(const std::vector<const KernelSignature*>& alternatives, const std::vector<tmc_arg>& args,
                      CheckedLaunch* out, std::string* error);

}  // namespace tmc::runtime
