// Runs after the last simplify, when every index that can be constant is.
#include "ir/transforms/check_register_indices.h"

#include <set>

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

class Find : public Visitor {
 public:
  explicit Find(PassContext& ctx) : ctx_(ctx) {}
  using Visitor::Walk;
  void Walk(const Stmt& s) override {
    if (s && s->loc.IsValid()) at_ = s->loc;
    Visitor::Walk(s);
  }

 protected:
  void Visit(const Load* l) override {
    Check(*l->buffer, l->indices);
    Visitor::Visit(l);
  }
  void Visit(const Store* s) override {
    Check(*s->buffer, s->indices);
    Visitor::Visit(s);
  }
  // Fragment operands: each buffer's first register (a tile index).
  void Visit(const Call* c) override {
    if (c->intrinsic == Intrinsic::MmaM16N8K16)
      for (size_t k = 0; k < 4; ++k) Check(*c->buffers[k], {c->args[k]});
    if (c->intrinsic == Intrinsic::LdMatrix) Check(*c->buffers[0], {c->args[1]});
    if (c->intrinsic == Intrinsic::Wgmma) {
      Check(*c->buffers[0], {c->args[0]});
      if (c->buffers.size() == 2) Check(*c->buffers[1], {c->args[1]});  // A in registers
    }
    Visitor::Visit(c);
  }

 private:
  void Check(const Buffer& b, const std::vector<Expr>& idx) {
    if (b.scope != MemScope::Register || !ctx_.diags) return;
    for (const Expr& i : idx) {
      if (AsConstInt(i)) continue;
      if (reported_.insert(&b).second) ctx_.diags->Report(at_, DiagKind::RegisterIndexNotConstant, b.name);
      return;
    }
  }

  PassContext& ctx_;
  SourceRange at_;
  std::set<const Buffer*> reported_;
};

}  // namespace

void CheckRegisterIndices(Function& fn, PassContext& ctx) {
  Find find(ctx);
  Visitor& v = find;
  v.Walk(fn.body);
}

}  // namespace tmc::ir
