// lower-task-mappings: `for (i, j) in m on w` -> div/mod and loops.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: nothing. Guarantees: no ForMapping statement remains; each
/// worker's tasks are enumerated by a guard `w < m.workers` (omitted when
/// the worker is known to be in range), spatial parts as div/mod of the
/// worker and repeat parts as loops (marked for unrolling when an atom has
/// at most 64 tasks), in the order the mapping defines. Register tensors
/// distributed by a mapping become per-thread arrays of m.tasks / m.workers
/// elements, indexed by the task's position in the worker's list.
void LowerTaskMappings(Function& fn, PassContext& ctx);

}  // namespace tmc::ir
