// split-tails: full tiles without guards, so their accesses can be merged.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: lower-task-mappings; runs before unroll. Guarantees: a nest
/// of loops marked unroll with constant bounds (a loop and those in its
/// body, in the guards of its body, and so on), unrolling to at most
/// kMaxUnrolledStatements statements, whose bodies hold guards `if (x <
/// bound) { ... }` where x increases with every counter of the nest and
/// bound does not depend on them, becomes
///   if (x[last iteration of every loop] < bound) { the nest without the guards }
///   else { the original nest }
/// at the outermost loop where this holds. The first branch is the common
/// case of a tile inside the tensor; there, consecutive accesses that are
/// 16-byte aligned become single 16-byte loads and stores (LLVM's
/// load/store vectorizer does the merging; this pass removes the
/// per-element branches that prevent it).
void SplitTails(Function& fn, PassContext& ctx);

}  // namespace tmc::ir
