// Which guarded statements can run as predicated stores, for split-tails
// and the code generators.
#pragma once

#include <functional>

#include "ir/ir.h"

namespace tmc::ir {

/// True for an `if` body that can execute with its condition false except
/// for its stores and its reads of shared memory: immutable lets and
/// stores (global, shared or register) whose values, indices and lets
/// compute without faults or side effects (arithmetic other than integer
/// division by a non-constant, register reads and writes at constant
/// indices, pure built-ins) other than reads of shared memory, which are
/// predicated like the stores. At least one store. `constant` tells
/// whether an index is a compile-time constant; by default, an integer
/// literal (split-tails, which runs before unrolling, also counts the
/// counters of the loops it will unroll).
///
/// The guarded tail of a tile, once unrolled, is one `if (x < M && y < N)
/// C[...] = v` per element: 128 of them in a 128 x 128 tensor-core
/// epilogue. As branches, each is a basic block of its own, and LLVM's
/// passes and instruction selection pay per block and per dominating
/// condition (the guarded epilogue was half of matmul_tc's compile,
/// docs/benchmarks.md). ptxas turns such branches into predicated stores
/// anyway (`@p st.global.f32`); the LLVM code generator emits those
/// directly (codegen/nvptx/predicated_stores.h), which keeps the tail one
/// block with the same instructions for the GPU.
using IsConstant = std::function<bool(const Expr&)>;

/// True if x computes without faults or side effects whatever its
/// variables hold, so that it can run where its source ran it only under a
/// condition: arithmetic (integer division only by constants other than 0
/// and -1), pure built-ins, and reads of registers at literal elements
/// inside their tensor; no reads of shared or global memory.
bool Speculatable(const Expr& x);

bool PredicableStores(const Stmt& body, const IsConstant& constant = {});

}  // namespace tmc::ir
