// simplify: constant folding, algebraic identities, range-based div/mod
// and comparison simplification, dead branches.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: nothing. Guarantees: the same meaning with constants folded
/// (integer results wrapped to their type), x+0, x*1, x*0, x/1 removed,
/// `x / c` and `x % c` simplified when x is known to lie in [0, c),
/// comparisons decided by the known ranges of thread indices, loop counters
/// and guards, branches on constant conditions removed, and immutable lets that
/// nothing reads (and whose values have no effects) deleted.
void Simplify(Function& fn, PassContext& ctx);

/// The same on one expression, without range facts (exposed for tests).
Expr SimplifyExpr(const Expr& e);

}  // namespace tmc::ir
