// How wgmma.mma_async finds an operand element in shared memory from its
// 64-bit matrix descriptor (PTX ISA, "Matrix Descriptor Format" and
// "Canonical Layouts"), for 16-bit elements. The CPU executor reads
// operands through this, the way the hardware does, so that a kernel run
// here also checks the descriptors the compiler built.
#pragma once

#include <cstdint>

namespace tmc::runtime {

/// The shared-memory byte address of element (mn, k) of a wgmma operand:
/// `mn` its row (A: M; B: N), `k` 0..15 within the instruction's k16 step;
/// `mn_major` for the transposed layout (imm-trans 1). Bits 0-13 of the
/// descriptor are the start address >> 4, 16-29 the leading and 32-45 the
/// stride byte offsets >> 4, 62-63 the swizzle (0 none, 1 128-byte, 2
/// 64-byte, 3 32-byte), applied to the address as the hardware does: the
/// 16-byte chunk bits 4.. XORed with the bits from 7 up.
int64_t WgmmaElementAddress(uint64_t desc, bool mn_major, int64_t mn, int64_t k);

}  // namespace tmc::runtime
