// How much register memory a function's register tensors take, for the
// decisions that depend on register pressure.
#pragma once

#include "ir/ir.h"

namespace tmc::ir {

/// 32-bit words that a register tensor takes (0 for other buffers). The
/// decisions below count the register tensors allocated before the
/// statement they decide for, in program order.
int64_t RegisterWords(const Buffer& b);

/// A vector store needs its values in aligned consecutive registers. For a
/// kernel whose register tensors are large, placing them so costs ptxas
/// registers (measured: 129 -> 159 (v4) or 165 (v2) in the 128x128 SIMT
/// matmul's epilogue, 64 accumulators, one block per SM fewer); small ones
/// cost nothing (mma fragments, 16 accumulators). So from this many words
/// on, the LLVM code generator keeps stores of register values scalar, and
/// split-tails does not count them as vector accesses to gain.
constexpr int64_t kScalarRegisterStoresFrom = 64;

}  // namespace tmc::ir
