// Why the condition at the last iteration suffices: x is an increasing
// function of every counter of the nest (sums of them and invariants,
// multiplied by positive constants), so x(k) <= x(last, ..., last) < bound
// for every iteration k of the nest.
//
// Before:  for r0 in [0, 4) unroll { for r1 in [0, 2) unroll {
//            let g = base + r0 * 8 + w * 2 + r1; if (g < N) { Y[g] = X[g] } } }
// After:   if (base + 3 * 8 + w * 2 + 1 < N) { <the nest without the guard> }
//          else { <the nest as before> }
//
// Why the whole nest and not each innermost loop: one version per nest is
// one branch per tile in the common case, and the guarded copy stays one
// straight line once unrolled (its guards become predicated stores,
// codegen/nvptx/predicated_stores.h). A version per innermost loop made a
// 128-element tensor-core epilogue 64 pairs of blocks, which was a third
// of its compile (docs/benchmarks.md).
#include "ir/transforms/split_tails.h"

#include <map>
#include <optional>
#include <set>

#include "ir/linear_form.h"
#include "ir/mutator.h"
#include "ir/predicable.h"
#include "ir/register_words.h"
#include "ir/transforms/unroll.h"

namespace tmc::ir {
namespace {

// A loop of the nest: unrolled, constant bounds, positive constant step.
struct Counter {
  int64_t first, last, step, trips;
};

std::optional<Counter> NestLoop(const For* f) {
  auto b = AsConstInt(f->begin), e = AsConstInt(f->end), st = AsConstInt(f->step);
  if (!f->unroll || !b || !e || !st || *st <= 0 || *e <= *b) return std::nullopt;
  int64_t trips = (*e - *b + *st - 1) / *st;
  return Counter{*b, *b + (trips - 1) * *st, *st, trips};
}

// What `measure` counts in s once the nest loops inside s are unrolled:
// Seqs are summed and each nest loop counts its body once per trip;
// `measure` takes every other statement.
int64_t Unrolled(const Stmt& s, int64_t (*measure)(const Stmt&)) {
  if (auto* q = s->as<Seq>()) {
    int64_t n = 0;
    for (const Stmt& t : q->stmts) n += Unrolled(t, measure);
    return n;
  }
  if (auto* f = s->as<For>())
    if (auto c = NestLoop(f)) return c->trips * Unrolled(f->body, measure);
  return measure(s);
}

// Statements once the nest loops inside s are unrolled (the unit of
// kMaxUnrolledStatements).
int64_t UnrolledSize(const Stmt& s) { return Unrolled(s, CountStatements); }

// Stores once the nest loops inside s are unrolled, counting the larger
// branch of an if and a loop that stays a loop once.
int64_t StoresOf(const Stmt& s) {
  if (auto* f = s->as<For>()) return Unrolled(f->body, StoresOf);
  if (auto* i = s->as<IfStmt>())
    return std::max(Unrolled(i->then_body, StoresOf), i->else_body ? Unrolled(i->else_body, StoresOf) : 0);
  return s->kind == StmtKind::Store ? 1 : 0;
}
int64_t UnrolledStores(const Stmt& s) { return Unrolled(s, StoresOf); }

class Split : public Mutator {
 protected:
  // Register tensors allocated so far, as the code generator counts them
  // when it decides whether stores of register values stay scalar.
  Stmt Visit(const Alloc* a, const Stmt& self) override {
    register_words_ += RegisterWords(*a->buffer);
    return Mutator::Visit(a, self);
  }

  // The lets in scope, for DecidedOnceUnrolled; a Seq's go out of scope at
  // its end.
  Stmt Visit(const Seq* s, const Stmt& self) override {
    size_t mark = scope_lets_.Mark();
    Stmt out = Mutator::Visit(s, self);
    scope_lets_.Restore(mark);
    return out;
  }

  Stmt Visit(const LetStmt* l, const Stmt& self) override {
    if (!l->var->is_mutable && l->value && Substitutable(l->value)) scope_lets_.Add(l->var.get(), l->value);
    return Mutator::Visit(l, self);
  }

  Stmt Visit(const For* f, const Stmt& self) override {
    if (Stmt split = SplitNest(f, self)) return split;
    // The loops inside may split on their own, with f's counter a constant
    // once f is unrolled.
    auto unrolled = NestLoop(f);
    int64_t trips = enclosing_trips_;
    if (unrolled) enclosing_[f->var.get()] = *unrolled, enclosing_trips_ *= unrolled->trips;
    Stmt out = Mutator::Visit(f, self);
    if (unrolled) enclosing_.erase(f->var.get()), enclosing_trips_ = trips;
    return out;
  }

 private:
  Stmt SplitNest(const For* f, const Stmt& self) {
    auto root = NestLoop(f);
    if (!root) return nullptr;
    // A loop too large to unroll stays a loop: no fast copy of it (the
    // loops inside it may still have one).
    int64_t size = UnrolledSize(self);
    if (size > kMaxUnrolledStatements || size < 2) return nullptr;
    counters_.clear();
    lets_.clear();
    stored_.clear();
    branches_ = false;
    CollectCounters(self);
    struct Stores : Visitor {
      std::set<const Buffer*>* out;
      void Visit(const Store* s) override {
        out->insert(s->buffer.get());
        Visitor::Visit(s);
      }
    } stores;
    stores.out = &stored_;
    static_cast<Visitor&>(stores).Walk(self);
    // Every `if` at the top level of a loop body of the nest whose
    // condition holds on every iteration once it holds at the nest's first
    // or last one is a guard, and so is such an `if` directly inside a
    // guard (`if (gi < M) { if (gj < N) ... }`); the fast copy drops them.
    Expr fast_cond;
    Stmt fast = Unguard(self, &fast_cond);
    if (!fast_cond) return nullptr;
    // Accesses to consecutive global elements merge into 8- or 16-byte ones
    // only if the row start is aligned, which a symbolic row length hides:
    // take the fast copy only when the row lengths are multiples of the
    // vector width (the code generators tell LLVM and nvcc so).
    bool contiguous = false;
    if (Expr aligned = AlignmentCondition(self, &contiguous))
      fast_cond = Binary::Make(BinaryOp::And, fast_cond, aligned);
    // Without a vector access to gain, a second copy of the nest only adds
    // code and live values (measured: +40 registers in a 128x128 SIMT
    // matmul's staging), and compile time: split only trailing guards,
    // whose fast copy replaces a branch (or a predicate) per element by one
    // per tile. Guards around stores alone become predicated stores
    // (ir/predicable.h), as ptxas would make of the branches: there the
    // fast copy saves only a comparison per element, and only small nests
    // are worth a second copy (a transpose's four elements per thread, not
    // a tensor-core epilogue's 128, whose copy cost 28% of its compile),
    // counting the copies that the unrolled loops around the nest make.
    constexpr int64_t kMaxPredicatedCopy = 128;
    bool small = size * enclosing_trips_ <= kMaxPredicatedCopy;
    if (!contiguous && !(TrailingGuards(self) && (branches_ || small))) return nullptr;
    bool many_stores = UnrolledStores(self) * enclosing_trips_ > kMaxUnrolledTailStores;
    return IfStmt::Make(fast_cond, fast, many_stores ? RollWithoutRegisters(self) : self);
  }

  // The guarded copy of a nest of more than kMaxUnrolledTailStores stores
  // that touches no register tensor (a tile copied from shared to global
  // memory) needs no constant indices: its loops stay loops instead of
  // being unrolled. It runs only on the tiles at the tensor's edge, and
  // unrolled it was a straight line of one predicated store per element,
  // 128 of them per thread in matmul_tc_t's epilogue: 30% of that kernel's
  // compile (docs/benchmarks.md). Smaller nests stay unrolled: LLVM would
  // unroll their loops again, at a higher cost than ours (attention_fwd's
  // 32-element tail).
  static constexpr int64_t kMaxUnrolledTailStores = 64;
  static Stmt RollWithoutRegisters(const Stmt& nest) {
    struct Registers : Visitor {
      bool found = false;
      void Visit(const Load* l) override {
        found = found || l->buffer->scope == MemScope::Register;
        Visitor::Visit(l);
      }
      void Visit(const Store* s) override {
        found = found || s->buffer->scope == MemScope::Register;
        Visitor::Visit(s);
      }
      void Visit(const Call* c) override {
        found = found || !c->buffers.empty();  // fragments of tensor-core operations
        Visitor::Visit(c);
      }
    } registers;
    static_cast<Visitor&>(registers).Walk(nest);
    if (registers.found) return nest;
    struct Roll : Mutator {
      Stmt Visit(const For* f, const Stmt& self) override {
        Stmt body = Mutate(f->body);
        if (!f->unroll && body == f->body) return self;
        return For::Make(f->var, f->begin, f->end, f->step, /*unroll=*/false, body);
      }
    } roll;
    return static_cast<Mutator&>(roll).Mutate(nest);
  }

  // The counters of the nest: f and the nest loops in its bodies and
  // guards, however deep.
  void CollectCounters(const Stmt& s) {
    if (auto* q = s->as<Seq>()) {
      for (const Stmt& t : q->stmts) CollectCounters(t);
    } else if (auto* f = s->as<For>()) {
      if (auto c = NestLoop(f)) {
        counters_[f->var.get()] = *c;
        CollectCounters(f->body);
      }
    } else if (auto* i = s->as<IfStmt>()) {
      CollectCounters(i->then_body);
    }
  }

  // s with its guards removed; their whole-nest conditions are and-ed into
  // *fast_cond. Lets are recorded as they are met (a guard uses only lets
  // before it).
  Stmt Unguard(const Stmt& s, Expr* fast_cond) {
    if (auto* q = s->as<Seq>()) {
      std::vector<Stmt> out;
      for (const Stmt& t : q->stmts) out.push_back(Unguard(t, fast_cond));
      return Seq::Make(std::move(out));
    }
    if (auto* l = s->as<LetStmt>()) {
      if (!l->var->is_mutable && l->value) lets_[l->var.get()] = l->value;
      return s;
    }
    if (auto* f = s->as<For>(); f && counters_.count(f->var.get())) {
      Stmt loop = For::Make(f->var, f->begin, f->end, f->step, true, Unguard(f->body, fast_cond));
      const_cast<StmtNode*>(loop.get())->loc = f->loc;  // a fresh node: the unroll warning's place
      return loop;
    }
    if (auto* guard = s->as<IfStmt>()) {
      if (DecidedOnceUnrolled(guard->cond)) return s;  // no copy keeps it
      if (Expr c = WholeNestCondition(guard->cond)) {
        *fast_cond = *fast_cond ? Binary::Make(BinaryOp::And, *fast_cond, c) : c;
        if (!PredicableStores(guard->then_body, [this](const Expr& x) { return Unrolled(x); })) branches_ = true;
        return Unguard(guard->then_body, fast_cond);  // an else never runs: the condition holds
      }
    }
    return s;
  }

  // An equality (or inequality) whose two sides differ by a constant once
  // the counters of the nest and of the unrolled loops around it are
  // constants, with the lets in scope inlined: Simplify decides it in each
  // unrolled copy (ir/linear_form.h), as `if (i == r)` in attention's row
  // passes, i and r the lane's row plus constants. It is no guard to
  // version the nest on: each unrolled copy of the nest would keep only
  // one of the two versions, the other built only to be thrown away.
  // Checked with every counter at its first and at its last value.
  bool DecidedOnceUnrolled(const Expr& cond) {
    auto* eq = cond->as<Binary>();
    if (!eq || (eq->op != BinaryOp::Eq && eq->op != BinaryOp::Ne) || !IsInteger(eq->lhs->type)) return false;
    LetValues values = scope_lets_.values();
    for (const auto& [var, value] : lets_)
      if (Substitutable(value)) values[var] = value;
    for (bool last : {false, true}) {
      for (const auto* counters : {&counters_, &enclosing_})
        for (const auto& [var, c] : *counters) values[var] = IntImm::Make(var->type, last ? c.last : c.first);
      if (!ConstantDifference(eq->lhs, eq->rhs, values)) return false;
    }
    return true;
  }

  // A constant once the nest is unrolled: literals and the counters of
  // the nest and of the unrolled loops around it (lets inlined).
  bool Unrolled(const Expr& x) {
    if (AsConstInt(x)) return true;
    if (auto* v = x->as<VarRef>()) {
      if (counters_.count(v->var.get()) || enclosing_.count(v->var.get())) return true;
      auto it = lets_.find(v->var.get());
      return it != lets_.end() && Unrolled(it->second);
    }
    if (auto* b = x->as<Binary>()) return Unrolled(b->lhs) && Unrolled(b->rhs);
    if (auto* u = x->as<Unary>()) return Unrolled(u->operand);
    if (auto* c = x->as<Cast>()) return Unrolled(c->operand);
    return false;
  }

  // Each body of the nest is immutable lets followed by one nest loop or
  // one guard (an `if` without else): the old, narrow form.
  bool TrailingGuards(const Stmt& s) {
    auto* q = s->as<Seq>();
    std::vector<Stmt> stmts = q ? q->stmts : std::vector<Stmt>{s};
    if (stmts.empty()) return false;
    for (size_t i = 0; i + 1 < stmts.size(); ++i) {
      auto* l = stmts[i]->as<LetStmt>();
      if (!l || l->var->is_mutable || !l->value) return false;
    }
    const Stmt& last = stmts.back();
    if (auto* f = last->as<For>(); f && counters_.count(f->var.get())) return TrailingGuards(f->body);
    auto* guard = last->as<IfStmt>();
    return guard && !guard->else_body;
  }

  // c's coefficient in x when x is linear in it (lets inlined); a term
  // without c counts 0.
  std::optional<int64_t> Coefficient(const Expr& x, const Var* c) {
    if (!Uses(x, c)) return 0;
    if (auto* v = x->as<VarRef>()) {
      if (v->var.get() == c) return 1;
      auto it = lets_.find(v->var.get());
      return it != lets_.end() ? Coefficient(it->second, c) : std::nullopt;
    }
    if (auto* k = x->as<Cast>()) return IsInteger(x->type) ? Coefficient(k->operand, c) : std::nullopt;
    // `CB ? 0 : c` with a compile-time CB (a broadcast index) is one branch.
    if (auto* s = x->as<Select>())
      if (auto b = AsConstInt(s->cond)) return Coefficient(*b ? s->then_value : s->else_value, c);
    auto* b = x->as<Binary>();
    if (!b) return std::nullopt;
    auto l = Coefficient(b->lhs, c), r = Coefficient(b->rhs, c);
    if (!l || !r) return std::nullopt;
    switch (b->op) {
      case BinaryOp::Add: return *l + *r;
      case BinaryOp::Sub: return *l - *r;
      case BinaryOp::Mul:
        if (auto k = AsConstInt(b->rhs)) return *l * *k;
        if (auto k = AsConstInt(b->lhs)) return *k * *r;
        return std::nullopt;
      default: return std::nullopt;
    }
  }

  // True if x refers to the counter c, directly or through lets.
  bool Uses(const Expr& x, const Var* c) {
    struct Find : Visitor {
      Split* self;
      const Var* c;
      bool found = false;
      void Visit(const VarRef* v) override {
        if (v->var.get() == c) found = true;
        auto it = self->lets_.find(v->var.get());
        if (!found && it != self->lets_.end()) Walk(it->second);
      }
    } find;
    find.self = this;
    find.c = c;
    static_cast<Visitor&>(find).Walk(x);
    return find.found;
  }

  // For each row-major global tensor that the nest walks along its last
  // dimension one element per iteration of one of its loops: its other
  // dimensions (the row pitch) divisible by the vector width, if any is
  // symbolic. Null if no access can become a vector one.
  Expr AlignmentCondition(const Stmt& nest, bool* contiguous) {
    std::vector<std::pair<const Buffer*, const std::vector<Expr>*>> accesses;
    struct Collect : Visitor {
      std::vector<std::pair<const Buffer*, const std::vector<Expr>*>>* out;
      bool scalar_register_stores;
      void Visit(const Load* l) override {
        out->push_back({l->buffer.get(), &l->indices});
        Visitor::Visit(l);
      }
      void Visit(const Store* s) override {
        // The code generators keep these scalar (ir/register_words.h).
        auto* from = s->value->as<Load>();
        if (!(scalar_register_stores && from && from->buffer->scope == MemScope::Register))
          out->push_back({s->buffer.get(), &s->indices});
        Visitor::Visit(s);
      }
    } collect;
    collect.out = &accesses;
    collect.scalar_register_stores = register_words_ >= kScalarRegisterStoresFrom;
    static_cast<Visitor&>(collect).Walk(nest);
    Expr cond;
    std::set<std::pair<const Buffer*, int64_t>> done;
    std::set<std::pair<const void*, int64_t>> asked;
    for (auto [buf, idx] : accesses) {
      if (buf->scope != MemScope::Global || buf->layout != LayoutKind::RowMajor || idx->size() < 2) continue;
      // The longest run of consecutive elements: a loop of step 1 whose
      // counter adds 1 to the last index.
      int64_t trips = 0;
      for (auto& [var, counter] : counters_)
        if (counter.step == 1 && Coefficient(idx->back(), var) == 1) trips = std::max(trips, counter.trips);
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
        // Once per row length and width (X and Y of the same shape).
        auto* ref = dim->as<VarRef>();
        if (!asked.insert({ref ? static_cast<const void*>(ref->var.get()) : dim.get(), width}).second) continue;
        Expr w = IntImm::Make(dim->type, width);
        Expr divisible = Binary::Make(BinaryOp::Eq, Binary::Make(BinaryOp::Mod, dim, w), IntImm::Make(dim->type, 0));
        cond = cond ? Binary::Make(BinaryOp::And, cond, divisible) : divisible;
      }
    }
    return cond;
  }

  // A condition, evaluated before the nest, that implies `cond` on every
  // iteration; null if there is none. `cond` is a conjunction of
  // comparisons `x < b`, `x <= b` (x increasing, b invariant: checked at
  // the last iteration), `x >= b`, `x > b` (checked at the first) and
  // invariant terms. Lets are inlined, since the result is evaluated where
  // they are not defined.
  Expr WholeNestCondition(const Expr& cond) {
    if (auto* a = cond->as<Binary>(); a && a->op == BinaryOp::And) {
      Expr l = WholeNestCondition(a->lhs), r = WholeNestCondition(a->rhs);
      return l && r ? Binary::Make(BinaryOp::And, l, r) : nullptr;
    }
    if (Invariant(cond)) return Inline(cond, true);
    // Other spellings of the same guards: `!(x >= b || y >= c)`, `b > x`.
    if (auto* n = cond->as<Unary>(); n && n->op == UnaryOp::Not) {
      Expr negated = Negated(n->operand);
      return negated ? WholeNestCondition(negated) : nullptr;
    }
    auto* cmp = cond->as<Binary>();
    if (cmp && IsInteger(cmp->lhs->type) && Invariant(cmp->lhs) && Increasing(cmp->rhs)) {
      std::optional<BinaryOp> mirrored = Mirrored(cmp->op);
      return mirrored ? WholeNestCondition(Binary::Make(*mirrored, cmp->rhs, cmp->lhs)) : nullptr;
    }
    if (!cmp || !IsInteger(cmp->lhs->type) || !Increasing(cmp->lhs) || !Invariant(cmp->rhs)) return nullptr;
    switch (cmp->op) {
      case BinaryOp::Lt:
      case BinaryOp::Le: return Binary::Make(cmp->op, Inline(cmp->lhs, true), Inline(cmp->rhs, true));
      case BinaryOp::Ge:
      case BinaryOp::Gt: return Binary::Make(cmp->op, Inline(cmp->lhs, false), Inline(cmp->rhs, false));
      default: return nullptr;
    }
  }

  // `!e` without the negation on top, for a disjunction (De Morgan: a
  // conjunction of negations), a negation and an integer comparison; null
  // for anything else.
  static Expr Negated(const Expr& e) {
    if (auto* n = e->as<Unary>(); n && n->op == UnaryOp::Not) return n->operand;
    auto* b = e->as<Binary>();
    if (!b) return nullptr;
    if (b->op == BinaryOp::Or)
      return Binary::Make(BinaryOp::And, Unary::Make(UnaryOp::Not, b->lhs), Unary::Make(UnaryOp::Not, b->rhs));
    if (!IsInteger(b->lhs->type)) return nullptr;  // !(x < b) is not x >= b for a NaN
    switch (b->op) {
      case BinaryOp::Lt: return Binary::Make(BinaryOp::Ge, b->lhs, b->rhs);
      case BinaryOp::Le: return Binary::Make(BinaryOp::Gt, b->lhs, b->rhs);
      case BinaryOp::Gt: return Binary::Make(BinaryOp::Le, b->lhs, b->rhs);
      case BinaryOp::Ge: return Binary::Make(BinaryOp::Lt, b->lhs, b->rhs);
      default: return nullptr;
    }
  }

  // The comparison with its sides exchanged: b > x is x < b.
  static std::optional<BinaryOp> Mirrored(BinaryOp op) {
    switch (op) {
      case BinaryOp::Lt: return BinaryOp::Gt;
      case BinaryOp::Le: return BinaryOp::Ge;
      case BinaryOp::Gt: return BinaryOp::Lt;
      case BinaryOp::Ge: return BinaryOp::Le;
      default: return std::nullopt;
    }
  }

  // True if x may differ between iterations: it uses a counter, a
  // mutable variable, memory the nest writes, or a call with effects.
  bool Mentions(const Expr& x) {
    if (auto* v = x->as<VarRef>()) {
      if (counters_.count(v->var.get()) || v->var->is_mutable) return true;
      auto it = lets_.find(v->var.get());
      return it != lets_.end() && Mentions(it->second);
    }
    if (auto* b = x->as<Binary>()) return Mentions(b->lhs) || Mentions(b->rhs);
    if (auto* u = x->as<Unary>()) return Mentions(u->operand);
    if (auto* c = x->as<Cast>()) return Mentions(c->operand);
    if (auto* s = x->as<Select>()) return Mentions(s->cond) || Mentions(s->then_value) || Mentions(s->else_value);
    if (auto* l = x->as<Load>()) {
      if (stored_.count(l->buffer.get())) return true;  // written in the nest
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

  // Weakly increasing in every counter, by construction.
  bool Increasing(const Expr& x) {
    if (auto* v = x->as<VarRef>()) {
      if (counters_.count(v->var.get())) return true;
      auto it = lets_.find(v->var.get());
      if (it == lets_.end()) return Invariant(x);
      return Increasing(it->second);
    }
    if (auto* b = x->as<Binary>()) {
      if (b->op == BinaryOp::Add) return Increasing(b->lhs) && Increasing(b->rhs);
      if (b->op == BinaryOp::Sub) return Increasing(b->lhs) && Invariant(b->rhs);
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

  // x with the lets it uses inlined and every counter replaced by its last
  // value (or its first).
  Expr Inline(const Expr& x, bool last) {
    struct Sub : Mutator {
      Split* self;
      bool last;
      Expr Visit(const VarRef* v, const Expr& e) override {
        if (auto c = self->counters_.find(v->var.get()); c != self->counters_.end())
          return IntImm::Make(v->var->type, last ? c->second.last : c->second.first);
        auto it = self->lets_.find(v->var.get());
        return it == self->lets_.end() ? e : Mutate(it->second);
      }
    } sub;
    sub.self = this;
    sub.last = last;
    return sub.Mutate(x);
  }

  std::map<const Var*, Counter> counters_;
  std::map<const Var*, Expr> lets_;  // filled by Unguard, in order
  ScopedLets scope_lets_;            // immutable lets in scope around the nest (Substitutable values)
  std::set<const Buffer*> stored_;   // buffers the nest writes
  std::map<const Var*, Counter> enclosing_;  // counters of the unrolled loops around the nest
  int64_t enclosing_trips_ = 1;     // the copies of the nest that they make
  bool branches_ = false;            // a guard of the nest stays a branch in the slow copy
  int64_t register_words_ = 0;
};

}  // namespace

void SplitTails(Function& fn, PassContext&) { fn.body = Split().Mutate(fn.body); }

}  // namespace tmc::ir
