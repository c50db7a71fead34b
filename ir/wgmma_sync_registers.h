// Which of a function's wgmma registers each wgmma_fence and wgmma_wait
// must hold in place. Code generation passes registers through these
// instructions (inline asm that reads and writes them) so that LLVM moves
// no access of them across: no write between a fence and the wgmma that
// reads the register, no read before the wait that retires the wgmma that
// writes it (CUTLASS's warpgroup_fence_operand). Passing every wgmma
// register of the function through every fence and wait (what
// ir::WgmmaRegisters gives) is safe but costly to compile: an attention
// kernel's four such statements had ~80 operands each, S, O and P alike,
// where each needs only its own.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tmc::ir {

/// For each wgmma_fence and wgmma_wait call in `fn`'s body: at a fence, the
/// accumulators and A registers of the wgmma calls that may run after it
/// before another fence; at a wait, those of the wgmma calls that may still
/// be in flight (issued since the last wgmma_wait(0) on some path). Each
/// list is in the order of ir::WgmmaRegisters. A forward data-flow over the
/// structured body (ifs joined, loops to a fixed point, break, continue and
/// return followed), so an over-approximation: never fewer registers than
/// a path needs.
std::unordered_map<const Call*, std::vector<const Buffer*>> WgmmaSyncRegisters(const Function& fn);

}  // namespace tmc::ir
