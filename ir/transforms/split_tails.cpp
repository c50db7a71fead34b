// Why the condition at the last iteration suffices: x is an increasing
// function of the counter k (sums of it and invariants, multiplied by
// positive constants), so x(k) <= x(last) < bound for every k.
//
// Before:  for r0 in [0, 4) unroll { let g = base + w * 4 + r0; if (g < N) { Y[g] = X[g] } }
// After:   if (base + w * 4 + 3 < N) { for r0 in [0, 4) unroll { let g = ...; Y[g] = X[g] } }
//          else { <the loop as before> }
#include "ir/transforms/split_tails.h"

#include <map>

#include "ir/mutator.h"
#include "ir/transforms/unroll.h"

namespace tmc::ir {
namespace {

class Split : public Mutator {
 protected:
  Stmt Visit(const For* f, const Stmt& self) override {
    Stmt body = Mutate(f->body);
    Stmt loop = body == f->body ? self : For::Make(f->var, f->begin, f->end, f->step, f->unroll, body);
    auto b = AsConstInt(f->begin), e = AsConstInt(f->end), st = AsConstInt(f->step);
    if (!f->unroll || !b || !e || st != 1 || *e - *b < 2) return loop;
    // A loop too large to unroll stays one loop: no fast copy of it.
    if (*e - *b > kMaxUnrolledStatements || (*e - *b) * CountStatements(body) > kMaxUnrolledStatements) return loop;
    auto* seq = body->as<Seq>();
    std::vector<Stmt> stmts = seq ? seq->stmts : std::vector<Stmt>{body};
    if (stmts.empty()) return loop;
    auto* guard = stmts.back()->as<IfStmt>();
    if (!guard || guard->else_body) return loop;
    auto* cmp = guard->cond->as<Binary>();
    if (!cmp || cmp->op != BinaryOp::Lt || !IsInteger(cmp->lhs->type)) return loop;
    std::map<const Var*, Expr> lets;
    for (size_t i = 0; i + 1 < stmts.size(); ++i) {
      auto* l = stmts[i]->as<LetStmt>();
      if (!l || l->var->is_mutable || !l->value) return loop;
      lets[l->var.get()] = l->value;
    }
    counter_ = f->var.get();
    lets_ = &lets;
    if (!Increasing(cmp->lhs) || !Invariant(cmp->rhs)) return loop;
    // Both sides are evaluated before the loop, where its lets are not
    // defined: inline them. The bound may use a let that does not depend
    // on the counter (a col_repeat mapping's `j` is set by the outer loop
    // and is invariant in the inner one), so it is inlined too.
    Expr last = Inline(cmp->lhs, *e - 1);
    Expr bound = Inline(cmp->rhs, *e - 1);
    std::vector<Stmt> unguarded(stmts.begin(), stmts.end() - 1);
    unguarded.push_back(guard->then_body);
    Stmt fast = For::Make(f->var, f->begin, f->end, f->step, true, Seq::Make(std::move(unguarded)));
    const_cast<StmtNode*>(fast.get())->loc = f->loc;  // a fresh node
    return IfStmt::Make(Binary::Make(BinaryOp::Lt, last, bound), fast, loop);
  }

 private:
  bool Mentions(const Expr& x) {
    if (auto* v = x->as<VarRef>()) {
      if (v->var.get() == counter_) return true;
      auto it = lets_->find(v->var.get());
      return it != lets_->end() && Mentions(it->second);
    }
    if (auto* b = x->as<Binary>()) return Mentions(b->lhs) || Mentions(b->rhs);
    if (auto* u = x->as<Unary>()) return Mentions(u->operand);
    if (auto* c = x->as<Cast>()) return Mentions(c->operand);
    if (auto* s = x->as<Select>()) return Mentions(s->cond) || Mentions(s->then_value) || Mentions(s->else_value);
    if (auto* l = x->as<Load>()) {
      for (const Expr& i : l->indices)
        if (Mentions(i)) return true;
      return false;
    }
    if (auto* c = x->as<Call>()) {
      for (const Expr& a : c->args)
        if (Mentions(a)) return true;
      return false;
    }
    return false;
  }

  bool Invariant(const Expr& x) { return !Mentions(x); }

  // Strictly or weakly increasing in the counter, by construction.
  bool Increasing(const Expr& x) {
    if (auto* v = x->as<VarRef>()) {
      if (v->var.get() == counter_) return true;
      auto it = lets_->find(v->var.get());
      return it == lets_->end() || Increasing(it->second) || Invariant(it->second);
    }
    if (auto* b = x->as<Binary>()) {
      if (b->op == BinaryOp::Add) return (Increasing(b->lhs) || Invariant(b->lhs)) && (Increasing(b->rhs) || Invariant(b->rhs));
      if (b->op == BinaryOp::Mul) {
        auto c = AsConstInt(b->rhs);
        if (c && *c > 0) return Increasing(b->lhs);
        c = AsConstInt(b->lhs);
        if (c && *c > 0) return Increasing(b->rhs);
      }
      return Invariant(x);
    }
    if (auto* c = x->as<Cast>()) return IsInteger(x->type) && ScalarBits(x->type) >= ScalarBits(c->operand->type) &&
                                       IsSigned(x->type) == IsSigned(c->operand->type) && Increasing(c->operand);
    return Invariant(x);
  }

  // x with the lets it uses inlined and the counter replaced by `k`.
  Expr Inline(const Expr& x, int64_t k) {
    struct Sub : Mutator {
      Split* self;
      int64_t k;
      Expr Visit(const VarRef* v, const Expr& e) override {
        if (v->var.get() == self->counter_) return IntImm::Make(v->var->type, k);
        auto it = self->lets_->find(v->var.get());
        return it == self->lets_->end() ? e : Mutate(it->second);
      }
    } sub;
    sub.self = this;
    sub.k = k;
    return sub.Mutate(x);
  }

  const Var* counter_ = nullptr;
  const std::map<const Var*, Expr>* lets_ = nullptr;
};

}  // namespace

void SplitTails(Function& fn, PassContext&) { fn.body = Split().Mutate(fn.body); }

}  // namespace tmc::ir
