// rematerialize-in-loops: undo LLVM's hoisting of cheap index arithmetic
// out of loops whose live-through values would cost occupancy.
#pragma once

#include <llvm/IR/Function.h>

namespace tmc::codegen {

/// LICM hoists every loop-invariant address, offset and guard out of a
/// loop. In a tiled kernel these are per-element (one per staged element,
/// each a register, a 64-bit one for a global address) and stay live across
/// the whole loop: the 128x128 SIMT matmul kept ~60 of them, 190 registers
/// instead of nvcc's 128. For each loop whose values live through it
/// (defined before, used inside) need more than `budget` 32-bit registers,
/// this recomputes the cheap ones (integer arithmetic, casts, address
/// arithmetic, compares, special-register reads) at the top of the loop
/// from the values they are built of, so that only those stay live. Loops
/// under the budget keep LLVM's hoisting. Returns true if it changed `f`.
bool RematerializeInLoops(llvm::Function& f, unsigned budget);

}  // namespace tmc::codegen
