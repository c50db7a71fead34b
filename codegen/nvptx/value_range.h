// value-range: the values an integer of a GPU function can take, from
// constants, the thread and block indices and the arithmetic on them.
#pragma once

#include <array>
#include <cstdint>

#include <llvm/IR/ConstantRange.h>
#include <llvm/IR/Value.h>

namespace tmc::codegen {

/// A superset of the values of integer `v`: constants, the special
/// registers (%tid below the block's extent `block`, 0 where unknown;
/// %ntid that extent; %ctaid and %nctaid below 2^31), + - * / % << >> & |
/// ^, min, max, casts and selects of those, through `depth` operations.
/// Anything else (a load, an argument, a phi) is the full range.
///
/// The guarded tail of a tile reads shared memory at offsets computed from
/// thread indices and constants (a conv epilogue's row table, `pix[wm +
/// i, 0]`). Where this range proves such an offset inside its tensor, the
/// read needs no predicate: it is an ordinary load, which LLVM can merge
/// with its neighbours and share between the tail's stores, where a
/// predicated one (inline PTX) is opaque to both.
llvm::ConstantRange ValueRange(const llvm::Value* v, const std::array<int64_t, 3>& block, int depth = 12);

}  // namespace tmc::codegen
