// ir::WgmmaSyncRegisters on hand-built bodies: which registers each
// wgmma_fence and wgmma_wait must hold (see ir/wgmma_sync_registers.h),
// through sequences, ifs, loops and their breaks and continues.
#include <gtest/gtest.h>

#include "ir/wgmma_sync_registers.h"

namespace tmc::ir {
namespace {

Expr I(int64_t v) { return IntImm::Make(ScalarKind::I32, v); }
Expr True() { return IntImm::Make(ScalarKind::Bool, 1); }  // a condition the analysis does not read

struct Body {
  Function fn;
  BufferPtr Reg(const std::string& name) {
    auto b = std::make_shared<Buffer>();
    b->name = name;
    b->elem = ScalarKind::F32;
    b->scope = MemScope::Register;
    b->shape = {I(32)};
    return b;
  }
  // wgmma on accumulator `d` (and A in registers `a`, if any).
  Stmt Mma(const BufferPtr& d, const BufferPtr& a = nullptr) {
    std::vector<BufferPtr> bufs = {d};
    if (a) bufs.push_back(a);
    return Evaluate::Make(Call::Make(ScalarKind::I32, Intrinsic::Wgmma, {}, nullptr, bufs));
  }
  Stmt Fence(Expr* call) {
    *call = Call::Make(ScalarKind::I32, Intrinsic::WgmmaFence, {});
    return Evaluate::Make(*call);
  }
  Stmt Wait(int64_t n, Expr* call) {
    *call = Call::Make(ScalarKind::I32, Intrinsic::WgmmaWait, {I(n)});
    return Evaluate::Make(*call);
  }
  std::vector<std::string> At(const Expr& call) {
    auto map = WgmmaSyncRegisters(fn);
    std::vector<std::string> names;
    auto it = map.find(call->as<Call>());
    if (it != map.end())
      for (const Buffer* b : it->second) names.push_back(b->name);
    return names;
  }
  Stmt Loop(Stmt body) { return For::Make(NewVar(fn, "n", ScalarKind::I32), I(0), I(4), I(1), false, std::move(body)); }
};

using Names = std::vector<std::string>;

// attention's loop: S = Q K^T (fence, wgmma, wait 0), then O += P V with P
// in registers. Each fence and wait holds its own group's registers only.
TEST(WgmmaSyncRegisters, EachGroupHoldsItsOwnRegisters) {
  Body b;
  BufferPtr s = b.Reg("s"), o = b.Reg("o"), p = b.Reg("p");
  Expr f1, w1, f2, w2;
  b.fn.body = b.Loop(Seq::Make({b.Fence(&f1), b.Mma(s), b.Mma(s), b.Wait(0, &w1), b.Fence(&f2), b.Mma(o, p),
                                b.Wait(0, &w2)}));
  EXPECT_EQ(b.At(f1), Names({"s"}));
  EXPECT_EQ(b.At(w1), Names({"s"}));
  EXPECT_EQ(b.At(f2), Names({"o", "p"}));
  EXPECT_EQ(b.At(w2), Names({"o", "p"}));
}

// A wait_group 1 retires only the older groups: what is in flight across
// the loop's back edge stays in flight at the next wait.
TEST(WgmmaSyncRegisters, WaitsAboveZeroKeepGroupsInFlight) {
  Body b;
  BufferPtr s = b.Reg("s"), o = b.Reg("o");
  Expr f1, w1, f2, w2;
  b.fn.body = b.Loop(Seq::Make({b.Fence(&f1), b.Mma(s), b.Wait(1, &w1), b.Fence(&f2), b.Mma(o), b.Wait(1, &w2)}));
  EXPECT_EQ(b.At(f1), Names({"s"}));
  EXPECT_EQ(b.At(w1), Names({"s", "o"}));  // o: the previous iteration's group
  EXPECT_EQ(b.At(w2), Names({"s", "o"}));
  EXPECT_EQ(b.At(f2), Names({"o"}));
}

// A fence with no fence after it in its loop body reaches the wgmma calls
// of the next iteration before that iteration's fence, and those after
// the loop.
TEST(WgmmaSyncRegisters, FencesReachAcrossTheBackEdgeAndTheExit) {
  Body b;
  BufferPtr s = b.Reg("s"), o = b.Reg("o"), e = b.Reg("e");
  Expr f1, w1, w2;
  b.fn.body = Seq::Make({b.Loop(Seq::Make({b.Mma(s), b.Wait(0, &w1), b.Fence(&f1), b.Mma(o)})), b.Mma(e),
                         b.Wait(0, &w2)});
  EXPECT_EQ(b.At(f1), Names({"s", "o", "e"}));
  EXPECT_EQ(b.At(w1), Names({"s", "o"}));  // o from the previous iteration
  EXPECT_EQ(b.At(w2), Names({"o", "e"}));  // s is always retired by w1 before the exit
}

// Ifs join both branches; a break carries its state to the loop's exit
// past the fence that follows it in the body (f0 reaches x), a continue
// to the next iteration past the fence after it (f1 reaches anything).
TEST(WgmmaSyncRegisters, BranchesBreaksAndContinues) {
  Body b;
  BufferPtr s = b.Reg("s"), o = b.Reg("o"), x = b.Reg("x");
  Expr f0, f1, f2, w;
  Stmt brk = IfStmt::Make(True(), Jump::Make(true));
  Stmt cont = IfStmt::Make(True(), Jump::Make(false));
  b.fn.body = Seq::Make({b.Fence(&f0), b.Loop(Seq::Make({IfStmt::Make(True(), b.Mma(s), b.Mma(o)), brk, b.Fence(&f1), cont,
                                                        b.Fence(&f2)})),
                         b.Mma(x), b.Wait(0, &w)});
  EXPECT_EQ(b.At(f0), Names({"s", "o", "x"}));  // x through the break
  EXPECT_EQ(b.At(f1), Names({"s", "o", "x"}));  // only through the continue: f2 follows
  EXPECT_EQ(b.At(f2), Names({"s", "o", "x"}));  // the next iteration, its break
  EXPECT_EQ(b.At(w), Names({"s", "o", "x"}));
}

// A wait with nothing issued before it holds nothing.
TEST(WgmmaSyncRegisters, NothingInFlight) {
  Body b;
  BufferPtr s = b.Reg("s");
  Expr w0, f, w1;
  b.fn.body = Seq::Make({b.Wait(0, &w0), b.Fence(&f), b.Wait(0, &w1), b.Mma(s)});
  EXPECT_TRUE(b.At(w0).empty());
  EXPECT_TRUE(b.At(w1).empty());
  EXPECT_EQ(b.At(f), Names({"s"}));
}

}  // namespace
}  // namespace tmc::ir
