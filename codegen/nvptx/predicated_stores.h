// predicated-stores: the stores (and shared-memory reads) of an `if` whose
// body only stores (ir/predicable.h), as PTX instructions that carry the
// condition as a predicate instead of a branch around them.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "ir/ir.h"

namespace tmc::codegen {

/// A few guarded stores cost little compile time as branches, and ptxas
/// schedules those with fewer registers (measured: permute210_tiled's
/// guarded tail, 4 stores per thread, 22 registers as branches, 28
/// predicated). So the guards of a function become predicated stores only
/// from this many on (a 128 x 128 tensor-core epilogue has 128).
constexpr int kPredicatedGuardsFrom = 32;

/// The `if`s without else in s whose bodies are PredicableStores.
int CountPredicableGuards(const ir::Stmt& s);

/// True if v is computed from an argument of its function (a tensor's
/// size, a scalar parameter): a guard against a runtime bound, as the tail
/// of a tile has, which is what to predicate. A condition on thread indices
/// alone (`i == r` between two lanes' fragment rows) is often a constant
/// that LLVM folds once it has merged the equal values; then a branch
/// leaves no trace, where a predicated store would stay.
bool DependsOnArgument(llvm::Value* v);

/// `@pred st.SPACE.TYPE [addr], value` as inline PTX: writes only through
/// `addr` (memory(argmem: write)), so LLVM keeps its alias analysis for the
/// accesses around it. `addr` is a pointer in address space 0 (generic),
/// 1 (global) or 3 (shared, 32-bit); value a scalar of 8 to 64 bits.
void EmitPredicatedStore(llvm::IRBuilderBase& b, llvm::Value* pred, llvm::Value* value, llvm::Value* addr);

/// `@pred ld.SPACE.TYPE` of a `type` value (zero when pred is false), with
/// the same operands and effects (memory(argmem: read)).
llvm::Value* EmitPredicatedLoad(llvm::IRBuilderBase& b, llvm::Value* pred, llvm::Type* type, llvm::Value* addr);

}  // namespace tmc::codegen
