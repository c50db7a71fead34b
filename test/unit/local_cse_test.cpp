// LocalCse (codegen/nvptx/local_cse.h): the emitter's builder reuses a
// pure instruction of the same block, or of a block the emitter said
// dominates it, with the same operands and flags, and nothing else (a
// block off the chain of dominators, other flags or indices, a place
// before the end of a block).
#include <gtest/gtest.h>

#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <utility>

#include "codegen/nvptx/local_cse.h"

namespace {

using tmc::codegen::CseBuilder;
using tmc::codegen::CseFolder;
using tmc::codegen::CseInserter;
using tmc::codegen::LocalCse;

struct Fixture {
  llvm::LLVMContext ctx;
  llvm::Module mod{"m", ctx};
  LocalCse cse;
  CseBuilder b{ctx, CseFolder(cse), CseInserter(cse)};
  llvm::Function* f;
  llvm::BasicBlock* entry;
  Fixture() {
    cse.Bind(&b);
    auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty(), b.getInt32Ty(), b.getPtrTy(), b.getFloatTy()},
                                         false);
    f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "k", mod);
    entry = llvm::BasicBlock::Create(ctx, "entry", f);
    b.SetInsertPoint(entry);
  }
  llvm::Value* A() { return f->getArg(0); }
  llvm::Value* B() { return f->getArg(1); }
  llvm::Value* P() { return f->getArg(2); }
  llvm::Value* X() { return f->getArg(3); }
  size_t Count() const { return entry->size(); }
};

TEST(LocalCse, ReusesAnEqualInstructionOfTheBlock) {
  Fixture x;
  llvm::Value* m = x.b.CreateMul(x.A(), x.B());
  llvm::Value* s = x.b.CreateAdd(m, x.b.getInt32(4), "", false, true);
  EXPECT_EQ(x.b.CreateMul(x.A(), x.B()), m);
  EXPECT_EQ(x.b.CreateAdd(m, x.b.getInt32(4), "", false, true), s);
  EXPECT_EQ(x.b.CreateMul(x.B(), x.A()), m);  // commutative
  EXPECT_EQ(x.Count(), 2u);
  // Not commutative: another value.
  llvm::Value* d = x.b.CreateSub(x.A(), x.B());
  EXPECT_NE(x.b.CreateSub(x.B(), x.A()), d);
}

TEST(LocalCse, EveryPureKind) {
  Fixture x;
  auto twice = [&](auto make) {
    llvm::Value* first = make();
    size_t n = x.Count();
    EXPECT_EQ(make(), first);
    EXPECT_EQ(x.Count(), n);
  };
  twice([&] { return x.b.CreateICmpSLT(x.A(), x.B()); });
  twice([&] { return x.b.CreateFCmpOLT(x.X(), x.X()); });
  twice([&] { return x.b.CreateSExt(x.A(), x.b.getInt64Ty()); });
  twice([&] { return x.b.CreateSelect(x.b.CreateICmpEQ(x.A(), x.B()), x.A(), x.B()); });
  twice([&] { return x.b.CreateInBoundsGEP(x.b.getFloatTy(), x.P(), x.A()); });
  twice([&] { return x.b.CreateFMul(x.X(), x.X()); });
  twice([&] { return x.b.CreateFNeg(x.X()); });
  twice([&] { return x.b.CreateSDiv(x.A(), x.B()); });
  auto* vec = llvm::FixedVectorType::get(x.b.getFloatTy(), 2);
  twice([&] { return x.b.CreateInsertElement(llvm::PoisonValue::get(vec), x.X(), uint64_t{0}); });
  auto* pair = llvm::StructType::get(x.ctx, {x.b.getInt32Ty(), x.b.getInt32Ty()});
  llvm::Value* agg = x.b.CreateInsertValue(llvm::PoisonValue::get(pair), x.A(), {1});
  twice([&] { return x.b.CreateInsertValue(llvm::PoisonValue::get(pair), x.A(), {1}); });
  twice([&] { return x.b.CreateExtractValue(agg, {1}); });
  llvm::Value* v = x.b.CreateInsertElement(llvm::PoisonValue::get(vec), x.X(), uint64_t{1});
  twice([&] { return x.b.CreateExtractElement(v, uint64_t{1}); });
  twice([&] { return x.b.CreateShuffleVector(v, v, {1, 0}); });
  // Vectors of addresses and of compares.
  llvm::Value* lanes = x.b.CreateVectorSplat(2, x.A());
  twice([&] { return x.b.CreateInBoundsGEP(x.b.getFloatTy(), x.P(), lanes); });
  twice([&] { return x.b.CreateICmpSLT(lanes, lanes); });
}

TEST(LocalCse, IndicesAndMasksTellApart) {
  Fixture x;
  auto* pair = llvm::StructType::get(x.ctx, {x.b.getInt32Ty(), x.b.getInt32Ty()});
  llvm::Value* agg = x.b.CreateInsertValue(llvm::PoisonValue::get(pair), x.A(), {1});
  llvm::Value* first = x.b.CreateExtractValue(agg, {0});
  EXPECT_NE(x.b.CreateExtractValue(agg, {1}), first);
  auto* vec = llvm::FixedVectorType::get(x.b.getFloatTy(), 2);
  llvm::Value* v = x.b.CreateInsertElement(llvm::PoisonValue::get(vec), x.X(), uint64_t{1});
  llvm::Value* swap = x.b.CreateShuffleVector(v, v, {1, 0});
  EXPECT_NE(x.b.CreateShuffleVector(v, v, {0, 1, 0}), swap);
  EXPECT_NE(x.b.CreateShuffleVector(v, v, {1, 1}), swap);
}

TEST(LocalCse, CompareByPredicateAndCastByType) {
  Fixture x;
  llvm::Value* lt = x.b.CreateICmpSLT(x.A(), x.B());
  EXPECT_NE(x.b.CreateICmpSLE(x.A(), x.B()), lt);
  llvm::Value* wide = x.b.CreateSExt(x.A(), x.b.getInt64Ty());
  EXPECT_NE(x.b.CreateZExt(x.A(), x.b.getInt64Ty()), wide);
  EXPECT_NE(x.b.CreateSExt(x.A(), x.b.getIntNTy(48)), wide);
  llvm::Value* g = x.b.CreateInBoundsGEP(x.b.getFloatTy(), x.P(), x.A());
  EXPECT_NE(x.b.CreateInBoundsGEP(x.b.getHalfTy(), x.P(), x.A()), g);  // another element size
}

TEST(LocalCse, FlagsMustBeEqual) {
  Fixture x;
  // `add nsw` promises no signed overflow: it must not stand for a plain
  // add (whose wrapped value is defined), nor the other way round.
  llvm::Value* nsw = x.b.CreateAdd(x.A(), x.B(), "", false, true);
  llvm::Value* plain = x.b.CreateAdd(x.A(), x.B());
  EXPECT_NE(plain, nsw);
  EXPECT_EQ(x.b.CreateAdd(x.A(), x.B()), plain);  // the latest of the shape is remembered
  EXPECT_NE(x.b.CreateAdd(x.A(), x.B(), "", true, true), nsw);
  llvm::Value* exact = x.b.CreateExactSDiv(x.A(), x.B());
  EXPECT_NE(x.b.CreateSDiv(x.A(), x.B()), exact);
  // Flags set after the instruction was built (IRBuilder's nneg, or by
  // hand): `zext nneg` and `or disjoint` are not reused for requests
  // without them.
  llvm::Value* nneg = x.b.CreateZExt(x.A(), x.b.getInt64Ty(), "", true);
  EXPECT_NE(x.b.CreateZExt(x.A(), x.b.getInt64Ty()), nneg);
  llvm::Value* disjoint = x.b.CreateOr(x.A(), x.B());
  llvm::cast<llvm::PossiblyDisjointInst>(disjoint)->setIsDisjoint(true);
  EXPECT_NE(x.b.CreateOr(x.A(), x.B()), disjoint);
  llvm::Value* inbounds = x.b.CreateInBoundsGEP(x.b.getFloatTy(), x.P(), x.A());
  EXPECT_NE(x.b.CreateGEP(x.b.getFloatTy(), x.P(), x.A()), inbounds);
  llvm::FastMathFlags fast;
  fast.setFast();
  llvm::Value* fmul = x.b.CreateFMul(x.X(), x.X());
  x.b.setFastMathFlags(fast);
  EXPECT_NE(x.b.CreateFMul(x.X(), x.X()), fmul);
}

// A block the emitter did not announce (LocalCse::Enter) sees only
// itself; within a block only what comes before the insertion point.
TEST(LocalCse, OnlyOnTheChainAtABlocksEnd) {
  Fixture x;
  llvm::Value* m = x.b.CreateMul(x.A(), x.B());
  auto* next = llvm::BasicBlock::Create(x.ctx, "next", x.f);
  x.b.CreateBr(next);
  x.b.SetInsertPoint(next);
  EXPECT_NE(x.b.CreateMul(x.A(), x.B()), m);
  // Before an instruction: what was built after that place must not be used.
  llvm::Value* late = x.b.CreateAdd(x.A(), x.B());
  x.b.SetInsertPoint(llvm::cast<llvm::Instruction>(late));
  EXPECT_NE(x.b.CreateAdd(x.A(), x.B()), late);
  // Back at the end, what is there serves.
  x.b.SetInsertPoint(next);
  EXPECT_EQ(x.b.CreateAdd(x.A(), x.B()), late);
  // A new function forgets.
  x.cse.Clear();
  EXPECT_NE(x.b.CreateAdd(x.A(), x.B()), late);
}

// An if/else and a loop as the emitter builds them: the block that
// branches dominates both arms and the join; the arms do not dominate
// each other nor the join.
TEST(LocalCse, ReusesWhatDominatingBlocksBuilt) {
  Fixture x;
  x.cse.Enter(x.entry, nullptr);
  llvm::Value* m = x.b.CreateMul(x.A(), x.B());
  auto* then_bb = llvm::BasicBlock::Create(x.ctx, "then", x.f);
  auto* else_bb = llvm::BasicBlock::Create(x.ctx, "else", x.f);
  auto* join = llvm::BasicBlock::Create(x.ctx, "join", x.f);
  x.b.CreateCondBr(x.b.getTrue(), then_bb, else_bb);
  x.b.SetInsertPoint(then_bb);
  x.cse.Enter(then_bb, x.entry);
  EXPECT_EQ(x.b.CreateMul(x.A(), x.B()), m);
  EXPECT_EQ(then_bb->size(), 0u);
  llvm::Value* in_then = x.b.CreateSub(x.A(), x.B());
  x.b.CreateBr(join);
  x.b.SetInsertPoint(else_bb);
  x.cse.Enter(else_bb, x.entry);
  EXPECT_EQ(x.b.CreateMul(x.A(), x.B()), m);
  llvm::Value* in_else = x.b.CreateSub(x.A(), x.B());
  EXPECT_NE(in_else, in_then);  // the then arm does not dominate the else arm
  x.b.CreateBr(join);
  x.b.SetInsertPoint(join);
  x.cse.Enter(join, x.entry);
  EXPECT_EQ(x.b.CreateMul(x.A(), x.B()), m);
  llvm::Value* in_join = x.b.CreateSub(x.A(), x.B());
  EXPECT_NE(in_join, in_then);
  EXPECT_NE(in_join, in_else);
  // A loop below the join: the header and the body see the join's and
  // the entry's instructions; the exit does not see the body's.
  auto* head = llvm::BasicBlock::Create(x.ctx, "head", x.f);
  auto* body = llvm::BasicBlock::Create(x.ctx, "body", x.f);
  auto* exit = llvm::BasicBlock::Create(x.ctx, "exit", x.f);
  x.b.CreateBr(head);
  x.b.SetInsertPoint(head);
  x.cse.Enter(head, join);
  x.b.CreateCondBr(x.b.getTrue(), body, exit);
  x.b.SetInsertPoint(body);
  x.cse.Enter(body, head);
  EXPECT_EQ(x.b.CreateSub(x.A(), x.B()), in_join);
  EXPECT_EQ(x.b.CreateMul(x.A(), x.B()), m);
  llvm::Value* in_body = x.b.CreateAdd(x.A(), x.B());
  x.b.CreateBr(head);
  x.b.SetInsertPoint(exit);
  x.cse.Enter(exit, head);
  EXPECT_NE(x.b.CreateAdd(x.A(), x.B()), in_body);
  EXPECT_EQ(x.b.CreateSub(x.A(), x.B()), in_join);
  // Back to a block on the chain (the header): what the exit built is
  // dropped, what the header and above built serves.
  llvm::Value* in_exit = x.b.CreateXor(x.A(), x.B());
  llvm::Value* xor_operands[] = {x.A(), x.B()};  // in LocalCse's order for a commutative operation
  if (std::less<llvm::Value*>()(xor_operands[1], xor_operands[0])) std::swap(xor_operands[0], xor_operands[1]);
  tmc::codegen::CseShape xor_shape{llvm::Instruction::Xor, x.b.getInt32Ty(), nullptr, xor_operands, {}};
  llvm::Value* sub_operands[] = {x.A(), x.B()};
  tmc::codegen::CseShape sub_shape{llvm::Instruction::Sub, x.b.getInt32Ty(), nullptr, sub_operands, {}};
  EXPECT_EQ(x.cse.Find(xor_shape, 0), in_exit);
  x.b.SetInsertPoint(head);  // its end (after its branch: only asked, nothing built)
  x.cse.Enter(head, nullptr);
  EXPECT_EQ(x.cse.Find(xor_shape, 0), nullptr);
  EXPECT_EQ(x.cse.Find(sub_shape, 0), in_join);
  // A dominator that is not on the chain (the exit, dropped): a chain of
  // its own.
  auto* other = llvm::BasicBlock::Create(x.ctx, "other", x.f);
  x.b.SetInsertPoint(other);
  x.cse.Enter(other, exit);
  EXPECT_NE(x.b.CreateXor(x.A(), x.B()), in_exit);
  EXPECT_NE(x.b.CreateMul(x.A(), x.B()), m);
  // A block with no known dominator sees only itself.
  auto* dead = llvm::BasicBlock::Create(x.ctx, "dead", x.f);
  x.b.SetInsertPoint(dead);
  x.cse.Enter(dead, nullptr);
  EXPECT_NE(x.b.CreateMul(x.A(), x.B()), m);
}

// Special-register reads are pure: one read serves below it.
TEST(LocalCse, SpecialRegisterReadsArePure) {
  Fixture x;
  x.cse.Enter(x.entry, nullptr);
  llvm::Function* tid = llvm::Intrinsic::getDeclaration(&x.mod, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* read = x.b.CreateCall(tid);
  EXPECT_EQ(x.cse.FindRegisterRead(tid), read);
  auto* next = llvm::BasicBlock::Create(x.ctx, "next", x.f);
  x.b.CreateBr(next);
  x.b.SetInsertPoint(next);
  x.cse.Enter(next, x.entry);
  EXPECT_EQ(x.cse.FindRegisterRead(tid), read);
  // Other registers are not: a clock moves, a thread may move to another
  // warp slot (%warpid); a barrier has effects.
  for (llvm::Intrinsic::ID id : {llvm::Intrinsic::nvvm_read_ptx_sreg_clock, llvm::Intrinsic::nvvm_read_ptx_sreg_warpid,
                                 llvm::Intrinsic::nvvm_barrier0}) {
    llvm::Function* g = llvm::Intrinsic::getDeclaration(&x.mod, id);
    x.b.CreateCall(g);
    llvm::Value* g_callee[] = {g};
    EXPECT_EQ(x.cse.Find({llvm::Instruction::Call, g->getReturnType(), nullptr, g_callee, {}}, 0), nullptr);
  }
}

TEST(LocalCse, PrivateMemoryReadsItsLastValueInTheBlock) {
  Fixture x;
  llvm::IRBuilder<> entry_builder(x.entry);
  llvm::AllocaInst* slot = entry_builder.CreateAlloca(x.b.getFloatTy());
  llvm::AllocaInst* other = entry_builder.CreateAlloca(x.b.getFloatTy());
  x.cse.MarkPrivate(slot);
  x.b.SetInsertPoint(x.entry);
  // Nothing stored or loaded yet: unknown; a load makes it known.
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), nullptr);
  llvm::Value* first = x.b.CreateLoad(x.b.getFloatTy(), slot);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), first);
  // A store replaces it; another type, or memory not marked private, is
  // unknown.
  x.b.CreateStore(x.X(), slot);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), x.X());
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getInt32Ty()), nullptr);
  x.b.CreateStore(x.X(), other);
  EXPECT_EQ(x.cse.KnownValue(other, x.b.getFloatTy()), nullptr);
  // Not before an instruction, nor in another block.
  auto* store = llvm::cast<llvm::Instruction>(x.b.CreateStore(x.X(), slot));
  x.b.SetInsertPoint(store);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), nullptr);
  x.b.SetInsertPoint(x.entry);
  auto* next = llvm::BasicBlock::Create(x.ctx, "next", x.f);
  x.b.CreateBr(next);
  x.b.SetInsertPoint(next);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), nullptr);
  // A store not at the end of its block: the value at the end is unknown.
  x.b.CreateStore(x.X(), slot);
  llvm::Instruction* last = llvm::cast<llvm::Instruction>(x.b.CreateAdd(x.A(), x.B()));
  x.b.SetInsertPoint(last);
  x.b.CreateStore(llvm::ConstantFP::get(x.b.getFloatTy(), 2.0), slot);
  x.b.SetInsertPoint(next);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), nullptr);
  // Forgotten (the emitter replaces the alloca): unknown, and stores to it
  // are no longer followed.
  x.b.CreateStore(x.X(), slot);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), x.X());
  x.cse.ForgetPrivate(slot);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), nullptr);
  x.b.CreateStore(x.X(), slot);
  EXPECT_EQ(x.cse.KnownValue(slot, x.b.getFloatTy()), nullptr);
}

}  // namespace
