// HasNarrowArithmetic (codegen/nvptx/narrow_slp.h): the SLP vectorizer runs
// on a function that computes on an 8- or 16-bit value (an operation, a
// comparison, a select, an intrinsic), not on one whose 16-bit values are
// only converted, loaded or stored, nor on one with only i1 conditions.
#include <gtest/gtest.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>

#include "codegen/nvptx/narrow_slp.h"

namespace {

using tmc::codegen::HasNarrowArithmetic;

// A function `void (float, i32, ptr)` whose body `build` writes.
bool HasNarrowIn(const std::function<void(llvm::IRBuilder<>&, llvm::Function*)>& build) {
  llvm::LLVMContext ctx;
  llvm::Module mod("m", ctx);
  llvm::IRBuilder<> b(ctx);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getFloatTy(), b.getInt32Ty(), b.getPtrTy()}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "k", mod);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", f));
  build(b, f);
  b.CreateRetVoid();
  return HasNarrowArithmetic(*f);
}

TEST(NarrowSlp, WideArithmeticAndConditionsAreNot) {
  EXPECT_FALSE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* x = b.CreateFMul(f->getArg(0), f->getArg(0));
    llvm::Value* i = b.CreateAdd(f->getArg(1), b.getInt32(1));
    llvm::Value* c = b.CreateAnd(b.CreateICmpSLT(i, b.getInt32(8)), b.CreateFCmpOLT(x, f->getArg(0)));
    b.CreateStore(b.CreateSelect(c, x, f->getArg(0)), f->getArg(2));
  }));
}

TEST(NarrowSlp, ConversionsLoadsAndStoresOfHalvesAreNot) {
  EXPECT_FALSE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* h = b.CreateFPTrunc(f->getArg(0), b.getHalfTy());
    b.CreateStore(h, f->getArg(2));
    llvm::Value* back = b.CreateFPExt(b.CreateLoad(b.getHalfTy(), f->getArg(2)), b.getFloatTy());
    b.CreateStore(back, f->getArg(2));
  }));
}

TEST(NarrowSlp, HalfBfloatAndShortArithmeticAre) {
  EXPECT_TRUE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* h = b.CreateFPTrunc(f->getArg(0), b.getHalfTy());
    b.CreateStore(b.CreateFMul(h, h), f->getArg(2));
  }));
  EXPECT_TRUE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* h = b.CreateFPTrunc(f->getArg(0), b.getBFloatTy());
    b.CreateStore(b.CreateFNeg(h), f->getArg(2));
  }));
  EXPECT_TRUE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* s = b.CreateTrunc(f->getArg(1), b.getInt16Ty());
    b.CreateStore(b.CreateAdd(s, b.getInt16(3)), f->getArg(2));
  }));
  EXPECT_TRUE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* s = b.CreateTrunc(f->getArg(1), b.getInt8Ty());
    b.CreateStore(b.CreateICmpULT(s, b.getInt8(3)), f->getArg(2));
  }));
  EXPECT_TRUE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* h = b.CreateFPTrunc(f->getArg(0), b.getHalfTy());
    b.CreateStore(b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getHalfTy()}, {h, h, h}), f->getArg(2));
  }));
  EXPECT_TRUE(HasNarrowIn([](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* h = b.CreateFPTrunc(f->getArg(0), b.getHalfTy());
    b.CreateStore(b.CreateSelect(b.getTrue(), h, h), f->getArg(2));
  }));
}

}  // namespace
