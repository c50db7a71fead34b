// plan-shared-memory: offsets of shared tensors in the block's shared memory.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: nothing. Guarantees: every shared buffer has a byte offset
/// (16-byte aligned, in declaration order) and fn.shared_bytes is the total,
/// rounded up to a multiple of 16.
/// Code generation uses static shared memory up to 48 KB and dynamic shared
/// memory above (the runtime then sets the kernel attribute). More than the
/// target's per-block limit (163 KB on sm_80, 99 KB on sm_86 and sm_89,
/// 227 KB on sm_90) is an error at the kernel's name.
void PlanSharedMemory(Function& fn, PassContext& ctx);

/// The per-block shared-memory limit of a compute capability, in bytes.
int64_t SharedMemoryLimit(int sm_arch);

}  // namespace tmc::ir
