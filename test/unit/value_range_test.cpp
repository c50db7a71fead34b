// ValueRange (codegen/nvptx/value_range.h): what it proves about offsets
// of thread indices, and what it must not (anything from an argument, a
// remainder of a value that may be negative, an operation that wraps).
#include <gtest/gtest.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/nvptx/value_range.h"

namespace {

using tmc::codegen::ValueRange;

struct Fixture {
  llvm::LLVMContext ctx;
  llvm::Module mod{"m", ctx};
  llvm::IRBuilder<> b{ctx};
  llvm::Function* f;
  Fixture() {
    auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty()}, false);
    f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "k", mod);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", f));
  }
  llvm::Value* Sreg(llvm::Intrinsic::ID id) { return b.CreateCall(llvm::Intrinsic::getDeclaration(&mod, id)); }
  llvm::Value* Tid() { return Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x); }
  llvm::Value* I32(int v) { return b.getInt32(static_cast<uint32_t>(v)); }
  llvm::Value* Arg() { return f->getArg(0); }
};

constexpr std::array<int64_t, 3> kBlock128 = {128, 1, 1};

int64_t Min(const llvm::ConstantRange& r) { return r.getSignedMin().getSExtValue(); }
int64_t Max(const llvm::ConstantRange& r) { return r.getSignedMax().getSExtValue(); }

TEST(ValueRange, ConvEpilogueRowTableOffset) {
  // pix[(wm + i) * 3 + 2] with wm = (warp / 2) * 64 and fragment row i <= 57.
  Fixture x;
  llvm::Value* warp = x.b.CreateUDiv(x.Tid(), x.I32(32));
  llvm::Value* wm = x.b.CreateMul(x.b.CreateUDiv(warp, x.I32(2)), x.I32(64));
  llvm::Value* row = x.b.CreateAdd(wm, x.b.CreateAnd(x.b.CreateLShr(x.Tid(), x.I32(2)), x.I32(7)));
  llvm::Value* off = x.b.CreateAdd(x.b.CreateMul(x.b.CreateAdd(row, x.I32(56)), x.I32(3)), x.I32(2));
  llvm::ConstantRange r = ValueRange(off, kBlock128);
  EXPECT_EQ(Min(r), 56 * 3 + 2);
  EXPECT_EQ(Max(r), (64 + 7 + 56) * 3 + 2);  // below the 128 x 3 table
}

TEST(ValueRange, BlockExtentBoundsTheThreadIndex) {
  Fixture x;
  EXPECT_EQ(Max(ValueRange(x.Tid(), kBlock128)), 127);
  EXPECT_EQ(Max(ValueRange(x.Tid(), {0, 0, 0})), 1023);  // unknown block: the hardware's limit
  llvm::Value* ntid = x.Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  EXPECT_EQ(Min(ValueRange(ntid, kBlock128)), 128);
  EXPECT_EQ(Max(ValueRange(ntid, kBlock128)), 128);
}

TEST(ValueRange, ArgumentsAndSignedRemaindersAreNotBounded) {
  Fixture x;
  EXPECT_TRUE(ValueRange(x.Arg(), kBlock128).isFullSet());
  // (tid + r) % 64 with r an argument: anything in (-64, 64).
  llvm::Value* rem = x.b.CreateSRem(x.b.CreateAdd(x.Tid(), x.Arg()), x.I32(64));
  llvm::ConstantRange r = ValueRange(rem, kBlock128);
  EXPECT_LT(Min(r), 0);
  EXPECT_EQ(Max(r), 63);
}

TEST(ValueRange, WrappingArithmeticIsNotTrusted) {
  // ctaid * 2^24 wraps in 32 bits even though the IR says nsw: the range
  // must not come from the flag it is meant to justify.
  Fixture x;
  llvm::Value* ctaid = x.Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* big = x.b.CreateMul(ctaid, x.I32(1 << 24), "", false, /*HasNSW=*/true);
  EXPECT_LT(Min(ValueRange(big, kBlock128)), 0);
}

TEST(ValueRange, SelectsAndCastsCarryTheirOperands) {
  Fixture x;
  llvm::Value* c = x.b.CreateICmpSLT(x.Arg(), x.I32(0));
  llvm::Value* s = x.b.CreateSelect(c, x.I32(3), x.b.CreateAnd(x.Tid(), x.I32(15)));
  llvm::Value* wide = x.b.CreateSExt(s, x.b.getInt64Ty());
  llvm::ConstantRange r = ValueRange(wide, kBlock128);
  EXPECT_EQ(r.getBitWidth(), 64u);
  EXPECT_EQ(Min(r), 0);
  EXPECT_EQ(Max(r), 15);
}

TEST(ValueRange, DepthLimitGivesTheFullRange) {
  Fixture x;
  llvm::Value* v = x.Tid();
  for (int k = 0; k < 20; ++k) v = x.b.CreateAdd(v, x.I32(1));
  EXPECT_TRUE(ValueRange(v, kBlock128, 4).isFullSet());
}

}  // namespace
