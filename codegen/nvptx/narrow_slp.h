// narrow-slp: LLVM's SLP vectorizer, run only on functions that compute on
// 8- or 16-bit values, the only ones it can pair on NVPTX.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/PassManager.h>

namespace llvm {
class PassBuilder;
class PassInstrumentationCallbacks;
}  // namespace llvm

namespace tmc::codegen {

/// NVPTX's vector registers for arithmetic are 32 bits wide, so the SLP
/// vectorizer can only pair 16-bit operations (f16, bf16, i16: `fma.rn.f16x2`
/// for two neighbouring f16 elements) or put four 8-bit ones together. On a
/// function whose arithmetic is all 32- and 64-bit it searches every store
/// and build-vector chain and finds nothing: the same PTX for every example
/// and stdlib kernel but two of std.elementwise (cast_rows and sigmoid_rows,
/// whose conversions it reorders without pairing them), at 1-6% of a large
/// kernel's compile (attention_fwd 3%, matmul_tc_t 5.8%; docs/benchmarks.md,
/// compile speed, seventeenth pass).
/// This pass runs SLPVectorizerPass on a function with at least one 8- or
/// 16-bit arithmetic operation, comparison, select or intrinsic call, and
/// leaves the others as they are.
struct NarrowSlpPass : llvm::PassInfoMixin<NarrowSlpPass> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

/// Whether `f` computes on an 8- or 16-bit scalar (the test of NarrowSlpPass).
bool HasNarrowArithmetic(const llvm::Function& f);

/// Makes "tmc-narrow-slp" a function pass name in pipeline text (tmc's
/// pipeline and TMC_LLVM_PIPELINE), and the name by which
/// `-print-after`/`-time-passes` (TMC_LLVM_OPTIONS) know it.
void RegisterNarrowSlp(llvm::PassBuilder& pb, llvm::PassInstrumentationCallbacks& pic);

}  // namespace tmc::codegen
