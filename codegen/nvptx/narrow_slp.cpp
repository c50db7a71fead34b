// narrow-slp: see narrow_slp.h.
#include "codegen/nvptx/narrow_slp.h"

#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Vectorize/SLPVectorizer.h>

#include "codegen/nvptx/register_function_pass.h"

namespace tmc::codegen {
namespace {

// A scalar the vectorizer can pack two or four of into 32 bits: a 16-bit
// float, or an 8- or 16-bit integer (not a bool: conditions are i1).
bool IsNarrowScalar(const llvm::Type* t) {
  if (t->isHalfTy() || t->isBFloatTy()) return true;
  if (auto* i = llvm::dyn_cast<llvm::IntegerType>(t)) return i->getBitWidth() == 8 || i->getBitWidth() == 16;
  return false;
}

}  // namespace

bool HasNarrowArithmetic(const llvm::Function& f) {
  for (const llvm::BasicBlock& block : f)
    for (const llvm::Instruction& i : block) {
      bool computes = llvm::isa<llvm::BinaryOperator>(i) || llvm::isa<llvm::UnaryOperator>(i) ||
                      llvm::isa<llvm::SelectInst>(i) || llvm::isa<llvm::IntrinsicInst>(i);
      if (computes && IsNarrowScalar(i.getType())) return true;
      if (auto* cmp = llvm::dyn_cast<llvm::CmpInst>(&i); cmp && IsNarrowScalar(cmp->getOperand(0)->getType())) return true;
    }
  return false;
}

llvm::PreservedAnalyses NarrowSlpPass::run(llvm::Function& f, llvm::FunctionAnalysisManager& am) {
  if (!HasNarrowArithmetic(f)) return llvm::PreservedAnalyses::all();
  return llvm::SLPVectorizerPass().run(f, am);
}

void RegisterNarrowSlp(llvm::PassBuilder& pb, llvm::PassInstrumentationCallbacks& pic) {
  RegisterFunctionPass<NarrowSlpPass>(pb, pic, "tmc-narrow-slp");
}

}  // namespace tmc::codegen
