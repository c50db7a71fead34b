// IR passes on hand-built functions: the mapping lowering enumerates exactly
// the tasks the algebra defines, and the simplifier folds what it should.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "ir/linear_form.h"
#include "ir/printer.h"
#include "ir/transforms/flatten_buffers.h"
#include "ir/transforms/lower_task_mappings.h"
#include "ir/transforms/simplify.h"
#include "ir/transforms/unroll.h"
#include "support/check.h"

namespace tmc::ir {
namespace {

Expr I(int64_t v) { return IntImm::Make(ScalarKind::I32, v); }

// A small interpreter for lowered integer code: enough for index
// arithmetic, loops, guards and stores (which it records).
class Interp {
 public:
  std::map<const Var*, int64_t> env;
  std::vector<std::vector<int64_t>> stores;

  int64_t Eval(const Expr& e) {
    if (auto* i = e->as<IntImm>()) return i->value;
    if (auto* v = e->as<VarRef>()) return env.at(v->var.get());
    if (auto* c = e->as<Cast>()) return Eval(c->operand);
    auto* b = e->as<Binary>();
    TMC_CHECK(b, "unsupported expression " + Print(e));
    int64_t x = Eval(b->lhs), y = Eval(b->rhs);
    switch (b->op) {
      case BinaryOp::Add: return x + y;
      case BinaryOp::Sub: return x - y;
      case BinaryOp::Mul: return x * y;
      case BinaryOp::Div: return x / y;
      case BinaryOp::Mod: return x % y;
      case BinaryOp::Lt: return x < y;
      case BinaryOp::And: return x && y;
      default: TMC_CHECK(false, "unsupported operator");
    }
  }

  void Run(const Stmt& s) {
    if (!s) return;
    if (auto* q = s->as<Seq>()) {
      for (const Stmt& st : q->stmts) Run(st);
    } else if (auto* l = s->as<LetStmt>()) {
      env[l->var.get()] = Eval(l->value);
    } else if (auto* a = s->as<Assign>()) {
      env[a->var.get()] = Eval(a->value);
    } else if (auto* f = s->as<For>()) {
      for (int64_t i = Eval(f->begin); i < Eval(f->end); i += Eval(f->step)) {
        env[f->var.get()] = i;
        Run(f->body);
      }
    } else if (auto* c = s->as<IfStmt>()) {
      Run(Eval(c->cond) ? c->then_body : c->else_body);
    } else if (auto* st = s->as<Store>()) {
      std::vector<int64_t> idx;
      for (const Expr& e : st->indices) idx.push_back(Eval(e));
      stores.push_back(idx);
    } else {
      TMC_CHECK(false, "unsupported statement");
    }
  }
};

// for (v...) in m on w { out[v...] = 0 } for a worker variable w.
struct MappingLoop {
  Function fn;
  VarPtr worker;

  explicit MappingLoop(const TaskMapping& m) {
    worker = NewVar(fn, "w", ScalarKind::I32);
    fn.params.push_back(Param{nullptr, worker, false});
    auto out = std::make_shared<Buffer>();
    out->name = "out";
    out->elem = ScalarKind::I32;
    for (int64_t d : m.Shape()) out->shape.push_back(I(d));
    fn.params.push_back(Param{out, nullptr, false});
    std::vector<VarPtr> vars;
    std::vector<Expr> idx;
    for (int d = 0; d < m.Rank(); ++d) {
      vars.push_back(NewVar(fn, "v" + std::to_string(d), ScalarKind::I32));
      idx.push_back(VarRef::Make(vars.back()));
    }
    fn.body = ForMapping::Make(vars, m, VarRef::Make(worker), Store::Make(out, idx, I(0)));
    fn.block = {static_cast<int64_t>(m.Workers())};
  }
};

TEST(LowerTaskMappings, RandomMappingsEnumerateTheirTasks) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 150; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 3);
    int n = 1 + static_cast<int>(rng() % 3);
    TaskMapping m;
    for (int k = 0; k < n; ++k) {
      std::vector<int64_t> dims;
      for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<int64_t>(rng() % 3));
      TaskMapping p = TaskMapping::Primitive(static_cast<MappingAtom::Kind>(rng() % 4), dims);
      m = k == 0 ? p : m.Compose(p);
    }
    for (bool optimize : {false, true}) {
      MappingLoop loop(m);
      PassContext ctx;
      LowerTaskMappings(loop.fn, ctx);
      if (optimize) {
        Unroll(loop.fn, ctx);
        Simplify(loop.fn, ctx);
      }
      // One worker past the end checks the guard.
      for (int64_t w = 0; w <= m.Workers(); ++w) {
        Interp interp;
        interp.env[loop.worker.get()] = w;
        interp.Run(loop.fn.body);
        EXPECT_EQ(interp.stores, m.TasksOf(w)) << m.ToString() << " worker " << w << "\n" << Print(loop.fn);
      }
    }
  }
}

// Nested unrolled loops become one straight line whose stores are the
// loops' (lets renamed per copy, a mutable one's assignments with it); a
// loop bounded by an enclosing counter stays a loop, one per copy; and
// statements shared by a copied body and the code after the loops are
// left as they are there (bindings made in a copy end with it).
TEST(Unroll, CopiesDoWhatTheLoopsDid) {
  Function fn;
  VarPtr x = NewVar(fn, "x", ScalarKind::I32);
  fn.params.push_back(Param{nullptr, x, false});
  auto out = std::make_shared<Buffer>();
  out->name = "out";
  out->elem = ScalarKind::I32;
  out->shape = {I(1000)};
  fn.params.push_back(Param{out, nullptr, false});
  auto ref = [](const VarPtr& v) { return Expr(VarRef::Make(v)); };
  auto add = [](Expr a, Expr b) { return Expr(Binary::Make(BinaryOp::Add, std::move(a), std::move(b))); };
  auto mul = [](Expr a, Expr b) { return Expr(Binary::Make(BinaryOp::Mul, std::move(a), std::move(b))); };
  VarPtr t = NewVar(fn, "t", ScalarKind::I32);
  Stmt let_t = LetStmt::Make(t, add(ref(x), I(1)));
  Stmt store_t = Store::Make(out, {ref(t)}, I(0));
  VarPtr i = NewVar(fn, "i", ScalarKind::I32), j = NewVar(fn, "j", ScalarKind::I32);
  VarPtr k = NewVar(fn, "k", ScalarKind::I32), a = NewVar(fn, "a", ScalarKind::I32);
  VarPtr b = NewVar(fn, "b", ScalarKind::I32), m = NewVar(fn, "m", ScalarKind::I32, /*is_mutable=*/true);
  Stmt inner = For::Make(j, I(0), I(2), I(1), true,
                         Seq::Make({LetStmt::Make(b, add(ref(a), ref(j))), Store::Make(out, {ref(b)}, I(0)),
                                    LetStmt::Make(m, mul(ref(j), I(100))), Assign::Make(m, add(ref(m), ref(b))),
                                    Store::Make(out, {ref(m)}, I(0)), let_t, store_t}));
  Stmt triangle = For::Make(k, I(0), ref(i), I(1), true, Store::Make(out, {add(I(500), ref(k))}, I(0)));
  Stmt outer = For::Make(i, I(0), I(3), I(1), true,
                         Seq::Make({LetStmt::Make(a, mul(ref(i), I(10))), inner, triangle}));
  fn.body = Seq::Make({outer, let_t, store_t});
  Interp before;
  before.env[x.get()] = 5;
  before.Run(fn.body);

  PassContext ctx;
  Unroll(fn, ctx);
  Interp after;
  after.env[x.get()] = 5;
  after.Run(fn.body);
  EXPECT_EQ(after.stores, before.stores) << Print(fn);
  const auto& top = fn.body->as<Seq>()->stmts;  // Seq::Make flattens the copies into it
  ASSERT_GE(top.size(), 3u);
  EXPECT_EQ(top[top.size() - 2], let_t);
  EXPECT_EQ(top.back(), store_t);
  std::string text = Print(fn.body);
  EXPECT_EQ(text.find("for i"), std::string::npos) << text;
  EXPECT_EQ(text.find("for j"), std::string::npos) << text;
  size_t loops = 0;
  for (size_t at = text.find("for k in [0, "); at != std::string::npos; at = text.find("for k in [0, ", at + 1)) ++loops;
  EXPECT_EQ(loops, 3u) << text;
  EXPECT_NE(text.find("for k in [0, 2) unroll"), std::string::npos) << text;
}

TEST(LowerTaskMappings, SpatialTimesRepeatIsDivModAndLoops) {
  MappingLoop loop(TaskMapping::Primitive(MappingAtom::Kind::Spatial, {4, 8})
                       .Compose(TaskMapping::Primitive(MappingAtom::Kind::Repeat, {2, 2})));
  PassContext ctx;
  LowerTaskMappings(loop.fn, ctx);
  std::string text = Print(loop.fn.body);
  EXPECT_NE(text.find("let v0: i32 = (((w / 8) * 2) + r0)"), std::string::npos) << text;
  EXPECT_NE(text.find("let v1: i32 = (((w % 8) * 2) + r1)"), std::string::npos) << text;
  EXPECT_NE(text.find("for r0 in [0, 2) unroll"), std::string::npos) << text;
  EXPECT_NE(text.find("if (w < 32)"), std::string::npos) << text;
}

TEST(Simplify, FoldsAndWraps) {
  EXPECT_EQ(Print(SimplifyExpr(Binary::Make(BinaryOp::Add, I(2), Binary::Make(BinaryOp::Mul, I(3), I(4))))), "14");
  Expr big = IntImm::Make(ScalarKind::I32, INT32_MAX);
  EXPECT_EQ(Print(SimplifyExpr(Binary::Make(BinaryOp::Add, big, I(1)))), "-2147483648");
  Expr u8 = IntImm::Make(ScalarKind::U8, 250);
  EXPECT_EQ(Print(SimplifyExpr(Binary::Make(BinaryOp::Add, u8, IntImm::Make(ScalarKind::U8, 10)))), "4u8");
  EXPECT_EQ(Print(SimplifyExpr(Binary::Make(BinaryOp::Div, I(-7), I(2)))), "-3");
  EXPECT_EQ(Print(SimplifyExpr(Binary::Make(BinaryOp::Mod, I(-7), I(2)))), "-1");
}

TEST(Simplify, IdentitiesKeepVariables) {
  Function fn;
  VarPtr x = NewVar(fn, "x", ScalarKind::I32);
  Expr vx = VarRef::Make(x);
  EXPECT_EQ(SimplifyExpr(Binary::Make(BinaryOp::Add, vx, I(0))), vx);
  EXPECT_EQ(SimplifyExpr(Binary::Make(BinaryOp::Mul, I(1), vx)), vx);
  EXPECT_EQ(Print(SimplifyExpr(Binary::Make(BinaryOp::Mul, vx, I(0)))), "0");
  EXPECT_EQ(SimplifyExpr(Binary::Make(BinaryOp::Div, vx, I(1))), vx);
  // x / 4 is not 0 without a range for x.
  EXPECT_EQ(Print(SimplifyExpr(Binary::Make(BinaryOp::Div, vx, I(4)))), "(x / 4)");
}

TEST(Simplify, UsesThreadRanges) {
  Function fn;
  fn.block = {32};
  Expr tid = Call::Make(ScalarKind::I32, Intrinsic::ThreadIdxX, {});
  VarPtr t = NewVar(fn, "t", ScalarKind::I32);
  auto out = std::make_shared<Buffer>();
  out->name = "out";
  out->elem = ScalarKind::I32;
  out->shape = {I(64)};
  fn.params.push_back(Param{out, nullptr, false});
  Expr vt = VarRef::Make(t);
  fn.body = Seq::Make({LetStmt::Make(t, tid),
                       IfStmt::Make(Binary::Make(BinaryOp::Lt, vt, I(32)),
                                    Store::Make(out, {Binary::Make(BinaryOp::Mod, vt, I(32))},
                                                Binary::Make(BinaryOp::Div, vt, I(32))))});
  PassContext ctx;
  Simplify(fn, ctx);
  EXPECT_EQ(Print(fn.body), "let t: i32 = threadIdx.x\nout[t] = 0\n");
}

TEST(LinearForm, DifferencesThroughLets) {
  Function fn;
  Expr tid = Call::Make(ScalarKind::I32, Intrinsic::ThreadIdxX, {});
  VarPtr w1 = NewVar(fn, "w", ScalarKind::I32), w2 = NewVar(fn, "w", ScalarKind::I32);
  VarPtr i = NewVar(fn, "i", ScalarKind::I32), r = NewVar(fn, "r", ScalarKind::I32);
  auto div4 = [](const VarPtr& v) { return Binary::Make(BinaryOp::Div, VarRef::Make(v), I(4)); };
  LetValues lets = {{w1.get(), Binary::Make(BinaryOp::Mod, tid, I(32))},
                    {w2.get(), Binary::Make(BinaryOp::Mod, tid, I(32))},
                    {i.get(), Binary::Make(BinaryOp::Add, I(8), div4(w1))},
                    {r.get(), div4(w2)}};
  EXPECT_EQ(ConstantDifference(VarRef::Make(i), VarRef::Make(r), lets), 8);
  EXPECT_EQ(ConstantDifference(VarRef::Make(r), VarRef::Make(i), lets), -8);
  // Without the lets' values, w1 and w2 are different variables.
  EXPECT_EQ(ConstantDifference(VarRef::Make(i), VarRef::Make(r), {}), std::nullopt);
  // 2x - (x + x), and 3 (x - 1) - 3x.
  Expr x = VarRef::Make(w1);
  EXPECT_EQ(ConstantDifference(Binary::Make(BinaryOp::Mul, I(2), x), Binary::Make(BinaryOp::Add, x, x), {}), 0);
  EXPECT_EQ(ConstantDifference(Binary::Make(BinaryOp::Mul, Binary::Make(BinaryOp::Sub, x, I(1)), I(3)),
                               Binary::Make(BinaryOp::Mul, x, I(3)), {}),
            -3);
}

TEST(LinearForm, WrapsInTheType) {
  Function fn;
  Expr x = VarRef::Make(NewVar(fn, "x", ScalarKind::I32));
  // x + 2^31 and x - 2^31 are the same i32.
  Expr min = IntImm::Make(ScalarKind::I32, INT32_MIN);
  EXPECT_EQ(ConstantDifference(Binary::Make(BinaryOp::Add, x, min), Binary::Make(BinaryOp::Sub, x, min), {}), 0);
  Expr y = VarRef::Make(NewVar(fn, "y", ScalarKind::U8));
  auto u8 = [](int64_t v) { return IntImm::Make(ScalarKind::U8, v); };
  EXPECT_EQ(ConstantDifference(Binary::Make(BinaryOp::Add, y, u8(4)), Binary::Make(BinaryOp::Add, y, u8(250)), {}), 10);
}

TEST(LinearForm, UnknownValuesAreNotCompared) {
  Function fn;
  VarPtr k = NewVar(fn, "k", ScalarKind::I32, /*is_mutable=*/true);
  Expr vk = VarRef::Make(k);
  EXPECT_EQ(ConstantDifference(vk, vk, {}), std::nullopt);  // a mutable variable: no atom
  auto buf = std::make_shared<Buffer>();
  buf->name = "X";
  buf->elem = ScalarKind::I32;
  buf->shape = {I(4)};
  Expr load = Load::Make(buf, {I(0)});
  EXPECT_EQ(ConstantDifference(load, load, {}), std::nullopt);
  Expr shfl = Call::Make(ScalarKind::I32, Intrinsic::ShflXor, {I(3), I(1)});
  EXPECT_EQ(ConstantDifference(shfl, shfl, {}), std::nullopt);  // another lane's value
  // Different types are not compared.
  Expr x = VarRef::Make(NewVar(fn, "x", ScalarKind::I64));
  EXPECT_EQ(ConstantDifference(x, Cast::Make(ScalarKind::I32, x), {}), std::nullopt);
}

TEST(FlattenBuffers, Layouts) {
  Function fn;
  VarPtr i = NewVar(fn, "i", ScalarKind::I32), j = NewVar(fn, "j", ScalarKind::I32);
  Buffer b;
  b.name = "b";
  b.scope = MemScope::Shared;
  b.shape = {I(8), I(16)};
  std::vector<Expr> idx = {VarRef::Make(i), VarRef::Make(j)};
  EXPECT_EQ(Print(FlatOffset(b, idx)), "((i * 16) + j)");
  b.layout = LayoutKind::ColMajor;
  EXPECT_EQ(Print(FlatOffset(b, idx)), "((j * 8) + i)");
  b.layout = LayoutKind::Strided;
  b.layout_args = {I(1), I(8)};
  EXPECT_EQ(Print(FlatOffset(b, idx)), "((0 + (i * 1)) + (j * 8))");
  b.layout = LayoutKind::Swizzle;
  b.layout_args = {I(3), I(0), I(4)};
  EXPECT_EQ(Print(FlatOffset(b, idx)), "(((i * 16) + j) ^ ((((i * 16) + j) & 112) >> 4))");
  b.scope = MemScope::Global;
  b.layout = LayoutKind::RowMajor;
  EXPECT_EQ(Print(FlatOffset(b, idx)), "((i64(i) * 16i64) + i64(j))");
}

}  // namespace
}  // namespace tmc::ir
