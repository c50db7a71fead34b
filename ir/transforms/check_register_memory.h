// check-register-memory: a bound on the per-thread register tensors.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: unroll (each unrolled copy of a declaration is its own array).
/// Guarantees: the register tensors of the function need at most
/// kMaxRegisterBytes per thread; more is an error at the declaration that
/// crosses the limit. Registers are 255 per thread; past them arrays live
/// in local memory, and on the CPU executor on each thread's 256 KiB fiber
/// stack, which a 200,000-element array once overran.
void CheckRegisterMemory(Function& fn, PassContext& ctx);

/// The most bytes of register tensors one function may declare per thread:
/// the local memory a GPU thread may have (512 KiB on sm_80 and sm_90),
/// which the CPU executor's 1 MiB fiber stacks also hold.
constexpr int64_t kMaxRegisterBytes = 512 * 1024;

}  // namespace tmc::ir
