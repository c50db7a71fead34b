// proxy-reg-erasure: the NVPTX back end's ProxyReg pseudo-instructions
// removed in time linear in the function, before LLVM's own pass for them.
#pragma once

#include <llvm/Pass.h>

namespace tmc::codegen {

/// Instruction selection wraps some values in ProxyReg pseudo-instructions
/// (register copies that keep a call sequence alive; LLVM 19 also makes
/// them for values moved between 32-bit and <2 x half> registers, as
/// between `ldmatrix` and `mma`). NVPTX's ProxyRegErasure removes them, but
/// rescans the whole function for each one: on the attention kernels, 80
/// of them cost 1.6% of the compile. This pass, run just before it, does
/// the same through the register use lists (each proxy's uses renamed to
/// its source, then the proxy erased), which leaves LLVM's pass nothing to
/// do but one scan. The PTX is the same.
llvm::Pass* CreateProxyRegErasure();

/// The identity of the pass that runs just before NVPTX's ProxyRegErasure
/// in LLVM 19's pipeline (the peephole optimizer), for
/// TargetPassConfig::insertPass.
llvm::AnalysisID PassBeforeNvptxProxyRegErasure();

}  // namespace tmc::codegen
