// pack-conversions: two f32 -> f16 (or bf16) conversions that fill one
// 32-bit register become one `cvt.rn.f16x2.f32` (`cvt.rn.bf16x2.f32`).
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/PassManager.h>

namespace llvm {
class PassBuilder;
class PassInstrumentationCallbacks;
}  // namespace llvm

namespace tmc::codegen {

/// A kernel that computes in f32 and keeps or stores 16-bit floats packs
/// them two to a 32-bit register: an f16 tile stored as vectors (an
/// epilogue, std.elementwise's cast_rows), the A operand of an mma or a
/// wgmma from registers (the P tile of std.hopper_attention, every key
/// block). In LLVM IR that is a vector of half built lane by lane from
/// `fptrunc float` values; NVPTX selects each conversion alone
/// (`cvt.rn.f16.f32`) and joins the two halves with a `mov.b32`, three
/// instructions where sm_80's `cvt.rn.f16x2.f32` is one.
/// This pass rewrites every vector of half or bfloat built by a chain of
/// insertelements (or a vector fptrunc from float) whose lanes 2i and 2i+1
/// are both conversions from float into a call of llvm.nvvm.ff2f16x2.rn
/// (ff2bf16x2.rn) for each such pair: the same rounding (to nearest even)
/// as fptrunc, so the same values. Lanes that are not such a pair are
/// inserted as before. tmc's targets are all sm_80 or later.
struct PackConversionsPass : llvm::PassInfoMixin<PackConversionsPass> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

/// Makes "tmc-pack-conversions" a function pass name in pipeline text, and
/// the name by which `-print-after`/`-time-passes` (TMC_LLVM_OPTIONS) know it.
void RegisterPackConversions(llvm::PassBuilder& pb, llvm::PassInstrumentationCallbacks& pic);

}  // namespace tmc::codegen
