// Runs after LLVM's -O pipeline (codegen/nvptx/nvptx_backend.cpp). The
// cost model is the register file: a value that lives through a loop holds
// its registers for the whole loop; recomputing it costs a few integer
// instructions per iteration, which hide behind the loop's memory and FP
// work in the kernels where the budget is exceeded.
#include "codegen/nvptx/rematerialize_in_loops.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Transforms/Utils/Local.h>

#include <map>
#include <set>
#include <vector>

namespace tmc::codegen {
namespace {

// Instructions that are cheaper to recompute than to keep: no memory, no
// effects, no division by a variable.
bool IsCheap(const llvm::Instruction& i) {
  if (auto* b = llvm::dyn_cast<llvm::BinaryOperator>(&i)) {
    if (!b->getType()->isIntegerTy()) return false;
    switch (b->getOpcode()) {
      case llvm::Instruction::UDiv:
      case llvm::Instruction::SDiv:
      case llvm::Instruction::URem:
      case llvm::Instruction::SRem: return llvm::isa<llvm::ConstantInt>(b->getOperand(1));
      default: return true;
    }
  }
  if (auto* c = llvm::dyn_cast<llvm::CastInst>(&i)) {
    auto intlike = [](llvm::Type* t) { return t->isIntegerTy() || t->isPointerTy(); };
    return intlike(c->getSrcTy()) && intlike(c->getDestTy());
  }
  if (llvm::isa<llvm::GetElementPtrInst>(i) || llvm::isa<llvm::ICmpInst>(i)) return true;
  if (auto* s = llvm::dyn_cast<llvm::SelectInst>(&i)) return s->getType()->isIntegerTy() || s->getType()->isPointerTy();
  // %tid.x, %ctaid.y, ...: a register read.
  if (auto* c = llvm::dyn_cast<llvm::IntrinsicInst>(&i))
    return c->getCalledFunction() && c->getCalledFunction()->getName().starts_with("llvm.nvvm.read.ptx.sreg.");
  return false;
}

// 32-bit registers a value occupies.
unsigned Words(const llvm::Value* v, const llvm::DataLayout& dl) {
  llvm::Type* t = v->getType();
  if (t->isPointerTy()) return dl.getPointerSizeInBits(t->getPointerAddressSpace()) > 32 ? 2 : 1;
  if (t->isIntegerTy() || t->isFloatingPointTy()) return dl.getTypeSizeInBits(t) > 32 ? 2 : 1;
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t))
    return static_cast<unsigned>((dl.getTypeSizeInBits(vt) + 31) / 32);
  return 1;
}

// A use inside the loop that reads the value on each iteration (a phi's
// incoming value from outside the loop is read once, on entry).
bool IsUseInLoop(const llvm::Use& u, const llvm::Loop& loop) {
  auto* user = llvm::dyn_cast<llvm::Instruction>(u.getUser());
  if (!user || !loop.contains(user)) return false;
  if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user)) return loop.contains(phi->getIncomingBlock(u));
  return true;
}

bool DefinedOutside(const llvm::Value* v, const llvm::Loop& loop) {
  if (llvm::isa<llvm::Argument>(v)) return true;
  auto* i = llvm::dyn_cast<llvm::Instruction>(v);
  return i && !loop.contains(i);
}

// Registers held by values that live through `loop`.
unsigned LiveThroughWords(const llvm::Loop& loop, const llvm::DataLayout& dl) {
  std::set<const llvm::Value*> seen;
  unsigned words = 0;
  for (llvm::BasicBlock* bb : loop.blocks())
    for (llvm::Instruction& i : *bb)
      for (const llvm::Use& u : i.operands())
        if (DefinedOutside(u.get(), loop) && IsUseInLoop(u, loop) && seen.insert(u.get()).second)
          words += Words(u.get(), dl);
  return words;
}

class Rematerializer {
 public:
  Rematerializer(llvm::Loop& loop) : loop_(loop), at_(&*loop.getHeader()->getFirstInsertionPt()) {}

  // The loop's own copy of a cheap value defined outside it.
  llvm::Value* Copy(llvm::Instruction* original) {
    if (auto it = copies_.find(original); it != copies_.end()) return it->second;
    llvm::Instruction* copy = original->clone();
    for (unsigned k = 0; k < copy->getNumOperands(); ++k) {
      auto* op = llvm::dyn_cast<llvm::Instruction>(copy->getOperand(k));
      if (op && !loop_.contains(op) && IsCheap(*op)) copy->setOperand(k, Copy(op));
    }
    copy->insertBefore(at_);
    copies_[original] = copy;
    return copy;
  }

  bool Run() {
    std::vector<llvm::Use*> uses;
    for (llvm::BasicBlock* bb : loop_.blocks())
      for (llvm::Instruction& i : *bb)
        for (llvm::Use& u : i.operands()) {
          auto* def = llvm::dyn_cast<llvm::Instruction>(u.get());
          if (def && !loop_.contains(def) && IsCheap(*def) && IsUseInLoop(u, loop_)) uses.push_back(&u);
        }
    llvm::SmallVector<llvm::WeakTrackingVH, 16> originals;
    for (llvm::Use* u : uses) {
      auto* def = llvm::cast<llvm::Instruction>(u->get());
      originals.push_back(def);
      u->set(Copy(def));
    }
    // Deleting one original may delete another (its operand): track them.
    llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(originals);
    return !uses.empty();
  }

 private:
  llvm::Loop& loop_;
  llvm::Instruction* at_;
  std::map<llvm::Instruction*, llvm::Value*> copies_;
};

}  // namespace

bool RematerializeInLoops(llvm::Function& f, unsigned budget) {
  if (f.isDeclaration()) return false;
  const llvm::DataLayout& dl = f.getParent()->getDataLayout();
  bool changed = false;
  // The pass adds and deletes instructions but never blocks, so the loops
  // found once stay valid. One loop at a time, outermost first: a copy
  // made for an outer loop is then defined outside the inner loops, which
  // measure it in turn.
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  for (llvm::Loop* loop : li.getLoopsInPreorder())
    if (LiveThroughWords(*loop, dl) > budget) changed |= Rematerializer(*loop).Run();
  return changed;
}

}  // namespace tmc::codegen
