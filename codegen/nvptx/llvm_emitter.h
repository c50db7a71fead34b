// IR -> LLVM IR for the NVPTX target (before LLVM's optimizations).
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>

#include "ir/ir.h"

namespace tmc::codegen {

/// Translates every function of `m` into an LLVM module for
/// nvptx64-nvidia-cuda: kernels get the ptx_kernel calling convention and a
/// maxntid annotation from their block size; device functions are internal.
/// Math built-ins call libdevice functions (__nv_expf, ...), which the
/// backend links in.
std::unique_ptr<llvm::Module> EmitLlvm(const ir::Module& m, llvm::LLVMContext& ctx);

}  // namespace tmc::codegen
