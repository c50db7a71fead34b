// sink-wgmma-fences: `wgmma_fence(); if (c) { ... } else { ... };
// wgmma_commit();` becomes `if (c) { fence; ...; commit } else { fence;
// ...; commit }` when the if issues a wgmma; statements without wgmma
// built-ins between them stay where they are, outside the if.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: nothing. Guarantees: no wgmma_fence statement is directly
/// followed by an if statement that contains a wgmma call and then by a
/// wgmma_commit statement; the fence and the commit are at the start and
/// the end of each branch instead (an absent else becomes `fence; commit`),
/// and again inside a branch that is itself such an if (its first and last
/// statements: the new fence and commit are then next to it). Statements
/// between the fence and the if, or the if and the commit, that call none
/// of wgmma, wgmma_fence, wgmma_commit and wgmma_wait and contain no break,
/// continue or return (a let the condition reads) stay before or after the
/// if: the fence then follows them and the commit precedes them, which
/// fences the same registers and commits the same group.
/// On each path the same fence, wgmmas and commit run in the same order.
/// Why: ptxas accepts a wgmma whose registers were fenced only when the
/// fence, the wgmma and the commit of its group are in one basic block; a
/// branch in between (the first k-step's `if (kt == 0) { wgmma(acc, a, b,
/// false) } else { wgmma(acc, a, b) }`) makes it insert a warpgroup arrive
/// of its own before each wgmma (C7519), serializing them.
void SinkWgmmaFences(Function& fn, PassContext& ctx);

}  // namespace tmc::ir
