// Unrolling is what makes distributed register tensors registers: after it,
// their slot indices are constants.
#include "ir/transforms/unroll.h"

#include <map>
#include <set>

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

/// Replaces variables: `subst` maps a variable to an expression (the
/// counter's value), `rename` to a fresh variable (locals of the copy).
class Substitute : public Mutator {
 public:
  Substitute(Function& fn, const Var* counter, Expr value) : fn_(fn) { subst_[counter] = std::move(value); }

 protected:
  Expr Visit(const VarRef* e, const Expr& self) override {
    if (auto it = subst_.find(e->var.get()); it != subst_.end()) return it->second;
    return self;
  }
  Stmt Visit(const LetStmt* s, const Stmt&) override {
    Expr v = Mutate(s->value);
    VarPtr fresh = NewVar(fn_, s->var->name, s->var->type, s->var->is_mutable);
    subst_[s->var.get()] = VarRef::Make(fresh);
    renamed_[s->var.get()] = fresh;
    return LetStmt::Make(fresh, v);
  }
  Stmt Visit(const Assign* s, const Stmt&) override {
    Expr v = Mutate(s->value);
    auto it = renamed_.find(s->var.get());
    return Assign::Make(it != renamed_.end() ? it->second : s->var, v);
  }
  Stmt Visit(const For* s, const Stmt&) override {
    Expr b = Mutate(s->begin), e = Mutate(s->end), st = Mutate(s->step);
    VarPtr fresh = NewVar(fn_, s->var->name, s->var->type);
    subst_[s->var.get()] = VarRef::Make(fresh);
    return For::Make(fresh, b, e, st, s->unroll, Mutate(s->body));
  }
  Stmt Visit(const ForMapping* s, const Stmt&) override {
    std::vector<VarPtr> vars;
    for (const VarPtr& v : s->vars) {
      vars.push_back(NewVar(fn_, v->name, v->type));
      subst_[v.get()] = VarRef::Make(vars.back());
    }
    return ForMapping::Make(std::move(vars), s->mapping, Mutate(s->worker), Mutate(s->body));
  }

 private:
  Function& fn_;
  std::map<const Var*, Expr> subst_;
  std::map<const Var*, VarPtr> renamed_;
};

class Unroller : public Mutator {
 public:
  Unroller(Function& fn, PassContext& ctx) : fn_(fn), ctx_(ctx) {}

 protected:
  Stmt Visit(const For* s, const Stmt& self) override {
    Stmt body = Mutate(s->body);  // inner loops first
    auto b = AsConstInt(s->begin), e = AsConstInt(s->end), st = AsConstInt(s->step);
    if (!s->unroll || !b || !e || !st || *st == 0) {
      if (body == s->body) return self;
      return For::Make(s->var, s->begin, s->end, s->step, s->unroll, body);
    }
    // The copies must fit in memory and in a compile of seconds: past the
    // limit the loop stays a loop (no longer marked unroll, so nvcc does not
    // unroll it either), with a warning.
    int64_t trips = *st > 0 ? (*e > *b ? (*e - *b - 1) / *st + 1 : 0) : (*e < *b ? (*b - *e - 1) / -*st + 1 : 0);
    int64_t statements = CountStatements(body);
    if (trips > 1 && (trips > kMaxUnrolledStatements || trips * statements > kMaxUnrolledStatements)) {
      // Once per source loop (split-tails may have made two copies of it).
      SourceRange at = s->loc.IsValid() ? s->loc : fn_.loc;
      if (ctx_.diags && reported_.insert(at.begin.offset).second)
        ctx_.diags->Report(at, DiagKind::UnrollTooLarge, trips, statements, kMaxUnrolledStatements);
      return For::Make(s->var, s->begin, s->end, s->step, false, body);
    }
    std::vector<Stmt> copies;
    for (int64_t i = *b; *st > 0 ? i < *e : i > *e; i += *st)
      copies.push_back(Substitute(fn_, s->var.get(), IntImm::Make(s->var->type, i)).Mutate(body));
    return Seq::Make(std::move(copies));
  }

 private:
  Function& fn_;
  PassContext& ctx_;
  std::set<uint32_t> reported_;  // loop locations (global offsets)
};

// Statements in a tree, not counting the Seqs that group them.
class CountStmts : public Visitor {
 public:
  int64_t n = 0;
  void Walk(const Stmt& s) override {
    if (!s) return;
    if (s->kind != StmtKind::Seq) ++n;
    Visitor::Walk(s);
  }
};

}  // namespace

int64_t CountStatements(const Stmt& s) {
  CountStmts count;
  Visitor& v = count;
  v.Walk(s);
  return count.n;
}

void Unroll(Function& fn, PassContext& ctx) { fn.body = Unroller(fn, ctx).Mutate(fn.body); }

}  // namespace tmc::ir
