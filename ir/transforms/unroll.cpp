// Unrolling is what makes distributed register tensors registers: after it,
// their slot indices are constants.
//
// One walk makes every copy: an unrolled loop's body is copied once per
// trip with its counter bound to the trip's value, and the loops inside
// it are unrolled within that same copy. (Unrolling the inner loops first
// and then copying the result per outer trip, as this pass once did,
// rebuilt each statement of a nest once per level of it.)
#include "ir/transforms/unroll.h"

#include <optional>
#include <set>
#include <unordered_map>

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

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

class Unroller : public Mutator {
 public:
  Unroller(Function& fn, PassContext& ctx) : fn_(fn), ctx_(ctx) {}

 protected:
  Expr Visit(const VarRef* e, const Expr& self) override {
    if (bound_.empty()) return self;
    auto it = bound_.find(e->var.get());
    return it != bound_.end() ? it->second.value : self;
  }

  // Inside a copy, every variable declared in it is a fresh one (so that
  // the copies can share a scope); outside, the declarations stay.
  Stmt Visit(const LetStmt* s, const Stmt& self) override {
    if (copies_ == 0) return Mutator::Visit(s, self);
    Expr v = Mutate(s->value);
    VarPtr fresh = NewVar(fn_, s->var->name, s->var->type, s->var->is_mutable);
    Bind(s->var.get(), VarRef::Make(fresh), fresh);
    return LetStmt::Make(fresh, v);
  }

  Stmt Visit(const Assign* s, const Stmt& self) override {
    Expr v = Mutate(s->value);
    VarPtr target = s->var;
    if (!bound_.empty())
      if (auto it = bound_.find(s->var.get()); it != bound_.end() && it->second.var) target = it->second.var;
    if (target == s->var && v == s->value) return self;
    return Assign::Make(target, v);
  }

  Stmt Visit(const ForMapping* s, const Stmt& self) override {
    if (copies_ == 0) return Mutator::Visit(s, self);
    Expr w = Mutate(s->worker);
    std::vector<VarPtr> vars;
    for (const VarPtr& v : s->vars) {
      vars.push_back(NewVar(fn_, v->name, v->type));
      Bind(v.get(), VarRef::Make(vars.back()), nullptr);
    }
    return ForMapping::Make(std::move(vars), s->mapping, w, Mutate(s->body));
  }

  Stmt Visit(const For* s, const Stmt& self) override {
    const Decision& d = Decide(s);
    if (!d.unroll) {
      Expr b = Mutate(s->begin), e = Mutate(s->end), st = Mutate(s->step);
      VarPtr var = s->var;
      if (copies_ > 0) {
        var = NewVar(fn_, s->var->name, s->var->type);
        Bind(s->var.get(), VarRef::Make(var), nullptr);
      }
      Stmt body = Mutate(s->body);
      if (var == s->var && b == s->begin && e == s->end && st == s->step && body == s->body && s->unroll == d.keep_mark)
        return self;
      return For::Make(var, b, e, st, d.keep_mark, body);
    }
    std::vector<Stmt> copies;
    copies.reserve(static_cast<size_t>(d.trips));
    ++copies_;
    for (int64_t k = 0, i = d.first; k < d.trips; ++k, i += d.step) {
      size_t mark = undo_.size();
      Bind(s->var.get(), IntImm::Make(s->var->type, i), nullptr);
      copies.push_back(Mutate(s->body));
      Unbind(mark);
    }
    --copies_;
    return Seq::Make(std::move(copies));
  }

 private:
  struct Binding {
    Expr value;  // what a reference reads
    VarPtr var;  // what an assignment writes (renamed mutable lets)
  };

  // Bindings made inside a copy end with it (undo_ restores what they
  // replaced): a statement shared by two places of the tree may be copied
  // in one and kept in the other.
  void Bind(const Var* v, Expr value, VarPtr var) {
    auto [it, inserted] = bound_.try_emplace(v);
    undo_.push_back({v, inserted ? std::nullopt : std::optional<Binding>(std::move(it->second))});
    it->second = Binding{std::move(value), std::move(var)};
  }
  void Unbind(size_t mark) {
    while (undo_.size() > mark) {
      auto& [v, previous] = undo_.back();
      if (previous) bound_[v] = std::move(*previous);
      else bound_.erase(v);
      undo_.pop_back();
    }
  }

  // Whether a loop is unrolled depends only on the loop as written (its
  // bounds constant before any enclosing counter is bound, as when inner
  // loops were unrolled first), so it is decided once per loop.
  struct Decision {
    bool unroll = false;
    bool keep_mark = false;  // the loop's unroll mark when it stays a loop
    int64_t first = 0, step = 0, trips = 0;
    int64_t statements = 0;  // what the loop becomes, in CountStatements' unit
  };

  const Decision& Decide(const For* s) {
    if (auto it = decided_.find(s); it != decided_.end()) return it->second;
    Decision d;
    d.keep_mark = s->unroll;
    auto b = AsConstInt(s->begin), e = AsConstInt(s->end), st = AsConstInt(s->step);
    int64_t body = Statements(s->body);
    if (!s->unroll || !b || !e || !st || *st == 0) {
      d.statements = 1 + body;
      return decided_[s] = d;
    }
    int64_t trips = *st > 0 ? (*e > *b ? (*e - *b - 1) / *st + 1 : 0) : (*e < *b ? (*b - *e - 1) / -*st + 1 : 0);
    // The copies must fit in memory and in a compile of seconds: past the
    // limit the loop stays a loop (no longer marked unroll, so nvcc does not
    // unroll it either), with a warning.
    if (trips > 1 && (trips > kMaxUnrolledStatements || trips * body > kMaxUnrolledStatements)) {
      // Once per source loop (split-tails may have made two copies of it).
      SourceRange at = s->loc.IsValid() ? s->loc : fn_.loc;
      if (ctx_.diags && reported_.insert(at.begin.offset).second)
        ctx_.diags->Report(at, DiagKind::UnrollTooLarge, trips, body, kMaxUnrolledStatements);
      d.keep_mark = false;
      d.statements = 1 + body;
      return decided_[s] = d;
    }
    d.unroll = true;
    d.first = *b;
    d.step = *st;
    d.trips = trips;
    d.statements = trips * body;
    return decided_[s] = d;
  }

  // CountStatements of what unrolling makes of s.
  int64_t Statements(const Stmt& s) {
    if (!s) return 0;
    if (auto* f = s->as<For>()) return Decide(f).statements;
    if (auto* q = s->as<Seq>()) {
      int64_t n = 0;
      for (const Stmt& t : q->stmts) n += Statements(t);
      return n;
    }
    if (auto* i = s->as<IfStmt>()) return 1 + Statements(i->then_body) + Statements(i->else_body);
    if (auto* w = s->as<While>()) return 1 + Statements(w->body);
    if (auto* m = s->as<ForMapping>()) return 1 + Statements(m->body);
    return 1;
  }

  Function& fn_;
  PassContext& ctx_;
  int copies_ = 0;  // unrolled loops being copied around the current node
  std::unordered_map<const Var*, Binding> bound_;
  std::vector<std::pair<const Var*, std::optional<Binding>>> undo_;
  std::unordered_map<const For*, Decision> decided_;
  std::set<uint32_t> reported_;  // loop locations (global offsets)
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
