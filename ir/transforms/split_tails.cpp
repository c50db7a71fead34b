// Why the condition at the last iteration suffices: x is an increasing
// function of the counter k (sums of it and invariants, multiplied by
// positive constants), so x(k) <= x(last) < bound for every k.
//
// Before:  for r0 in [0, 4) unroll { let g = base + w * 4 + r0; if (g < N) { Y[g] = X[g] } }
// After:   if (base + w * 4 + 3 < N) { for r0 in [0, 4) unroll { let g = ...; Y[g] = X[g] } }
//          else { <the loop as before> }
#include "ir/transforms/split_tails.h"

#include <map>
#include <optional>
#include <set>

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
    std::map<const Var*, Expr> lets;  // filled by Unguard, in order
    std::set<const Var*> assigned;    // mutable variables: never invariant
    for (const Stmt& s : stmts)
      if (auto* l = s->as<LetStmt>(); l && (l->var->is_mutable || !l->value)) assigned.insert(l->var.get());
    counter_ = f->var.get();
    lets_ = &lets;
    assigned_ = &assigned;
    struct Stores : Visitor {
      std::set<const Buffer*>* out;
      void Visit(const Store* s) override {
        out->insert(s->buffer.get());
        Visitor::Visit(s);
      }
    } stores;
    stored_.clear();
    stores.out = &stored_;
    static_cast<Visitor&>(stores).Walk(body);
    // Every top-level `if` whose condition holds on every iteration once it
    // holds at the first or last one is a guard, and so is such an `if`
    // directly inside a guard (`if (gi < M) { if (gj < N) ... }`); the fast
    // copy drops them all.
    Expr fast_cond;
    std::vector<Stmt> unguarded = Unguard(stmts, *b, *e - 1, &fast_cond, lets);
    if (!fast_cond) return loop;
    // Accesses to consecutive global elements merge into 8- or 16-byte ones
    // only if the row start is aligned, which a symbolic row length hides:
    // take the fast copy only when the row lengths are multiples of the
    // vector width (the code generators tell LLVM and nvcc so).
    bool contiguous = false;
    if (Expr aligned = AlignmentCondition(body, *e - *b, &contiguous))
      fast_cond = Binary::Make(BinaryOp::And, fast_cond, aligned);
    // Without a vector access to gain, a second copy of the loop only adds
    // code and live values (measured: +40 registers in a 128x128 SIMT
    // matmul's staging): split only a trailing guard, whose fast copy
    // replaces a branch per element by one per tile.
    auto* last = stmts.back()->as<IfStmt>();
    if (!contiguous && !(last && !last->else_body && OnlyLetsBefore(stmts))) return loop;
    Stmt fast = For::Make(f->var, f->begin, f->end, f->step, true, Seq::Make(std::move(unguarded)));
    const_cast<StmtNode*>(fast.get())->loc = f->loc;  // a fresh node
    return IfStmt::Make(fast_cond, fast, loop);
  }

 private:
  std::vector<Stmt> Unguard(const std::vector<Stmt>& stmts, int64_t first, int64_t last, Expr* fast_cond,
                            std::map<const Var*, Expr>& lets) {
    std::vector<Stmt> out;
    for (const Stmt& s : stmts) {
      if (auto* l = s->as<LetStmt>(); l && !l->var->is_mutable && l->value) lets[l->var.get()] = l->value;
      auto* guard = s->as<IfStmt>();
      Expr c = guard ? WholeLoopCondition(guard->cond, first, last) : nullptr;
      if (!c) {
        out.push_back(s);
        continue;
      }
      *fast_cond = *fast_cond ? Binary::Make(BinaryOp::And, *fast_cond, c) : c;
      auto* inner = guard->then_body->as<Seq>();
      out.push_back(Seq::Make(Unguard(inner ? inner->stmts : std::vector<Stmt>{guard->then_body}, first, last,
                                      fast_cond, lets)));
    }
    return out;
  }

  // Only immutable lets before the last statement (the old, narrow form).
  static bool OnlyLetsBefore(const std::vector<Stmt>& stmts) {
    for (size_t i = 0; i + 1 < stmts.size(); ++i) {
      auto* l = stmts[i]->as<LetStmt>();
      if (!l || l->var->is_mutable || !l->value) return false;
    }
    return true;
  }

  // The counter's coefficient in x when x is linear in it (lets inlined).
  std::optional<int64_t> Coefficient(const Expr& x) {
    if (auto* v = x->as<VarRef>()) {
      if (v->var.get() == counter_) return 1;
      if (auto it = lets_->find(v->var.get()); it != lets_->end()) return Coefficient(it->second);
    }
    if (Invariant(x)) return 0;
    if (auto* c = x->as<Cast>()) return IsInteger(x->type) ? Coefficient(c->operand) : std::nullopt;
    // `CB ? 0 : c` with a compile-time CB (a broadcast index) is one branch.
    if (auto* s = x->as<Select>())
      if (auto c = AsConstInt(s->cond)) return Coefficient(*c ? s->then_value : s->else_value);
    auto* b = x->as<Binary>();
    if (!b) return std::nullopt;
    auto l = Coefficient(b->lhs), r = Coefficient(b->rhs);
    if (!l || !r) return std::nullopt;
    switch (b->op) {
      case BinaryOp::Add: return *l + *r;
      case BinaryOp::Sub: return *l - *r;
      case BinaryOp::Mul:
        if (auto c = AsConstInt(b->rhs)) return *l * *c;
        if (auto c = AsConstInt(b->lhs)) return *c * *r;
        return std::nullopt;
      default: return std::nullopt;
    }
  }

  // For each row-major global tensor that the loop walks along its last
  // dimension one element per iteration: its other dimensions (the row
  // pitch) divisible by the vector width, if any is symbolic. Null if no
  // access can become a vector one.
  Expr AlignmentCondition(const Stmt& body, int64_t trips, bool* contiguous) {
    std::vector<std::pair<const Buffer*, const std::vector<Expr>*>> accesses;
    struct Collect : Visitor {
      std::vector<std::pair<const Buffer*, const std::vector<Expr>*>>* out;
      void Visit(const Load* l) override {
        out->push_back({l->buffer.get(), &l->indices});
        Visitor::Visit(l);
      }
      void Visit(const Store* s) override {
        out->push_back({s->buffer.get(), &s->indices});
        Visitor::Visit(s);
      }
    } collect;
    collect.out = &accesses;
    static_cast<Visitor&>(collect).Walk(body);
    Expr cond;
    std::set<std::pair<const Buffer*, int64_t>> done;
    for (auto [buf, idx] : accesses) {
      if (buf->scope != MemScope::Global || buf->layout != LayoutKind::RowMajor || idx->size() < 2) continue;
      if (Coefficient(idx->back()) != 1) continue;
      int64_t width = 1;  // elements per vector: a power of two, at most 16 bytes
      while (width * 2 <= trips && width * 2 * ScalarBytes(buf->elem) <= 16) width *= 2;
      if (width < 2) continue;
      *contiguous = true;
      if (!done.insert({buf, width}).second) continue;
      // A row starts at (i0 * d1 + i1) * d2 ... : every dimension after
      // the first is a factor of it.
      for (size_t d = 1; d < buf->shape.size(); ++d) {
        const Expr& dim = buf->shape[d];
        if (auto c = AsConstInt(dim)) {
          if (*c % width != 0) break;  // never aligned: nothing to ask
          continue;
        }
        Expr w = IntImm::Make(dim->type, width);
        Expr divisible = Binary::Make(BinaryOp::Eq, Binary::Make(BinaryOp::Mod, dim, w), IntImm::Make(dim->type, 0));
        cond = cond ? Binary::Make(BinaryOp::And, cond, divisible) : divisible;
      }
    }
    return cond;
  }

  // A condition, evaluated before the loop, that implies `cond` on every
  // iteration in [first, last]; null if there is none. `cond` is a
  // conjunction of comparisons `x < b`, `x <= b` (x increasing, b
  // invariant: checked at the last iteration), `x >= b`, `x > b` (checked
  // at the first) and invariant terms. Lets are inlined, since the result
  // is evaluated where they are not defined.
  Expr WholeLoopCondition(const Expr& cond, int64_t first, int64_t last) {
    if (auto* a = cond->as<Binary>(); a && a->op == BinaryOp::And) {
      Expr l = WholeLoopCondition(a->lhs, first, last), r = WholeLoopCondition(a->rhs, first, last);
      return l && r ? Binary::Make(BinaryOp::And, l, r) : nullptr;
    }
    if (Invariant(cond)) return Inline(cond, last);
    auto* cmp = cond->as<Binary>();
    if (!cmp || !IsInteger(cmp->lhs->type) || !Increasing(cmp->lhs) || !Invariant(cmp->rhs)) return nullptr;
    switch (cmp->op) {
      case BinaryOp::Lt:
      case BinaryOp::Le: return Binary::Make(cmp->op, Inline(cmp->lhs, last), Inline(cmp->rhs, last));
      case BinaryOp::Ge:
      case BinaryOp::Gt: return Binary::Make(cmp->op, Inline(cmp->lhs, first), Inline(cmp->rhs, first));
      default: return nullptr;
    }
  }

  // True if x may differ between iterations: it uses the counter, a
  // mutable variable, memory, or a call.
  bool Mentions(const Expr& x) {
    if (auto* v = x->as<VarRef>()) {
      if (v->var.get() == counter_ || assigned_->count(v->var.get()) || v->var->is_mutable) return true;
      auto it = lets_->find(v->var.get());
      return it != lets_->end() && Mentions(it->second);
    }
    if (auto* b = x->as<Binary>()) return Mentions(b->lhs) || Mentions(b->rhs);
    if (auto* u = x->as<Unary>()) return Mentions(u->operand);
    if (auto* c = x->as<Cast>()) return Mentions(c->operand);
    if (auto* s = x->as<Select>()) return Mentions(s->cond) || Mentions(s->then_value) || Mentions(s->else_value);
    if (auto* l = x->as<Load>()) {
      if (stored_.count(l->buffer.get())) return true;  // written in the loop
      for (const Expr& i : l->indices)
        if (Mentions(i)) return true;
      return false;
    }
    if (auto* c = x->as<Call>()) {
      if (c->HasEffects()) return true;  // an atomic's old value, ...
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
      if (it == lets_->end()) return Invariant(x);
      return Increasing(it->second) || Invariant(it->second);
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
  const std::set<const Var*>* assigned_ = nullptr;
  std::set<const Buffer*> stored_;  // buffers the loop writes
};

}  // namespace

void SplitTails(Function& fn, PassContext&) { fn.body = Split().Mutate(fn.body); }

}  // namespace tmc::ir
