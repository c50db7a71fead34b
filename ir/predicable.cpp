#include "ir/predicable.h"

namespace tmc::ir {

namespace {

bool Constant(const Expr& x, const IsConstant& constant) {
  return AsConstInt(x).has_value() || (constant && constant(x));
}

// x computes without faults or side effects whatever its variables hold,
// but for reads of shared memory, which are predicated on the guard's
// condition like the stores.
bool Computable(const Expr& x, const IsConstant& constant) {
  switch (x->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::VarRef: return true;
    case ExprKind::Load: {
      // Registers at a constant element (a register array read out of range
      // is undefined in LLVM); shared memory only predicated (it may fault
      // out of range); global memory not (a predicated load would lose the
      // read-only cache path, ld.global.nc, that LLVM chooses).
      auto* l = x->as<Load>();
      if (l->buffer->scope == MemScope::Shared) {
        for (const Expr& i : l->indices)
          if (!Computable(i, constant)) return false;
        return true;
      }
      if (l->buffer->scope != MemScope::Register) return false;
      for (const Expr& i : l->indices)
        if (!Constant(i, constant)) return false;
      return true;
    }
    case ExprKind::Unary: return Computable(x->as<Unary>()->operand, constant);
    case ExprKind::Binary: {
      auto* b = x->as<Binary>();
      if ((b->op == BinaryOp::Div || b->op == BinaryOp::Mod) && IsInteger(b->type)) {
        // LLVM's integer division is undefined for a zero divisor (and
        // INT_MIN / -1): only constants that are neither.
        auto c = AsConstInt(b->rhs);
        if (!c || *c == 0 || *c == -1) return false;
      }
      return Computable(b->lhs, constant) && Computable(b->rhs, constant);
    }
    case ExprKind::Select: {
      auto* s = x->as<Select>();
      return Computable(s->cond, constant) && Computable(s->then_value, constant) &&
             Computable(s->else_value, constant);
    }
    case ExprKind::Cast: return Computable(x->as<Cast>()->operand, constant);
    case ExprKind::Call: {
      // Thread and block indices and math functions; not shuffles (every
      // lane taking part is their contract), atomics, device functions or
      // tensor-core operations.
      auto* c = x->as<Call>();
      if (c->intrinsic > Intrinsic::Pow) return false;
      for (const Expr& a : c->args)
        if (!Computable(a, constant)) return false;
      return true;
    }
  }
  return false;
}

// Counts the stores; false if anything is not a computable let or store.
bool Predicable(const Stmt& s, const IsConstant& constant, int* stores) {
  if (auto* q = s->as<Seq>()) {
    for (const Stmt& t : q->stmts)
      if (!Predicable(t, constant, stores)) return false;
    return true;
  }
  if (auto* l = s->as<LetStmt>()) return !l->var->is_mutable && l->value && Computable(l->value, constant);
  if (auto* st = s->as<Store>()) {
    ++*stores;
    // A register store becomes a select of the old and the new value: at
    // a constant element, like a register read.
    bool registers = st->buffer->scope == MemScope::Register;
    for (const Expr& i : st->indices)
      if (registers ? !Constant(i, constant) : !Computable(i, constant)) return false;
    return Computable(st->value, constant);
  }
  return false;
}

}  // namespace

bool PredicableStores(const Stmt& body, const IsConstant& constant) {
  int stores = 0;
  return Predicable(body, constant, &stores) && stores > 0;
}

}  // namespace tmc::ir
