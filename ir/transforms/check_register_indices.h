// check-register-indices: register arrays must end up with constant indices.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: unroll and simplify. Guarantees nothing new; warns, at the
/// statement, about each per-thread register array still indexed by a
/// run-time value: the GPU cannot index registers, so such an array is
/// placed in local memory (slow, but correct). The fix is to iterate with
/// unroll(...) or a mapping loop whose repeat parts unroll.
void CheckRegisterIndices(Function& fn, PassContext& ctx);

}  // namespace tmc::ir
