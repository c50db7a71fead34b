// split-tails: full tiles without guards, so their accesses can be merged.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: lower-task-mappings; runs before unroll. Guarantees: a loop
/// marked unroll, with constant bounds, whose body is immutable lets
/// followed by `if (x < bound) { ... }` where x increases with the counter
/// and bound does not depend on it, becomes
///   if (x[last iteration] < bound) { the loop without the guard }
///   else { the original loop }
/// The first branch is the common case of a tile inside the tensor; there,
/// consecutive accesses that are 16-byte aligned become single 16-byte
/// loads and stores (LLVM's load/store vectorizer does the merging; this
/// pass removes the per-element branches that prevent it).
void SplitTails(Function& fn, PassContext& ctx);

}  // namespace tmc::ir
