#include "ir/predicable.h"

namespace tmc::ir {

namespace {

bool Constant(const Expr& x, const IsConstant& constant) {
  return AsConstInt(x).has_value() || (constant && constant(x));
}

// A register element at constant indices (a register array read out of
// range is undefined in LLVM): literal indices must lie in their literal
// dimensions; others (counters of loops split-tails will unroll) are
// checked once they are literals. One index per dimension: flattening
// leaves a multi-dimensional array's shape as it was and gives its
// accesses one flat index, which says nothing about each dimension (the
// CPU executor's bounds check reports `r[0, 5]` of an f32[2, 4] even when
// the flat element exists).
bool ConstantRegisterElement(const Buffer& b, const std::vector<Expr>& indices, const IsConstant& constant) {
  if (indices.size() != b.shape.size()) return false;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (!Constant(indices[k], constant)) return false;
    auto i = AsConstInt(indices[k]);
    auto n = AsConstInt(b.shape[k]);
    if (i && (!n || *i < 0 || *i >= *n)) return false;
  }
  return true;
}

// x computes without faults or side effects whatever its variables hold,
// but for reads of shared memory where `shared_reads` allows them (they
// are predicated on the guard's condition like the stores).
bool Computable(const Expr& x, const IsConstant& constant, bool shared_reads) {
  auto computable = [&](const Expr& y) { return Computable(y, constant, shared_reads); };
  switch (x->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::VarRef: return true;
    case ExprKind::Load: {
      // Registers at a constant element; shared memory only predicated (it
      // may fault out of range); global memory not (a predicated load would
      // lose the read-only cache path, ld.global.nc, that LLVM chooses).
      auto* l = x->as<Load>();
      if (l->buffer->scope == MemScope::Shared) {
        if (!shared_reads) return false;
        for (const Expr& i : l->indices)
          if (!computable(i)) return false;
        return true;
      }
      if (l->buffer->scope != MemScope::Register) return false;
      return ConstantRegisterElement(*l->buffer, l->indices, constant);
    }
    case ExprKind::Unary: return computable(x->as<Unary>()->operand);
    case ExprKind::Binary: {
      auto* b = x->as<Binary>();
      if ((b->op == BinaryOp::Div || b->op == BinaryOp::Mod) && IsInteger(b->type)) {
        // LLVM's integer division is undefined for a zero divisor (and
        // INT_MIN / -1): only constants that are neither.
        auto c = AsConstInt(b->rhs);
        if (!c || *c == 0 || *c == -1) return false;
      }
      return computable(b->lhs) && computable(b->rhs);
    }
    case ExprKind::Select: {
      auto* s = x->as<Select>();
      return computable(s->cond) && computable(s->then_value) && computable(s->else_value);
    }
    case ExprKind::Cast: return computable(x->as<Cast>()->operand);
    case ExprKind::Call: {
      // Thread and block indices and math functions; not shuffles (every
      // lane taking part is their contract), atomics, device functions or
      // tensor-core operations.
      auto* c = x->as<Call>();
      if (c->intrinsic > Intrinsic::Pow) return false;
      for (const Expr& a : c->args)
        if (!computable(a)) return false;
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
  if (auto* l = s->as<LetStmt>()) return !l->var->is_mutable && l->value && Computable(l->value, constant, true);
  if (auto* st = s->as<Store>()) {
    ++*stores;
    // A register store becomes a select of the old and the new value: at
    // a constant element, like a register read.
    bool registers = st->buffer->scope == MemScope::Register;
    for (const Expr& i : st->indices)
      if (registers ? !Constant(i, constant) : !Computable(i, constant, true)) return false;
    return Computable(st->value, constant, true);
  }
  return false;
}

}  // namespace

bool Speculatable(const Expr& x) { return Computable(x, {}, false); }

bool PredicableStores(const Stmt& body, const IsConstant& constant) {
  int stores = 0;
  return Predicable(body, constant, &stores) && stores > 0;
}

}  // namespace tmc::ir
