// A function pass of tmc's own, made known to LLVM's pass builder by name.
#pragma once

#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>

namespace tmc::codegen {

/// Makes `name` (a string literal) a function pass name in pipeline text
/// (tmc's pipeline and TMC_LLVM_PIPELINE) that adds a `Pass`, and the name
/// by which `-print-after`/`-time-passes` (TMC_LLVM_OPTIONS) know it.
template <typename Pass>
void RegisterFunctionPass(llvm::PassBuilder& pb, llvm::PassInstrumentationCallbacks& pic, llvm::StringRef name) {
  pic.addClassToPassName(Pass::name(), name);
  pb.registerPipelineParsingCallback(
      [name](llvm::StringRef element, llvm::FunctionPassManager& fpm, llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (element != name) return false;
        fpm.addPass(Pass());
        return true;
      });
}

}  // namespace tmc::codegen
