// KnownOffsetBits (codegen/nvptx/known_offset_bits.h): the low zero bits of
// an element offset, which give the alignment of the emitter's loads and
// stores; never more than the arithmetic proves, and what LLVM's
// computeKnownBits finds.
#include <gtest/gtest.h>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/nvptx/known_offset_bits.h"

namespace {

using tmc::codegen::KnownOffsetBits;

struct Fixture {
  llvm::LLVMContext ctx;
  llvm::Module mod{"m", ctx};
  llvm::IRBuilder<> b{ctx};
  llvm::Function* f;
  KnownOffsetBits known;
  Fixture() {
    auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty(), b.getInt32Ty(), b.getInt1Ty()}, false);
    f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "k", mod);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", f));
  }
  llvm::Value* X() { return f->getArg(0); }  // nothing known
  llvm::Value* Y() { return f->getArg(1); }
  llvm::Value* C(int64_t v) { return b.getInt32(static_cast<uint32_t>(v)); }
  // The answer, checked against LLVM's.
  unsigned Zeros(llvm::Value* v) {
    unsigned z = known.TrailingZeros(v);
    EXPECT_EQ(z, llvm::computeKnownBits(v, mod.getDataLayout()).countMinTrailingZeros());
    return z;
  }
};

TEST(KnownOffsetBits, ConstantsAndUnknownValues) {
  Fixture x;
  EXPECT_EQ(x.Zeros(x.C(48)), 4u);
  EXPECT_EQ(x.Zeros(x.C(1)), 0u);
  EXPECT_EQ(x.Zeros(x.C(0)), 32u);
  EXPECT_EQ(x.Zeros(x.X()), 0u);
  EXPECT_EQ(x.Zeros(x.b.CreateLoad(x.b.getInt32Ty(), llvm::ConstantPointerNull::get(x.b.getPtrTy()))), 0u);
}

TEST(KnownOffsetBits, ProductsShiftsAndMasks) {
  Fixture x;
  llvm::Value* row = x.b.CreateMul(x.X(), x.C(64));  // a row index times the row length
  EXPECT_EQ(x.Zeros(row), 6u);
  EXPECT_EQ(x.Zeros(x.b.CreateMul(row, x.b.CreateShl(x.Y(), 2))), 8u);
  EXPECT_EQ(x.Zeros(x.b.CreateShl(x.X(), 3)), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateShl(x.X(), x.Y())), 0u);  // an unknown shift
  // `x & ~7`, as a divisibility condition writes it; either side decides.
  EXPECT_EQ(x.Zeros(x.b.CreateAnd(x.X(), x.C(-8))), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateAnd(x.C(-8), row)), 6u);
}

TEST(KnownOffsetBits, SumsCarryTheirKnownLowBits) {
  Fixture x;
  llvm::Value* a = x.b.CreateMul(x.X(), x.C(16));
  llvm::Value* c = x.b.CreateShl(x.Y(), 2);
  EXPECT_EQ(x.Zeros(x.b.CreateAdd(a, c)), 2u);
  EXPECT_EQ(x.Zeros(x.b.CreateSub(a, x.C(8))), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateOr(a, x.C(4))), 2u);
  EXPECT_EQ(x.Zeros(x.b.CreateAdd(a, x.C(1))), 0u);
  EXPECT_EQ(x.Zeros(x.b.CreateAdd(a, x.X())), 0u);
  // A reversed index: 1023 - (4y + 3) = 1020 - 4y.
  EXPECT_EQ(x.Zeros(x.b.CreateSub(x.C(1023), x.b.CreateAdd(c, x.C(3)))), 2u);
}

TEST(KnownOffsetBits, SwizzlesThatCancel) {
  // A 128-byte swizzle of an offset that is a multiple of 256: the bits it
  // moves are zero, so the offset keeps its alignment.
  Fixture x;
  llvm::Value* o = x.b.CreateMul(x.X(), x.C(256));
  llvm::Value* swz = x.b.CreateXor(o, x.b.CreateAShr(x.b.CreateAnd(o, x.C(192)), 3));
  EXPECT_EQ(x.Zeros(swz), 8u);
}

TEST(KnownOffsetBits, DivisionsAndShiftsRight) {
  Fixture x;
  llvm::Value* a = x.b.CreateMul(x.X(), x.C(32));
  EXPECT_EQ(x.Zeros(x.b.CreateExactSDiv(a, x.C(4))), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateExactUDiv(a, x.C(3))), 5u);  // an exact division by an odd number
  EXPECT_EQ(x.Zeros(x.b.CreateLShr(a, 2, "", true)), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateLShr(a, 7, "", true)), 0u);
}

TEST(KnownOffsetBits, RemaindersByPowersOfTwo) {
  Fixture x;
  llvm::Value* a = x.b.CreateMul(x.X(), x.C(8));
  // (8x) % 64 keeps the three zero bits; (8x) % 4 is 0.
  EXPECT_EQ(x.Zeros(x.b.CreateSRem(a, x.C(64))), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateURem(a, x.C(4))), 32u);
  EXPECT_EQ(x.Zeros(x.b.CreateURem(x.X(), x.C(48))), 0u);
}

TEST(KnownOffsetBits, MinMaxAndAbs) {
  Fixture x;
  llvm::Value* a = x.b.CreateMul(x.X(), x.C(8));
  llvm::Value* b = x.b.CreateShl(x.Y(), 4);
  EXPECT_EQ(x.Zeros(x.b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, b)), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, a, b)), 3u);
  EXPECT_EQ(x.Zeros(x.b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, x.X())), 0u);
  EXPECT_EQ(x.Zeros(x.b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, b, x.b.getFalse())), 4u);
}

TEST(KnownOffsetBits, CastsAndSelects) {
  Fixture x;
  llvm::Value* a = x.b.CreateMul(x.X(), x.C(4));
  llvm::Value* wide = x.b.CreateSExt(a, x.b.getInt64Ty());
  EXPECT_EQ(x.Zeros(wide), 2u);
  EXPECT_EQ(x.Zeros(x.b.CreateTrunc(x.b.CreateShl(wide, 40), x.b.getInt32Ty())), 32u);
  llvm::Value* b = x.b.CreateShl(x.Y(), 3);
  EXPECT_EQ(x.Zeros(x.b.CreateSelect(x.f->getArg(2), a, b)), 2u);
  EXPECT_EQ(x.Zeros(x.b.CreateSelect(x.f->getArg(2), a, x.X())), 0u);
}

TEST(KnownOffsetBits, DepthBoundsTheWalkAndWhatIsKnownStays) {
  Fixture x;
  llvm::Value* inner = x.b.CreateMul(x.X(), x.C(16));
  for (int i = 0; i < 3; ++i) inner = x.b.CreateAdd(inner, x.b.CreateMul(x.Y(), x.C(16)));
  llvm::Value* outer = inner;
  for (int i = 0; i < 5; ++i) outer = x.b.CreateAdd(outer, x.C(16));
  // Eight operations deep, the multiples of 16 are past the depth: unknown,
  // as for LLVM.
  KnownOffsetBits fresh;
  EXPECT_EQ(fresh.TrailingZeros(outer), 0u);
  EXPECT_EQ(llvm::computeKnownBits(outer, x.mod.getDataLayout()).countMinTrailingZeros(), 0u);
  // Once the inner sum is known (an earlier access's offset), the outer one
  // builds on it: more than LLVM finds, and true.
  EXPECT_EQ(x.Zeros(inner), 4u);
  EXPECT_EQ(x.known.TrailingZeros(outer), 4u);
  // A shallow look first does not weaken a deeper one later.
  KnownOffsetBits shallow;
  llvm::Value* w = x.b.CreateAdd(x.b.CreateMul(x.X(), x.C(16)), x.C(32));
  EXPECT_EQ(shallow.Known(w, 1).countMinTrailingZeros(), 0u);
  EXPECT_EQ(shallow.TrailingZeros(w), 4u);
  // And past the depth, a value known already keeps what is known of it.
  EXPECT_EQ(shallow.Known(w, 0).countMinTrailingZeros(), 4u);
}

}  // namespace
