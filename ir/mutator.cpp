// Default traversals of Mutator and Visitor.
#include "ir/mutator.h"

#include <algorithm>

#include <type_traits>

namespace tmc::ir {
namespace {

// A rebuilt node keeps the source location of the node it replaces. Only a
// node that nothing else holds yet (just built) is touched: nodes already
// shared stay immutable.
template <typename T>
T KeepLoc(T fresh, const T& old) {
  if (fresh && old && fresh != old && fresh.use_count() == 1 && !fresh->loc.IsValid())
    const_cast<std::remove_const_t<typename T::element_type>*>(fresh.get())->loc = old->loc;
  return fresh;
}

}  // namespace

Expr Mutator::Mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
#define TMC_IR_EXPR(name) \
  case ExprKind::name:    \
    return KeepLoc(Visit(static_cast<const name*>(e.get()), e), e);
#include "ir/node_kinds.def"
  }
  return e;
}

Stmt Mutator::Mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define TMC_IR_STMT(name) \
  case StmtKind::name:    \
    return KeepLoc(Visit(static_cast<const name*>(s.get()), s), s);
#include "ir/node_kinds.def"
  }
  return s;
}

std::vector<Expr> Mutator::MutateAll(const std::vector<Expr>& es, bool* changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) {
    out.push_back(Mutate(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}

Expr Mutator::Visit(const IntImm*, const Expr& self) { return self; }
Expr Mutator::Visit(const FloatImm*, const Expr& self) { return self; }
Expr Mutator::Visit(const VarRef*, const Expr& self) { return self; }

SourceAccess Mutator::MutateSource(const SourceAccess& s, bool* changed) {
  if (!s) return s;
  return SourceAccess{s.buffer, MutateAll(s.indices, changed)};
}

Expr Mutator::Visit(const Load* e, const Expr& self) {
  bool changed = false;
  auto idx = MutateAll(e->indices, &changed);
  SourceAccess src = MutateSource(e->source, &changed);
  return changed ? Load::Make(e->buffer, std::move(idx), std::move(src)) : self;
}

Expr Mutator::Visit(const Unary* e, const Expr& self) {
  Expr a = Mutate(e->operand);
  return a == e->operand ? self : Unary::Make(e->op, a);
}

Expr Mutator::Visit(const Binary* e, const Expr& self) {
  Expr a = Mutate(e->lhs), b = Mutate(e->rhs);
  return a == e->lhs && b == e->rhs ? self : Binary::Make(e->op, a, b);
}

Expr Mutator::Visit(const Select* e, const Expr& self) {
  Expr c = Mutate(e->cond), a = Mutate(e->then_value), b = Mutate(e->else_value);
  return c == e->cond && a == e->then_value && b == e->else_value ? self : Select::Make(c, a, b);
}

Expr Mutator::Visit(const Cast* e, const Expr& self) {
  Expr a = Mutate(e->operand);
  return a == e->operand ? self : Cast::Make(e->type, a);
}

Expr Mutator::Visit(const Call* e, const Expr& self) {
  bool changed = false;
  auto args = MutateAll(e->args, &changed);
  return changed ? Call::Make(e->type, e->intrinsic, std::move(args), e->callee, e->buffers) : self;
}

Stmt Mutator::Visit(const Seq* s, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> out;
  out.reserve(s->stmts.size());
  for (const Stmt& st : s->stmts) {
    out.push_back(Mutate(st));
    if (out.back() != st) changed = true;
  }
  return changed ? Seq::Make(std::move(out)) : self;
}

Stmt Mutator::Visit(const LetStmt* s, const Stmt& self) {
  Expr v = Mutate(s->value);
  return v == s->value ? self : LetStmt::Make(s->var, v);
}

Stmt Mutator::Visit(const Assign* s, const Stmt& self) {
  Expr v = Mutate(s->value);
  return v == s->value ? self : Assign::Make(s->var, v);
}

Stmt Mutator::Visit(const Store* s, const Stmt& self) {
  bool changed = false;
  auto idx = MutateAll(s->indices, &changed);
  SourceAccess src = MutateSource(s->source, &changed);
  Expr v = Mutate(s->value);
  return changed || v != s->value ? Store::Make(s->buffer, std::move(idx), v, std::move(src)) : self;
}

Stmt Mutator::Visit(const Alloc*, const Stmt& self) { return self; }

Stmt Mutator::Visit(const IfStmt* s, const Stmt& self) {
  Expr c = Mutate(s->cond);
  Stmt t = Mutate(s->then_body), e = Mutate(s->else_body);
  return c == s->cond && t == s->then_body && e == s->else_body ? self : IfStmt::Make(c, t, e);
}

Stmt Mutator::Visit(const For* s, const Stmt& self) {
  Expr b = Mutate(s->begin), e = Mutate(s->end), st = Mutate(s->step);
  Stmt body = Mutate(s->body);
  if (b == s->begin && e == s->end && st == s->step && body == s->body) return self;
  return For::Make(s->var, b, e, st, s->unroll, body);
}

Stmt Mutator::Visit(const ForMapping* s, const Stmt& self) {
  Expr w = Mutate(s->worker);
  Stmt body = Mutate(s->body);
  return w == s->worker && body == s->body ? self : ForMapping::Make(s->vars, s->mapping, w, body);
}

Stmt Mutator::Visit(const While* s, const Stmt& self) {
  Expr c = Mutate(s->cond);
  Stmt body = Mutate(s->body);
  return c == s->cond && body == s->body ? self : While::Make(c, body);
}

Stmt Mutator::Visit(const Jump*, const Stmt& self) { return self; }

Stmt Mutator::Visit(const Return* s, const Stmt& self) {
  Expr v = Mutate(s->value);
  return v == s->value ? self : Return::Make(v);
}

Stmt Mutator::Visit(const Barrier*, const Stmt& self) { return self; }

Stmt Mutator::Visit(const Evaluate* s, const Stmt& self) {
  Expr v = Mutate(s->value);
  return v == s->value ? self : Evaluate::Make(v);
}

// ------------------------------------------------------------------ Visitor

void Visitor::Walk(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
#define TMC_IR_EXPR(name) \
  case ExprKind::name:    \
    return Visit(static_cast<const name*>(e.get()));
#include "ir/node_kinds.def"
  }
}

void Visitor::Walk(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
#define TMC_IR_STMT(name) \
  case StmtKind::name:    \
    return Visit(static_cast<const name*>(s.get()));
#include "ir/node_kinds.def"
  }
}

void Visitor::Visit(const IntImm*) {}
void Visitor::Visit(const FloatImm*) {}
void Visitor::Visit(const VarRef*) {}
void Visitor::Visit(const Load* e) {
  for (const Expr& i : e->indices) Walk(i);
  for (const Expr& i : e->source.indices) Walk(i);
}
void Visitor::Visit(const Unary* e) { Walk(e->operand); }
void Visitor::Visit(const Binary* e) {
  Walk(e->lhs);
  Walk(e->rhs);
}
void Visitor::Visit(const Select* e) {
  Walk(e->cond);
  Walk(e->then_value);
  Walk(e->else_value);
}
void Visitor::Visit(const Cast* e) { Walk(e->operand); }
void Visitor::Visit(const Call* e) {
  for (const Expr& a : e->args) Walk(a);
}
void Visitor::Visit(const Seq* s) {
  for (const Stmt& st : s->stmts) Walk(st);
}
void Visitor::Visit(const LetStmt* s) { Walk(s->value); }
void Visitor::Visit(const Assign* s) { Walk(s->value); }
void Visitor::Visit(const Store* s) {
  for (const Expr& i : s->indices) Walk(i);
  for (const Expr& i : s->source.indices) Walk(i);
  Walk(s->value);
}
void Visitor::Visit(const Alloc*) {}
void Visitor::Visit(const IfStmt* s) {
  Walk(s->cond);
  Walk(s->then_body);
  Walk(s->else_body);
}
void Visitor::Visit(const For* s) {
  Walk(s->begin);
  Walk(s->end);
  Walk(s->step);
  Walk(s->body);
}
void Visitor::Visit(const ForMapping* s) {
  Walk(s->worker);
  Walk(s->body);
}
void Visitor::Visit(const While* s) {
  Walk(s->cond);
  Walk(s->body);
}
void Visitor::Visit(const Jump*) {}
void Visitor::Visit(const Return* s) { Walk(s->value); }
void Visitor::Visit(const Barrier*) {}
void Visitor::Visit(const Evaluate* s) { Walk(s->value); }

std::vector<const Buffer*> WgmmaRegisters(const Function& fn) {
  struct Find : Visitor {
    std::vector<const Buffer*> found;
    void Visit(const Call* c) override {
      if (c->intrinsic == Intrinsic::Wgmma)
        for (const BufferPtr& b : c->buffers)  // the accumulator, and A when in registers
          if (std::find(found.begin(), found.end(), b.get()) == found.end()) found.push_back(b.get());
      Visitor::Visit(c);
    }
  } find;
  static_cast<Visitor&>(find).Walk(fn.body);
  return find.found;
}

bool UsesIntrinsic(const Function& fn, Intrinsic i) {
  class Find : public Visitor {
   public:
    explicit Find(Intrinsic want) : want_(want) {}
    bool found = false;

   protected:
    void Visit(const Call* c) override {
      found = found || c->intrinsic == want_;
      Visitor::Visit(c);
    }

   private:
    Intrinsic want_;
  } find(i);
  Visitor& v = find;
  v.Walk(fn.body);
  return find.found;
}

}  // namespace tmc::ir
