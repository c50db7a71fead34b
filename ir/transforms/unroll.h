// unroll: fully unrolls loops marked `unroll` with constant bounds.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: nothing. Guarantees: every For marked unroll whose begin, end
/// and step are constants is replaced by one copy of its body per
/// iteration, with the counter replaced by its value and every variable
/// declared inside the body renamed per copy (so that the copies can share
/// a scope). Loops with non-constant bounds stay loops.
void Unroll(Function& fn, PassContext& ctx);

}  // namespace tmc::ir
