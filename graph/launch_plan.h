// The launch plan of a fused graph: its kernels in order, what each binds,
// and the intermediate buffers, placed in one workspace that reuses memory
// once a buffer's last reader has run. Sizes and offsets are formulas of
// the graph's shape symbols, evaluated by the runtime (tmc_graph_launch)
// and by `tmc run --graph`.
#pragma once

#include <string>
#include <vector>

#include "graph/fuse.h"
#include "graph/partition.h"

namespace tmc::graph {

/// An intermediate value stored between kernels.
struct PlanBuffer {
  int node = -1;
  std::string bytes;  // formula: its size, rounded up to 256 bytes
  int written_by = 0; // the kernel that writes it
  int last_read_by = 0;
  int slot = 0;       // the region of the workspace it occupies
};

struct LaunchPlan {
  std::vector<int> inputs;   // the graph's parameters (nodes), in order
  std::vector<int> outputs;  // the graph's results
  std::vector<std::string> output_names;
  std::vector<PlanBuffer> buffers;
  std::vector<std::string> slot_bytes;    // formula: the largest buffer of each slot
  std::vector<std::string> slot_offsets;  // formula: the sum of the slots before
  std::string workspace;                  // formula: the bytes of all slots
};

/// Places the buffers: each takes the first slot whose buffers are all
/// read for the last time before it is written (a slot of the same size
/// first), else a new slot.
LaunchPlan PlanLaunches(const Graph& g, const FusedGraph& fg);

/// The plan as the "graphs" entry of the module metadata (docs/runtime.md).
std::string LaunchPlanJson(const Graph& g, const FusedGraph& fg, const LaunchPlan& plan);

}  // namespace tmc::graph
