// Each statement of the op (`let` intermediates, then `out`) becomes one
// host function that fills elements [begin, end) of its tensor:
//
//   void stmt_k(double* const* tensors, int64_t begin, int64_t end,
//               int64_t* flops, int32_t* fail)
//
// and the elements are split among threads. Everything is f64 and follows
// ir::EvaluateOp step by step: shape symbols and scalar parameters are
// constants (the code is compiled for one run's shapes), reductions run in
// the oracle's order, math functions call the same libm entry points
// (marked nobuiltin, so LLVM does not rewrite them), and no fast-math
// flags are set; so the results are the oracle's bit for bit. A failure at
// run time (an index out of range) only sets `*fail`: the oracle then
// runs to say what went wrong.
#include "codegen/cpu/op_reference_jit.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <thread>

#include "codegen/cpu/cpu_jit.h"
#include "support/float_rounding.h"

namespace tmc::codegen {
namespace {

using StatementFn = void (*)(double* const* tensors, int64_t begin, int64_t end, int64_t* flops, int32_t* fail);

struct Unsupported {
  std::string what;
};

struct TensorInfo {
  size_t slot;
  std::vector<int64_t> shape;
};

class OpCompiler {
 public:
  OpCompiler(llvm::Module& mod, const std::map<std::string, double>& symbols)
      : mod_(mod), ctx_(mod.getContext()), b_(ctx_), symbols_(symbols) {}

  void AddTensor(const std::string& name, std::vector<int64_t> shape) {
    tensors_[name] = TensorInfo{slots_++, std::move(shape)};
  }

  /// Emits the function that fills tensor `name` from `st`.
  void Statement(const std::string& fn_name, const ast::OpStmt& st, const std::string& target) {
    auto* f64p = b_.getPtrTy();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {f64p, b_.getInt64Ty(), b_.getInt64Ty(), f64p, f64p}, false);
    f_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, fn_name, mod_);
    tensor_args_ = f_->getArg(0);
    fail_ = nullptr;
    entry_ = llvm::BasicBlock::Create(ctx_, "entry", f_);
    b_.SetInsertPoint(entry_);
    flops_ = Alloca(b_.getInt64Ty());
    b_.CreateStore(b_.getInt64(0), flops_);
    // Elements [arg 1, arg 2) of the target, row-major.
    const TensorInfo& out = tensors_.at(target);
    CountedLoop("element", f_->getArg(1), f_->getArg(2), [&](llvm::Value* i) {
      // The element's indices, bound to the statement's names.
      std::vector<llvm::Value*> idx(out.shape.size());
      llvm::Value* rest = i;
      for (size_t k = out.shape.size(); k-- > 0;) {
        llvm::Value* extent = b_.getInt64(static_cast<uint64_t>(out.shape[k]));
        idx[k] = b_.CreateSRem(rest, extent);
        rest = b_.CreateSDiv(rest, extent);
      }
      locals_.emplace_back();
      for (size_t k = 0; k < st.indices.size() && k < idx.size(); ++k)
        locals_.back()[st.indices[k].name] = b_.CreateSIToFP(idx[k], F64());
      llvm::Value* v = Eval(st.value);
      locals_.pop_back();
      b_.CreateStore(v, b_.CreateGEP(F64(), TensorBase(out.slot), i));
    });
    llvm::Value* total = f_->getArg(3);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), total), b_.CreateLoad(b_.getInt64Ty(), flops_)), total);
    b_.CreateRetVoid();
  }

 private:
  llvm::Type* F64() { return b_.getDoubleTy(); }
  llvm::Value* F(double v) { return llvm::ConstantFP::get(F64(), v); }
  llvm::Value* Bool(llvm::Value* i1) { return b_.CreateUIToFP(i1, F64()); }
  llvm::Value* NonZero(llvm::Value* v) { return b_.CreateFCmpUNE(v, F(0)); }  // C's `v != 0`
  llvm::Value* ToInt(llvm::Value* v) {
    // static_cast<int64_t>(double), without LLVM's poison for large values.
    return b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b_.getInt64Ty(), F64()}, {v});
  }

  llvm::AllocaInst* Alloca(llvm::Type* t) {
    llvm::IRBuilder<> eb(entry_, entry_->begin());
    return eb.CreateAlloca(t);
  }

  llvm::Value* TensorBase(size_t slot) {
    return b_.CreateLoad(b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), tensor_args_, slot));
  }

  void CountFlop() { b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), flops_), b_.getInt64(1)), flops_); }

  // Sets *fail and returns: the oracle will say what happened.
  llvm::BasicBlock* FailBlock() {
    if (fail_) return fail_;
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    fail_ = llvm::BasicBlock::Create(ctx_, "fail", f_);
    b_.SetInsertPoint(fail_);
    b_.CreateStore(b_.getInt32(1), f_->getArg(4));
    b_.CreateRetVoid();
    return fail_;
  }

  llvm::Value* Name(const std::string& n) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (auto v = it->find(n); v != it->end()) return v->second;
    if (auto s = symbols_.find(n); s != symbols_.end()) return F(s->second);
    if (auto t = tensors_.find(n); t != tensors_.end() && t->second.shape.empty())
      return b_.CreateLoad(F64(), TensorBase(t->second.slot));
    if (n == "inf") return F(INFINITY);
    throw Unsupported{"unknown name '" + n + "'"};
  }

  llvm::Value* Eval(const ast::Expr* e) {
    switch (e->kind) {
      case ast::ExprKind::IntLit: return F(static_cast<double>(static_cast<const ast::IntLit*>(e)->value));
      case ast::ExprKind::FloatLit: return F(static_cast<const ast::FloatLit*>(e)->value);
      case ast::ExprKind::BoolLit: return F(static_cast<const ast::BoolLit*>(e)->value ? 1 : 0);
      case ast::ExprKind::Name: return Name(static_cast<const ast::NameExpr*>(e)->name);
      case ast::ExprKind::Index: return Index(static_cast<const ast::IndexExpr*>(e));
      case ast::ExprKind::Unary: {
        auto* u = static_cast<const ast::UnaryExpr*>(e);
        llvm::Value* v = Eval(u->operand);
        switch (u->op) {
          case ast::UnaryOp::Neg:
            if (e->type && e->type->IsInteger()) return ToIntegerType(b_.CreateFNeg(v), e->type->scalar);
            return b_.CreateFNeg(v);
          case ast::UnaryOp::Plus: return v;
          case ast::UnaryOp::Not: return Bool(b_.CreateFCmpOEQ(v, F(0)));
          case ast::UnaryOp::BitNot:
            if (e->type && e->type->IsInteger()) return ToIntegerType(b_.CreateFSub(b_.CreateFNeg(v), F(1)), e->type->scalar);
            return b_.CreateSIToFP(b_.CreateNot(ToInt(v)), F64());
        }
        break;
      }
      case ast::ExprKind::Binary: return Binary(static_cast<const ast::BinaryExpr*>(e));
      case ast::ExprKind::Ternary: {
        auto* t = static_cast<const ast::TernaryExpr*>(e);
        return Branch(NonZero(Eval(t->cond)), [&] { return Eval(t->then_value); }, [&] { return Eval(t->else_value); });
      }
      case ast::ExprKind::Cast: {
        auto* c = static_cast<const ast::CastExpr*>(e);
        llvm::Value* v = Eval(c->operand);
        if (c->to == ScalarKind::Bool) return Bool(NonZero(v));
        if (IsInteger(c->to)) return ToIntegerType(v, c->to);
        if (c->to == ScalarKind::F64) return v;
        // f32 inline (a matmul's reference converts every product's
        // operands): fptrunc rounds to nearest even, and past the largest
        // float to infinity, as the oracle does.
        if (c->to == ScalarKind::F32) return b_.CreateFPExt(b_.CreateFPTrunc(v, b_.getFloatTy()), F64());
        return ToFloatType(v, c->to);
      }
      case ast::ExprKind::Call: return Call(static_cast<const ast::CallExpr*>(e));
      case ast::ExprKind::Reduce: return Reduce(static_cast<const ast::ReduceExpr*>(e));
      case ast::ExprKind::Member: break;
    }
    throw Unsupported{"an expression the compiled reference does not translate"};
  }

  // `cond ? a() : b()`, evaluating only the chosen side.
  template <typename A, typename B>
  llvm::Value* Branch(llvm::Value* cond, A&& a, B&& b) {
    auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", f_);
    auto* else_bb = llvm::BasicBlock::Create(ctx_, "else", f_);
    auto* join = llvm::BasicBlock::Create(ctx_, "join", f_);
    b_.CreateCondBr(cond, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    llvm::Value* x = a();
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(else_bb);
    llvm::Value* y = b();
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode* phi = b_.CreatePHI(F64(), 2);
    phi->addIncoming(x, then_end);
    phi->addIncoming(y, else_end);
    return phi;
  }

  // The oracle's own conversion (ir::ConvertToInteger), called, so that the
  // wrap-around is the same in every corner.
  llvm::Value* ToIntegerType(llvm::Value* v, ScalarKind to) {
    llvm::FunctionCallee fn = mod_.getOrInsertFunction(
        "tmc_op_reference_to_integer", llvm::FunctionType::get(F64(), {F64(), b_.getInt32Ty()}, false));
    return b_.CreateCall(fn, {v, b_.getInt32(static_cast<uint32_t>(to))});
  }

  // A narrower float's value (the oracle's RoundedToFloatType), called for
  // the same reason.
  llvm::Value* ToFloatType(llvm::Value* v, ScalarKind to) {
    llvm::FunctionCallee fn = mod_.getOrInsertFunction(
        "tmc_op_reference_to_float", llvm::FunctionType::get(F64(), {F64(), b_.getInt32Ty()}, false));
    return b_.CreateCall(fn, {v, b_.getInt32(static_cast<uint32_t>(to))});
  }

  llvm::Value* Intrinsic(llvm::Intrinsic::ID id, llvm::Value* v) { return b_.CreateUnaryIntrinsic(id, v); }

  llvm::Value* Index(const ast::IndexExpr* i) {
    auto* base = ast::dyn_cast<ast::NameExpr>(i->base);
    auto t = base ? tensors_.find(base->name) : tensors_.end();
    if (t == tensors_.end()) throw Unsupported{"indexing a non-tensor"};
    const TensorInfo& info = t->second;
    if (i->indices.size() != info.shape.size()) throw Unsupported{"rank mismatch"};
    llvm::Value* off = b_.getInt64(0);
    for (size_t k = 0; k < i->indices.size(); ++k) {
      llvm::Value* v = ToInt(Eval(i->indices[k]));
      llvm::Value* extent = b_.getInt64(static_cast<uint64_t>(info.shape[k]));
      auto* ok = llvm::BasicBlock::Create(ctx_, "in_range", f_);
      b_.CreateCondBr(b_.CreateICmpULT(v, extent), ok, FailBlock());
      b_.SetInsertPoint(ok);
      off = b_.CreateAdd(b_.CreateMul(off, extent), v);
    }
    return b_.CreateLoad(F64(), b_.CreateGEP(F64(), TensorBase(info.slot), off));
  }

  llvm::Value* Binary(const ast::BinaryExpr* e) {
    if (e->op == ast::BinaryOp::And || e->op == ast::BinaryOp::Or) {
      bool is_and = e->op == ast::BinaryOp::And;
      llvm::Value* lhs = NonZero(Eval(e->lhs));
      auto rhs = [&] { return Bool(NonZero(Eval(e->rhs))); };
      auto short_cut = [&] { return F(is_and ? 0 : 1); };
      return is_and ? Branch(lhs, rhs, short_cut) : Branch(lhs, short_cut, rhs);
    }
    llvm::Value* x = Eval(e->lhs);
    llvm::Value* y = Eval(e->rhs);
    bool integer = e->type && e->type->IsInteger();
    using Op = ast::BinaryOp;
    if (!integer && (e->op == Op::Add || e->op == Op::Sub || e->op == Op::Mul || e->op == Op::Div)) CountFlop();
    llvm::Value* r = BinaryValue(e->op, x, y, integer);
    // Integer arithmetic wraps in the width of its type, as the oracle does.
    bool comparison = e->op == Op::Lt || e->op == Op::Le || e->op == Op::Gt || e->op == Op::Ge || e->op == Op::Eq ||
                      e->op == Op::Ne;
    return integer && !comparison ? ToIntegerType(r, e->type->scalar) : r;
  }

  llvm::Value* BinaryValue(ast::BinaryOp op, llvm::Value* x, llvm::Value* y, bool integer) {
    using Op = ast::BinaryOp;
    // Integer division by zero: the oracle names the expression.
    if (integer && (op == Op::Div || op == Op::Mod)) {
      llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "nonzero", f_);
      b_.CreateCondBr(b_.CreateFCmpOEQ(y, F(0)), FailBlock(), ok);
      b_.SetInsertPoint(ok);
    }
    auto bits = [&](llvm::Value* r) { return b_.CreateSIToFP(r, F64()); };
    switch (op) {
      case Op::Add: return b_.CreateFAdd(x, y);
      case Op::Sub: return b_.CreateFSub(x, y);
      case Op::Mul: return b_.CreateFMul(x, y);
      case Op::Div: return integer ? Intrinsic(llvm::Intrinsic::trunc, b_.CreateFDiv(x, y)) : b_.CreateFDiv(x, y);
      case Op::Mod: return b_.CreateFRem(x, y);  // fmod
      case Op::Lt: return Bool(b_.CreateFCmpOLT(x, y));
      case Op::Le: return Bool(b_.CreateFCmpOLE(x, y));
      case Op::Gt: return Bool(b_.CreateFCmpOGT(x, y));
      case Op::Ge: return Bool(b_.CreateFCmpOGE(x, y));
      case Op::Eq: return Bool(b_.CreateFCmpOEQ(x, y));
      case Op::Ne: return Bool(b_.CreateFCmpUNE(x, y));
      case Op::Shl: return bits(b_.CreateShl(ToInt(x), ToInt(y)));
      case Op::Shr: return bits(b_.CreateAShr(ToInt(x), ToInt(y)));
      case Op::BitAnd: return bits(b_.CreateAnd(ToInt(x), ToInt(y)));
      case Op::BitXor: return bits(b_.CreateXor(ToInt(x), ToInt(y)));
      case Op::BitOr: return bits(b_.CreateOr(ToInt(x), ToInt(y)));
      default: break;
    }
    return F(0);
  }

  // A libm function, called as the oracle calls it.
  llvm::Value* Libm(const char* name, std::vector<llvm::Value*> args) {
    std::vector<llvm::Type*> types(args.size(), F64());
    llvm::FunctionCallee fn = mod_.getOrInsertFunction(name, llvm::FunctionType::get(F64(), types, false));
    llvm::CallInst* call = b_.CreateCall(fn, args);
    call->addFnAttr(llvm::Attribute::NoBuiltin);
    return call;
  }

  // std::min / std::max exactly (NaN operands included).
  llvm::Value* Min(llvm::Value* a, llvm::Value* b) { return b_.CreateSelect(b_.CreateFCmpOLT(b, a), b, a); }
  llvm::Value* Max(llvm::Value* a, llvm::Value* b) { return b_.CreateSelect(b_.CreateFCmpOLT(a, b), b, a); }

  // A function called from the op, inlined when it is float lets and a
  // return; anything else goes to the oracle (ir::EvaluateOp).
  llvm::Value* InlineFunc(const ast::FuncDecl& f, const std::vector<llvm::Value*>& args) {
    if (!f.result || !IsFloat(f.result->elem)) throw Unsupported{"a function with a non-float result"};
    std::map<std::string, llvm::Value*> scope;
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (!IsFloat(f.params[i].type.elem)) throw Unsupported{"a function with a non-float parameter"};
      scope[f.params[i].name.name] = args[i];
    }
    std::vector<std::map<std::string, llvm::Value*>> caller;
    caller.swap(locals_);
    locals_.push_back(std::move(scope));
    for (const ast::Stmt* st : f.body->stmts) {
      if (auto* l = st->kind == ast::StmtKind::Let ? static_cast<const ast::LetStmt*>(st) : nullptr) {
        if ((l->type && !IsFloat(l->type->elem)) || !l->init->type || !l->init->type->IsFloat())
          throw Unsupported{"a non-float let in a function"};
        locals_.back()[l->name.name] = Eval(l->init);
        continue;
      }
      if (st->kind != ast::StmtKind::Return) break;
      llvm::Value* r = Eval(static_cast<const ast::ReturnStmt*>(st)->value);
      locals_.swap(caller);
      return r;
    }
    throw Unsupported{"a function with control flow"};
  }

  llvm::Value* Call(const ast::CallExpr* c) {
    const std::string& n = c->callee.name;
    std::vector<llvm::Value*> a;
    for (const ast::Expr* x : c->args) a.push_back(Eval(x));
    if (c->func) return InlineFunc(*c->func, a);
    auto arity = [&](size_t k) {
      if (a.size() != k) throw Unsupported{"'" + n + "' with " + std::to_string(a.size()) + " arguments"};
    };
    static const std::map<std::string, const char*> kUnaryLibm = {
        {"exp", "exp"}, {"exp2", "exp2"}, {"log", "log"}, {"log2", "log2"}, {"tanh", "tanh"},
        {"erf", "erf"}, {"sin", "sin"},   {"cos", "cos"}};
    llvm::Value* r = nullptr;
    if (auto it = kUnaryLibm.find(n); it != kUnaryLibm.end()) {
      arity(1);
      r = Libm(it->second, {a[0]});
    } else if (n == "sqrt") {
      arity(1);
      r = Intrinsic(llvm::Intrinsic::sqrt, a[0]);
    } else if (n == "rsqrt") {
      arity(1);
      r = b_.CreateFDiv(F(1), Intrinsic(llvm::Intrinsic::sqrt, a[0]));
    } else if (n == "floor" || n == "ceil" || n == "abs") {
      arity(1);
      r = Intrinsic(n == "floor" ? llvm::Intrinsic::floor : n == "ceil" ? llvm::Intrinsic::ceil : llvm::Intrinsic::fabs, a[0]);
    } else if (n == "sigmoid") {
      arity(1);
      r = b_.CreateFDiv(F(1), b_.CreateFAdd(F(1), Libm("exp", {b_.CreateFNeg(a[0])})));
    } else if (n == "min" || n == "max") {
      arity(2);
      r = n == "min" ? Min(a[0], a[1]) : Max(a[0], a[1]);
    } else if (n == "fma") {
      arity(3);
      r = b_.CreateFAdd(b_.CreateFMul(a[0], a[1]), a[2]);  // not fused, as the oracle computes it
    } else if (n == "pow") {
      arity(2);
      r = Libm("pow", {a[0], a[1]});
    } else if (n == "select") {
      arity(3);
      return b_.CreateSelect(NonZero(a[0]), a[1], a[2]);
    } else if (n == "cdiv") {
      arity(2);
      return Intrinsic(llvm::Intrinsic::ceil, b_.CreateFDiv(a[0], a[1]));
    } else {
      throw Unsupported{"'" + n + "' cannot be evaluated in an op"};
    }
    CountFlop();
    return r;
  }

  llvm::Value* Reduce(const ast::ReduceExpr* r) {
    const std::string& op = r->reducer.name;
    double init = op == "sum" ? 0.0 : op == "prod" ? 1.0 : op == "max" ? -INFINITY : INFINITY;
    llvm::AllocaInst* acc = Alloca(F64());
    b_.CreateStore(F(init), acc);
    std::vector<llvm::Value*> extents;
    for (const auto& v : r->vars) extents.push_back(ToInt(Eval(v.extent)));
    // Nested loops, the first variable outermost (the oracle's order).
    auto* after = llvm::BasicBlock::Create(ctx_, "reduced", f_);
    locals_.emplace_back();
    Loops(r, extents, 0, acc, op);
    locals_.pop_back();
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
    return b_.CreateLoad(F64(), acc);
  }

  void Loops(const ast::ReduceExpr* r, const std::vector<llvm::Value*>& extents, size_t k, llvm::AllocaInst* acc,
             const std::string& op) {
    if (k == extents.size()) {
      llvm::Value* v = Eval(r->body);
      CountFlop();
      llvm::Value* a = b_.CreateLoad(F64(), acc);
      llvm::Value* next = op == "sum" ? b_.CreateFAdd(a, v) : op == "prod" ? b_.CreateFMul(a, v)
                          : op == "max" ? Max(a, v) : Min(a, v);
      if ((op == "sum" || op == "prod") && r->type && r->type->IsInteger()) next = ToIntegerType(next, r->type->scalar);
      b_.CreateStore(next, acc);
      return;
    }
    CountedLoop("reduce", b_.getInt64(0), extents[k], [&](llvm::Value* i) {
      locals_.back()[r->vars[k].name.name] = b_.CreateSIToFP(i, F64());
      Loops(r, extents, k + 1, acc, op);
    });
  }

  // for (i = begin; i < end; ++i) body(i), with the counter in an alloca
  // (mem2reg makes it a phi); leaves the builder after the loop.
  void CountedLoop(const char* name, llvm::Value* begin, llvm::Value* end,
                   const std::function<void(llvm::Value*)>& body) {
    llvm::AllocaInst* counter = Alloca(b_.getInt64Ty());
    b_.CreateStore(begin, counter);
    auto* head = llvm::BasicBlock::Create(ctx_, name, f_);
    auto* inside = llvm::BasicBlock::Create(ctx_, std::string(name) + "_body", f_);
    auto* exit = llvm::BasicBlock::Create(ctx_, std::string(name) + "_exit", f_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::Value* i = b_.CreateLoad(b_.getInt64Ty(), counter);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), inside, exit);
    b_.SetInsertPoint(inside);
    body(i);
    b_.CreateStore(b_.CreateAdd(i, b_.getInt64(1)), counter);
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
  }

  llvm::Module& mod_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const std::map<std::string, double>& symbols_;
  std::map<std::string, TensorInfo> tensors_;
  size_t slots_ = 0;
  std::vector<std::map<std::string, llvm::Value*>> locals_;  // index and reduction variables
  llvm::Function* f_ = nullptr;
  llvm::Value* tensor_args_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::BasicBlock* fail_ = nullptr;
  llvm::AllocaInst* flops_ = nullptr;
};

extern "C" double tmc_op_reference_to_integer(double v, int32_t to) {
  return ir::ConvertToInteger(v, static_cast<ScalarKind>(to));
}

extern "C" double tmc_op_reference_to_float(double v, int32_t to) {
  return RoundedToFloatType(static_cast<ScalarKind>(to), v);
}

// Runs fn over [0, size) in chunks on `threads` threads; false if any chunk failed.
bool RunParallel(StatementFn fn, double* const* tensors, int64_t size, int threads, int64_t* flops) {
  constexpr int64_t kChunk = 256;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> total_flops{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    int64_t local = 0;
    int32_t fail = 0;
    for (int64_t begin = next.fetch_add(kChunk); begin < size && !fail; begin = next.fetch_add(kChunk))
      fn(tensors, begin, std::min(size, begin + kChunk), &local, &fail);
    total_flops += local;
    if (fail) failed = true;
  };
  int n = static_cast<int>(std::min<int64_t>(threads, (size + kChunk - 1) / kChunk));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (flops) *flops += total_flops;
  return !failed;
}

}  // namespace

bool EvaluateOpCompiled(const ast::OpDecl& op, const std::vector<ir::HostTensor>& inputs,
                        std::vector<ir::HostTensor>* outs, std::string* error, int64_t* flops, int threads,
                        bool* compiled) {
  if (compiled) *compiled = false;
  const std::vector<ir::HostTensor> given = *outs;  // the results' shapes, if the caller gives them
  auto oracle = [&] {
    *outs = given;
    return ir::EvaluateOp(op, inputs, outs, error, flops);
  };
  std::vector<std::vector<int64_t>> shapes;
  std::map<std::string, double> symbols;
  if (!ir::OpStatementShapes(op, inputs, &shapes, &symbols, error, &given)) return oracle();
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  auto context = std::make_unique<llvm::LLVMContext>();
  auto mod = std::make_unique<llvm::Module>("op_reference", *context);
  OpCompiler compiler(*mod, symbols);
  size_t statements = 0;
  try {
    for (size_t i = 0; i < op.params.size(); ++i)
      compiler.AddTensor(op.params[i].name.name, op.params[i].type.is_tensor ? inputs[i].shape : std::vector<int64_t>{});
    for (const ast::OpStmt& st : op.body) {
      compiler.AddTensor(st.name.name, shapes[statements]);
      compiler.Statement("stmt" + std::to_string(statements), st, st.name.name);
      ++statements;
    }
  } catch (const Unsupported&) {
    return oracle();  // the oracle handles (or explains) what is not translated
  }
  std::string verify;
  llvm::raw_string_ostream os(verify);
  if (llvm::verifyModule(*mod, &os)) return oracle();
  std::unique_ptr<llvm::orc::LLJIT> jit = JitForHost(
      std::move(mod), std::move(context),
      {{"tmc_op_reference_to_integer", reinterpret_cast<void*>(&tmc_op_reference_to_integer)},
       {"tmc_op_reference_to_float", reinterpret_cast<void*>(&tmc_op_reference_to_float)}},
      error);
  if (!jit) return oracle();

  // Storage: the inputs (read only), then one tensor per statement.
  std::vector<std::vector<double>> results(statements);
  std::vector<double*> slots;
  for (const ir::HostTensor& t : inputs) slots.push_back(const_cast<double*>(t.values.data()));
  for (size_t s = 0; s < statements; ++s) {
    int64_t size = 1;
    for (int64_t d : shapes[s]) size *= d;
    results[s].assign(static_cast<size_t>(size), 0.0);
    slots.push_back(results[s].data());
  }
  if (flops) *flops = 0;
  for (size_t s = 0; s < statements; ++s) {
    auto sym = jit->lookup("stmt" + std::to_string(s));
    if (!sym) {
      llvm::consumeError(sym.takeError());
      return oracle();
    }
    if (!RunParallel(sym->toPtr<StatementFn>(), slots.data(), static_cast<int64_t>(results[s].size()), threads, flops))
      return oracle();  // an index out of range: the oracle names it
  }
  // The results, in the op's order, from the statements that define them.
  outs->assign(op.results.size(), ir::HostTensor{});
  for (size_t s = 0; s < statements; ++s) {
    if (op.body[s].is_let) continue;
    for (size_t r = 0; r < op.results.size(); ++r)
      if (op.results[r].name.name == op.body[s].name.name) {
        (*outs)[r].shape = shapes[s];
        (*outs)[r].values = std::move(results[s]);
      }
  }
  if (compiled) *compiled = true;
  return true;
}

}  // namespace tmc::codegen
