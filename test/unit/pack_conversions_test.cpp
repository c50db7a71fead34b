// PackConversionsPass (codegen/nvptx/pack_conversions.h): each pair of
// lanes (2i, 2i + 1) of a vector of halves or bfloats that are both f32
// conversions becomes one llvm.nvvm.ff2f16x2.rn (ff2bf16x2.rn) call, the
// upper lane as its first operand; other lanes stay as they were.
#include <gtest/gtest.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <functional>
#include <string>
#include <vector>

#include "codegen/nvptx/pack_conversions.h"

namespace {

// One conversion of a pair: its intrinsic, the function arguments it
// converts (-1: not an argument) and its block.
struct Call {
  llvm::Intrinsic::ID id;
  int upper, lower;
  std::string block;
};

// What the pass left (the module is gone when the test looks).
struct Packed {
  std::vector<Call> calls;                  // the conversions of pairs, in order
  int scalar_conversions = 0;               // fptruncs left
  bool changed = false;
  std::string text;                         // the function after the pass
};

// A function `void (float, float, float, float, ptr)` whose body `build`
// writes (returning the vector it stores), after PackConversionsPass.
Packed RunPass(llvm::LLVMContext& ctx, const std::function<llvm::Value*(llvm::IRBuilder<>&, llvm::Function*)>& build) {
  llvm::Module mod("m", ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Type* f32 = b.getFloatTy();
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {f32, f32, f32, f32, b.getPtrTy()}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "k", mod);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", f));
  llvm::Value* v = build(b, f);
  b.CreateStore(v, f->getArg(4));
  b.CreateRetVoid();
  EXPECT_FALSE(llvm::verifyFunction(*f, &llvm::errs()));

  llvm::FunctionAnalysisManager fam;
  Packed out;
  out.changed = !tmc::codegen::PackConversionsPass().run(*f, fam).areAllPreserved();
  EXPECT_FALSE(llvm::verifyFunction(*f, &llvm::errs()));
  for (llvm::BasicBlock& block : *f)
    for (llvm::Instruction& i : block) {
      if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&i)) {
        auto arg = [&](unsigned k) {
          auto* a = llvm::dyn_cast<llvm::Argument>(call->getArgOperand(k));
          return a ? static_cast<int>(a->getArgNo()) : -1;
        };
        out.calls.push_back({call->getIntrinsicID(), arg(0), arg(1), block.getName().str()});
      }
      if (llvm::isa<llvm::FPTruncInst>(i)) ++out.scalar_conversions;
    }
  llvm::raw_string_ostream os(out.text);
  f->print(os);
  return out;
}

// The vector <lanes...> built by insertelements on poison.
llvm::Value* Chain(llvm::IRBuilder<>& b, llvm::Type* element, const std::vector<llvm::Value*>& lanes) {
  llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, lanes.size()));
  for (size_t i = 0; i < lanes.size(); ++i) v = b.CreateInsertElement(v, lanes[i], uint64_t{i});
  return v;
}

TEST(PackConversions, APairIsOneConversionUpperLaneFirst) {
  llvm::LLVMContext ctx;
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    return Chain(b, b.getHalfTy(), {b.CreateFPTrunc(f->getArg(0), b.getHalfTy()), b.CreateFPTrunc(f->getArg(1), b.getHalfTy())});
  });
  ASSERT_EQ(p.calls.size(), 1u) << p.text;
  EXPECT_EQ(p.calls[0].id, llvm::Intrinsic::nvvm_ff2f16x2_rn);
  EXPECT_EQ(p.calls[0].upper, 1);
  EXPECT_EQ(p.calls[0].lower, 0);
  EXPECT_EQ(p.scalar_conversions, 0) << p.text;
}

TEST(PackConversions, OnlyPairsOfConversionsAndOthersKept) {
  llvm::LLVMContext ctx;
  // bf16 lanes 0 and 1 converted, lane 2 a constant: one call, and the
  // constant and lane 3's conversion stay.
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Type* bf = b.getBFloatTy();
    return Chain(b, bf, {b.CreateFPTrunc(f->getArg(0), bf), b.CreateFPTrunc(f->getArg(1), bf),
                         llvm::ConstantFP::get(bf, 1.0), b.CreateFPTrunc(f->getArg(3), bf)});
  });
  ASSERT_EQ(p.calls.size(), 1u) << p.text;
  EXPECT_EQ(p.calls[0].id, llvm::Intrinsic::nvvm_ff2bf16x2_rn);
  EXPECT_EQ(p.calls[0].upper, 1);
  EXPECT_EQ(p.calls[0].lower, 0);
  EXPECT_EQ(p.scalar_conversions, 1) << p.text;
  EXPECT_NE(p.text.find("bfloat 0xR3F80"), std::string::npos) << p.text;
}

TEST(PackConversions, PairsAreAlignedTo32Bits) {
  llvm::LLVMContext ctx;
  // Lanes 1 and 2 straddle two registers: nothing to pack.
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Type* h = b.getHalfTy();
    llvm::Value* loaded = b.CreateLoad(h, f->getArg(4));
    return Chain(b, h, {loaded, b.CreateFPTrunc(f->getArg(1), h), b.CreateFPTrunc(f->getArg(2), h), loaded});
  });
  EXPECT_FALSE(p.changed);
  EXPECT_TRUE(p.calls.empty()) << p.text;
  EXPECT_EQ(p.scalar_conversions, 2);
}

// The two halves of one 32-bit value, put back together: that value (the
// A operand of a wgmma after the fence passed it through as b32), with no
// conversion; next to a poison lane, which stays.
TEST(PackConversions, HalvesOfOneWordAreThatWord) {
  llvm::LLVMContext ctx;
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Type* h = b.getHalfTy();
    llvm::Value* word = b.CreateBitCast(f->getArg(0), b.getInt32Ty());
    llvm::Value* lo = b.CreateBitCast(b.CreateTrunc(word, b.getInt16Ty()), h);
    llvm::Value* hi = b.CreateBitCast(b.CreateTrunc(b.CreateLShr(word, 16), b.getInt16Ty()), h);
    llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(h, 4));
    v = b.CreateInsertElement(v, b.CreateFPTrunc(f->getArg(1), h), uint64_t{1});
    v = b.CreateInsertElement(v, lo, uint64_t{2});
    return b.CreateInsertElement(v, hi, uint64_t{3});
  });
  EXPECT_TRUE(p.changed);
  EXPECT_TRUE(p.calls.empty()) << p.text;
  EXPECT_EQ(p.text.find("lshr"), std::string::npos) << p.text;  // the halves are gone
  EXPECT_EQ(p.scalar_conversions, 1) << p.text;                 // lane 1, beside a poison lane 0
}

// A lane left poison beside a value that stays: the pair's word must not
// be poison as a whole, so the poison lane becomes 0.
TEST(PackConversions, PoisonBesideAValueIsZero) {
  llvm::LLVMContext ctx;
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Type* h = b.getHalfTy();
    llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(h, 4));
    v = b.CreateInsertElement(v, b.CreateFPTrunc(f->getArg(0), h), uint64_t{0});
    v = b.CreateInsertElement(v, b.CreateFPTrunc(f->getArg(1), h), uint64_t{1});
    return b.CreateInsertElement(v, b.CreateLoad(h, f->getArg(4)), uint64_t{3});
  });
  ASSERT_EQ(p.calls.size(), 1u) << p.text;
  EXPECT_NE(p.text.find("insertelement <2 x half> <half 0xH0000, half poison>, half %"), std::string::npos)
      << p.text;
}

// Halves of two different words, or in the wrong order, are not a pair.
TEST(PackConversions, HalvesOfTwoWordsAreNot) {
  llvm::LLVMContext ctx;
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Type* h = b.getHalfTy();
    llvm::Value* w0 = b.CreateBitCast(f->getArg(0), b.getInt32Ty());
    llvm::Value* w1 = b.CreateBitCast(f->getArg(1), b.getInt32Ty());
    auto low = [&](llvm::Value* w) { return b.CreateBitCast(b.CreateTrunc(w, b.getInt16Ty()), h); };
    auto high = [&](llvm::Value* w) { return b.CreateBitCast(b.CreateTrunc(b.CreateLShr(w, 16), b.getInt16Ty()), h); };
    return Chain(b, h, {low(w0), high(w1), high(w0), low(w0)});
  });
  EXPECT_FALSE(p.changed) << p.text;
}

TEST(PackConversions, ConversionsFromDoubleAreNot) {
  llvm::LLVMContext ctx;
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Type* h = b.getHalfTy();
    llvm::Value* d0 = b.CreateFPExt(f->getArg(0), b.getDoubleTy());
    llvm::Value* d1 = b.CreateFPExt(f->getArg(1), b.getDoubleTy());
    return Chain(b, h, {b.CreateFPTrunc(d0, h), b.CreateFPTrunc(d1, h)});
  });
  EXPECT_FALSE(p.changed);
}

TEST(PackConversions, AVectorConversionIsPairs) {
  llvm::LLVMContext ctx;
  Packed p = RunPass(ctx, [](llvm::IRBuilder<>& b, llvm::Function* f) {
    llvm::Value* v = Chain(b, b.getFloatTy(), {f->getArg(0), f->getArg(1), f->getArg(2), f->getArg(3)});
    return b.CreateFPTrunc(v, llvm::FixedVectorType::get(b.getHalfTy(), 4));
  });
  ASSERT_EQ(p.calls.size(), 2u) << p.text;
  EXPECT_EQ(p.scalar_conversions, 0) << p.text;
  EXPECT_EQ(p.text.find("fptrunc <4 x float>"), std::string::npos) << p.text;
}

TEST(PackConversions, PhisOfConversionsAndConstantsArePairs) {
  llvm::LLVMContext ctx;
  // entry -> (convert ->) join: the lanes are zero when `convert` is
  // skipped (a loop that ran zero times), conversions otherwise.
  Packed p = RunPass(ctx, [&](llvm::IRBuilder<>& b, llvm::Function* f) -> llvm::Value* {
    llvm::Type* h = b.getHalfTy();
    auto* convert = llvm::BasicBlock::Create(ctx, "convert", f);
    auto* join = llvm::BasicBlock::Create(ctx, "join", f);
    llvm::BasicBlock* entry = b.GetInsertBlock();
    b.CreateCondBr(b.CreateFCmpOLT(f->getArg(0), f->getArg(1)), convert, join);
    b.SetInsertPoint(convert);
    llvm::Value* c0 = b.CreateFPTrunc(f->getArg(2), h);
    llvm::Value* c1 = b.CreateFPTrunc(f->getArg(3), h);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    llvm::PHINode* l0 = b.CreatePHI(h, 2);
    llvm::PHINode* l1 = b.CreatePHI(h, 2);
    l0->addIncoming(llvm::ConstantFP::get(h, 0.0), entry);
    l0->addIncoming(c0, convert);
    l1->addIncoming(llvm::ConstantFP::get(h, 0.0), entry);
    l1->addIncoming(c1, convert);
    return Chain(b, h, {l0, l1});
  });
  ASSERT_EQ(p.calls.size(), 1u) << p.text;
  EXPECT_EQ(p.calls[0].block, "convert");
  EXPECT_EQ(p.calls[0].upper, 3);
  EXPECT_EQ(p.calls[0].lower, 2);
  EXPECT_EQ(p.scalar_conversions, 0) << p.text;
  EXPECT_NE(p.text.find("phi <2 x half> [ zeroinitializer, %entry ]"), std::string::npos) << p.text;
}

}  // namespace
