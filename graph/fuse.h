// Post-scheduling fusion: one kernel per group of a graph's partition.
//
// Each group becomes a fused op (the composition of its members' op
// definitions, the reference its kernel is checked against) and a kernel
// that implements it:
// - a group whose anchor has a hand-written kernel and no prologue gets
//   that kernel, rewritten so that each store of the anchor's result
//   computes the epilogue there (extra inputs become parameters); the
//   schedule is otherwise untouched;
// - any other group gets the fused op's automatic schedule.
// The text is appended to the input file (with the imports the
// hand-written kernels need), like `--op`'s kernels.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/partition.h"
#include "support/source_manager.h"

namespace tmc::graph {

/// What one kernel of the launch plan reads and writes: graph parameters,
/// intermediate values (named as in --emit=graph) and the graph's result,
/// with scalar literals as their text.
struct PlanArg {
  std::string value;  // the graph value (or literal) bound to the parameter
  std::string type;   // "f16[M, 768]", "f32"
  bool output = false;
  int node = -1;      // the graph node, or -1 for a literal
};

struct FusedKernel {
  std::string op_name;      // the fused op
  std::string op_source;
  std::string kernel_name;  // the kernel; for automatic schedules, known after ScheduleFused
  std::string kernel_source;
  std::string schedule;     // "kernel 'matmul_tc_t' (implements matmul), epilogue fused" or "automatic"
  std::string label;        // "kernel 0 of graph 'mlp'", for messages
  std::string not_taken;    // why the partition's hand-written kernel could not take the group
  /// The fused op's intermediates as the user knows them: "a_t_1" is
  /// "intermediate 't' of op 'center'".
  std::map<std::string, std::string> let_origins;
  std::vector<PlanArg> args;
  /// Copies of the kernel for other compile-time values, each with its
  /// launch conditions; the runtime launches the first whose hold.
  std::vector<std::string> alternatives;
};

struct FusedGraph {
  std::vector<FusedKernel> kernels;  // in launch order
  std::vector<std::string> imports;  // modules the rewritten kernels need
  std::vector<std::string> notes;    // why a group fell back to an automatic schedule, or a slow one
};

/// The fused ops and the rewritten hand-written kernels of `g`'s partition;
/// kernels still to schedule automatically have an empty `kernel_source`.
/// The fused ops are named `PREFIX0`, `PREFIX1`...; by default `GRAPH_k`.
FusedGraph FuseGraph(const Graph& g, const Partition& p, const sema::CheckedModule& m, const SourceManager& sm,
                     const std::string& prefix = "");

/// Fills in the automatic kernels, from the fused ops as checked in `m`
/// (the module with the fused ops appended); a slow one adds a note.
void ScheduleFused(FusedGraph* fg, const sema::CheckedModule& m);

}  // namespace tmc::graph
