#include "ir/linear_form.h"

#include <vector>

namespace tmc::ir {

namespace {

constexpr int kMaxDepth = 16;  // lets and operations followed
constexpr size_t kMaxTerms = 32;

// A let's value in place of its variable, through chains of lets.
const Expr& Resolve(const Expr& e, const LetValues& lets) {
  const Expr* x = &e;
  for (int n = 0; n < kMaxDepth; ++n) {
    auto* v = (*x)->as<VarRef>();
    if (!v) break;
    auto it = lets.find(v->var.get());
    if (it == lets.end()) break;
    x = &it->second;
  }
  return *x;
}

// a and b compute the same value (structurally, lets replaced by values).
bool SameValue(const Expr& a0, const Expr& b0, const LetValues& lets, int depth) {
  if (depth > kMaxDepth) return false;
  const Expr& a = Resolve(a0, lets);
  const Expr& b = Resolve(b0, lets);
  if (a == b) return true;
  if (a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
    case ExprKind::IntImm: return a->as<IntImm>()->value == b->as<IntImm>()->value;
    case ExprKind::VarRef: return a->as<VarRef>()->var == b->as<VarRef>()->var;
    case ExprKind::Unary:
      return a->as<Unary>()->op == b->as<Unary>()->op &&
             SameValue(a->as<Unary>()->operand, b->as<Unary>()->operand, lets, depth + 1);
    case ExprKind::Binary: {
      auto *x = a->as<Binary>(), *y = b->as<Binary>();
      return x->op == y->op && SameValue(x->lhs, y->lhs, lets, depth + 1) && SameValue(x->rhs, y->rhs, lets, depth + 1);
    }
    case ExprKind::Cast: return SameValue(a->as<Cast>()->operand, b->as<Cast>()->operand, lets, depth + 1);
    case ExprKind::Select: {
      auto *x = a->as<Select>(), *y = b->as<Select>();
      return SameValue(x->cond, y->cond, lets, depth + 1) && SameValue(x->then_value, y->then_value, lets, depth + 1) &&
             SameValue(x->else_value, y->else_value, lets, depth + 1);
    }
    case ExprKind::Call: {
      auto *x = a->as<Call>(), *y = b->as<Call>();
      if (x->intrinsic != y->intrinsic || x->args.size() != y->args.size() || !x->buffers.empty()) return false;
      for (size_t i = 0; i < x->args.size(); ++i)
        if (!SameValue(x->args[i], y->args[i], lets, depth + 1)) return false;
      return true;
    }
    default: return false;  // floats compare by value only when identical nodes; loads never
  }
}

struct Term {
  Expr atom;
  uint64_t k;
};

// Wrapping sums: the operations below are those of integers modulo 2^64,
// which agree with the type's own modulo 2^bits.
struct Linear {
  uint64_t c = 0;
  std::vector<Term> terms;
};

bool Accumulate(const Expr& e0, uint64_t k, const LetValues& lets, int depth, Linear* out) {
  if (depth > kMaxDepth) return false;
  const Expr& e = Resolve(e0, lets);
  if (auto c = AsConstInt(e)) return out->c += k * static_cast<uint64_t>(*c), true;
  if (auto* b = e->as<Binary>()) {
    switch (b->op) {
      case BinaryOp::Add:
        return Accumulate(b->lhs, k, lets, depth + 1, out) && Accumulate(b->rhs, k, lets, depth + 1, out);
      case BinaryOp::Sub:
        return Accumulate(b->lhs, k, lets, depth + 1, out) && Accumulate(b->rhs, -k, lets, depth + 1, out);
      case BinaryOp::Mul: {
        const Expr& l = Resolve(b->lhs, lets);
        const Expr& r = Resolve(b->rhs, lets);
        if (auto c = AsConstInt(r)) return Accumulate(l, k * static_cast<uint64_t>(*c), lets, depth + 1, out);
        if (auto c = AsConstInt(l)) return Accumulate(r, k * static_cast<uint64_t>(*c), lets, depth + 1, out);
        break;
      }
      default: break;
    }
  }
  if (auto* u = e->as<Unary>(); u && u->op == UnaryOp::Neg) return Accumulate(u->operand, -k, lets, depth + 1, out);
  // An atom: anything else of fixed value, merged with an equal one.
  if (!Substitutable(e)) return false;
  for (Term& t : out->terms)
    if (SameValue(t.atom, e, lets, 0)) return t.k += k, true;
  if (out->terms.size() >= kMaxTerms) return false;
  out->terms.push_back({e, k});
  return true;
}

}  // namespace

bool Substitutable(const Expr& e) {
  switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm: return true;
    case ExprKind::VarRef: return !e->as<VarRef>()->var->is_mutable;
    case ExprKind::Load: return false;
    case ExprKind::Unary: return Substitutable(e->as<Unary>()->operand);
    case ExprKind::Binary: return Substitutable(e->as<Binary>()->lhs) && Substitutable(e->as<Binary>()->rhs);
    case ExprKind::Select: {
      auto* s = e->as<Select>();
      return Substitutable(s->cond) && Substitutable(s->then_value) && Substitutable(s->else_value);
    }
    case ExprKind::Cast: return Substitutable(e->as<Cast>()->operand);
    case ExprKind::Call: {
      // Thread and block indices and math functions; not shuffles (another
      // lane's value), atomics or anything on buffers.
      auto* c = e->as<Call>();
      if (c->intrinsic > Intrinsic::Pow || !c->buffers.empty()) return false;
      for (const Expr& a : c->args)
        if (!Substitutable(a)) return false;
      return true;
    }
  }
  return false;
}

std::optional<int64_t> ConstantDifference(const Expr& a, const Expr& b, const LetValues& lets) {
  ScalarKind t = a->type;
  if (!IsInteger(t) || b->type != t) return std::nullopt;
  Linear sum;
  if (!Accumulate(a, 1, lets, 0, &sum) || !Accumulate(b, ~uint64_t{0}, lets, 0, &sum)) return std::nullopt;
  int bits = ScalarBits(t);
  uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  for (const Term& term : sum.terms)
    if ((term.k & mask) != 0) return std::nullopt;
  uint64_t d = sum.c & mask;
  if (IsSigned(t) && bits < 64 && (d >> (bits - 1))) d |= ~mask;  // sign-extend
  return static_cast<int64_t>(d);
}

}  // namespace tmc::ir
