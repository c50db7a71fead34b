// flatten-buffers: multi-dimensional indices -> one element offset.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: lower-task-mappings (distributed tensors are flat arrays).
/// Guarantees: every Load and Store has exactly one index, the element
/// offset in the buffer's memory under its layout (row-major, col-major,
/// strided, or XOR-swizzled row-major). Offsets into dense (row- or
/// col-major) global buffers are computed in PassContext::global_index_bits
/// (i32 on the GPU: every in-bounds offset of a tensor under 2^31 elements
/// fits, and the runtime refuses bigger tensors for such kernels; i64 on
/// request, so tensors may exceed 2^31 elements); strided and swizzled
/// global buffers in i64; shared and register offsets in i32.
void FlattenBuffers(Function& fn, PassContext& ctx);

/// The element offset of `indices` in `b` (exposed for tests).
Expr FlatOffset(const Buffer& b, const std::vector<Expr>& indices, int global_index_bits = 64);

/// The number of elements an allocation of `b` (a shared or register
/// buffer, constant shape and layout) needs: its largest offset plus one
/// (support/layout_span.h), so a strided or swizzled layout never writes
/// past it. The checker limits these to 2^31 - 1.
int64_t AllocatedElements(const Buffer& b);

}  // namespace tmc::ir
