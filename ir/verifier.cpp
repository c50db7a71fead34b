// Scopes follow the IR's rules: a LetStmt or Alloc is visible to the rest
// of its Seq; loop variables to the loop body.
#include "ir/verifier.h"

#include <set>

#include "ir/mutator.h"
#include "ir/printer.h"

namespace tmc::ir {
namespace {

class Checker : public Visitor {
 public:
  Checker(const Function& fn, const VerifyStage& stage) : stage_(stage) {
    scopes_.emplace_back();
    for (const Param& p : fn.params) {
      if (p.var) scopes_.back().vars.insert(p.var.get());
      if (p.buffer) scopes_.back().buffers.insert(p.buffer.get());
    }
  }
  std::vector<std::string> problems;

 protected:
  struct Scope {
    std::set<const Var*> vars;
    std::set<const Buffer*> buffers;
  };

  bool HasVar(const Var* v) const {
    for (const Scope& s : scopes_)
      if (s.vars.count(v)) return true;
    return false;
  }
  bool HasBuffer(const Buffer* b) const {
    for (const Scope& s : scopes_)
      if (s.buffers.count(b)) return true;
    return false;
  }
  void Access(const BufferPtr& b, const std::vector<Expr>& idx) {
    if (!HasBuffer(b.get())) problems.push_back("buffer '" + b->name + "' used outside its scope");
    if (stage_.flattened && idx.size() != 1) problems.push_back("unflattened access to '" + b->name + "'");
    if (stage_.mappings_lowered && b->distributed_by)
      problems.push_back("distributed buffer '" + b->name + "' after lower-task-mappings");
  }

  void Visit(const VarRef* e) override {
    if (!HasVar(e->var.get())) problems.push_back("variable '" + e->var->name + "' used before its definition");
  }
  void Visit(const Load* e) override {
    Access(e->buffer, e->indices);
    Visitor::Visit(e);
  }
  void Visit(const Store* s) override {
    Access(s->buffer, s->indices);
    Visitor::Visit(s);
  }
  void Visit(const Call* c) override {
    for (const BufferPtr& b : c->buffers) {
      if (!HasBuffer(b.get())) problems.push_back("buffer '" + b->name + "' used outside its scope");
      if (stage_.mappings_lowered && b->distributed_by)
        problems.push_back("distributed buffer '" + b->name + "' after lower-task-mappings");
    }
    Visitor::Visit(c);
  }
  void Visit(const Seq* s) override {
    scopes_.emplace_back();
    Visitor::Visit(s);
    scopes_.pop_back();
  }
  void Visit(const LetStmt* s) override {
    Walk(s->value);
    scopes_.back().vars.insert(s->var.get());
  }
  void Visit(const Assign* s) override {
    if (!HasVar(s->var.get())) problems.push_back("assignment to undefined variable '" + s->var->name + "'");
    if (!s->var->is_mutable) problems.push_back("assignment to immutable '" + s->var->name + "'");
    Walk(s->value);
  }
  void Visit(const Alloc* a) override { scopes_.back().buffers.insert(a->buffer.get()); }
  void Visit(const For* s) override {
    Walk(s->begin);
    Walk(s->end);
    Walk(s->step);
    scopes_.emplace_back();
    scopes_.back().vars.insert(s->var.get());
    ++loops_;
    Walk(s->body);
    --loops_;
    scopes_.pop_back();
  }
  void Visit(const ForMapping* s) override {
    if (stage_.mappings_lowered) problems.push_back("task-mapping loop after lower-task-mappings");
    Walk(s->worker);
    scopes_.emplace_back();
    for (const VarPtr& v : s->vars) scopes_.back().vars.insert(v.get());
    Walk(s->body);
    scopes_.pop_back();
  }
  void Visit(const While* s) override {
    Walk(s->cond);
    ++loops_;
    Walk(s->body);
    --loops_;
  }
  void Visit(const Jump*) override {
    if (loops_ == 0) problems.push_back("break or continue outside a loop");
  }
  void Visit(const IfStmt* s) override {
    Walk(s->cond);
    scopes_.emplace_back();
    Walk(s->then_body);
    scopes_.pop_back();
    scopes_.emplace_back();
    Walk(s->else_body);
    scopes_.pop_back();
  }

 private:
  const VerifyStage& stage_;
  std::vector<Scope> scopes_;
  int loops_ = 0;
};

}  // namespace

std::vector<std::string> Verify(const Function& fn, const VerifyStage& stage) {
  Checker c(fn, stage);
  c.Walk(fn.body);
  for (const Expr& g : fn.grid) c.Walk(g);
  return c.problems;
}

}  // namespace tmc::ir
