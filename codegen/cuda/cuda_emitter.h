// IR -> readable CUDA C++ (`--emit=cuda`), the second path that
// cross-checks the LLVM one (tests compile it with nvcc).
#pragma once

#include <string>

#include "ir/ir.h"

namespace tmc::codegen {

/// CUDA C++ source for every function of `m`, after the lowering pipeline:
/// kernels are `extern "C" __global__` with `__launch_bounds__` from their
/// block size, device functions `static __device__`. Without `fp_contract`
/// (-ffp-contract=off) float additions, subtractions and multiplications
/// are the _rn intrinsics (`__fmul_rn`), which nvcc never fuses into an fma.
std::string EmitCuda(const ir::Module& m, bool fp_contract = true);

}  // namespace tmc::codegen
