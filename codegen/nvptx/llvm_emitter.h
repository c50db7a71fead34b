// IR -> LLVM IR for the NVPTX target (before LLVM's optimizations).
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "support/source_manager.h"

namespace tmc::codegen {

/// How to translate: for the GPU (nvptx64-nvidia-cuda) or for the CPU
/// executor (host code following codegen/cpu/cpu_abi.h).
struct LlvmEmitOptions {
  bool host = false;
  bool check_accesses = false;  // host: every access goes through tmc_cpu_access
  /// Filled in: source range of each site id, name of each buffer id.
  std::vector<SourceRange>* sites = nullptr;
  std::vector<std::string>* buffer_names = nullptr;
  /// GPU: debug information from the IR's source locations, so that PTX
  /// carries .file/.loc for the .tm lines (-lineinfo) or full DWARF (-g).
  enum class Debug { None, LineTables, Full };
  Debug debug = Debug::None;
  const SourceManager* sources = nullptr;  // required when debug != None
  /// Verify the module (--verify-each); also whenever ir::VerifyEach says
  /// so. Unchecked release compiles skip it, as clang's do: it was 3% of a
  /// large kernel's compile.
  bool verify = false;
};

/// Translates every function of `m` into an LLVM module. For the GPU:
/// kernels get the ptx_kernel calling convention and a maxntid annotation
/// from their block size; device functions are internal; math built-ins
/// call libdevice functions (__nv_expf, ...), which the backend links in.
/// For the host: each kernel becomes `void name(tmc_cpu_thread*, const
/// uint64_t* args)`, and everything that involves other threads calls the
/// executor (tmc_cpu_sync, tmc_cpu_shfl32, ...).
std::unique_ptr<llvm::Module> EmitLlvm(const ir::Module& m, llvm::LLVMContext& ctx,
                                       const LlvmEmitOptions& options = {});

}  // namespace tmc::codegen
