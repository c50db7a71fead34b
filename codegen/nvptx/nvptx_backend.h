// LLVM module -> optimized module -> PTX, through LLVM's NVPTX back end.
#pragma once

#include <llvm/IR/Module.h>

#include <string>

namespace tmc::codegen {

struct NvptxOptions {
  std::string arch = "sm_80";  // sm_80, sm_86, sm_89, sm_90, sm_90a
  std::string libdevice;       // path of libdevice.10.bc
  int opt_level = 3;           // 0..3: -O0/-O1 LLVM's pipelines, -O2/-O3 tmc's; the code generation level
  bool dwarf = false;          // the module has full debug information (needs PTX ISA 7.5)
  bool fp_contract = true;     // fuse a*b+c into fma (nvcc's default --fmad=true); -ffp-contract=off
};

/// Links the libdevice functions the module uses, internalizes everything
/// but the kernels, and runs the -O<opt_level> pipeline for the target (tmc's at
/// -O2/-O3, LLVM's below; TMC_LLVM_PIPELINE replaces it). Returns
/// false with `error` set when libdevice or the target is unavailable.
bool OptimizeForNvptx(llvm::Module& m, const NvptxOptions& options, std::string* error);

/// PTX assembly of a module that OptimizeForNvptx optimized with the same
/// options and environment (which pipeline ran decides whether the back
/// end's load/store vectorizer runs again: lsr_gate.h).
bool EmitPtx(llvm::Module& m, const NvptxOptions& options, std::string* ptx, std::string* error);

/// Named metadata of a module with thread-block-cluster kernels: one node
/// per kernel, {name, x, y, z}; EmitPtx writes each as `.reqnctapercluster`
/// (so that a plain launch forms the clusters).
inline constexpr const char* kClusterMetadata = "tmc.cluster";

/// TMC_LLVM_PIPELINE, the pass pipeline that replaces the default one for
/// experiments ("" when unset or empty): part of the compile cache's key.
std::string LlvmPipelineOverride();

/// The default libdevice path (TMC_LIBDEVICE, else the CUDA toolkit's).
std::string DefaultLibdevicePath();

}  // namespace tmc::codegen
