// sink-wgmma-fences: see sink_wgmma_fences.h.
#include "ir/transforms/sink_wgmma_fences.h"

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

// The wgmma call that `s` evaluates with intrinsic `i` (a fence or a
// commit statement), or null.
const Call* SyncCall(const Stmt& s, Intrinsic i) {
  auto* e = s ? s->as<Evaluate>() : nullptr;
  auto* c = e ? e->value->as<Call>() : nullptr;
  return c && c->intrinsic == i ? c : nullptr;
}

bool IssuesWgmma(const Stmt& s) {
  struct Finder : Visitor {
    bool found = false;
    void Visit(const Call* c) override {
      found = found || c->intrinsic == Intrinsic::Wgmma;
      Visitor::Visit(c);
    }
  } finder;
  finder.Walk(s);
  return finder.found;
}

class Sinker : public Mutator {
 protected:
  using Mutator::Visit;

  Stmt Visit(const Seq* s, const Stmt& self) override {
    const std::vector<Stmt>& in = s->stmts;
    std::vector<Stmt> out;
    bool changed = false;
    for (size_t i = 0; i < in.size(); ++i) {
      auto* branch = i + 2 < in.size() ? in[i + 1]->as<IfStmt>() : nullptr;
      if (branch && SyncCall(in[i], Intrinsic::WgmmaFence) && SyncCall(in[i + 2], Intrinsic::WgmmaCommit) &&
          IssuesWgmma(in[i + 1])) {
        // Each branch as its own fence, body and commit; then the same
        // again inside them (Mutate).
        auto wrap = [&](const Stmt& body) {
          std::vector<Stmt> parts{in[i]};
          if (auto* seq = body ? body->as<Seq>() : nullptr)  // its statements, so that an if
            parts.insert(parts.end(), seq->stmts.begin(), seq->stmts.end());  // first in it is next to the fence
          else if (body)
            parts.push_back(body);
          parts.push_back(in[i + 2]);
          return Mutate(Seq::Make(std::move(parts)));
        };
        out.push_back(IfStmt::Make(branch->cond, wrap(branch->then_body), wrap(branch->else_body)));
        i += 2;
        changed = true;
        continue;
      }
      out.push_back(Mutate(in[i]));
      changed = changed || out.back() != in[i];
    }
    return changed ? Seq::Make(std::move(out)) : self;
  }
};

}  // namespace

void SinkWgmmaFences(Function& fn, PassContext&) {
  if (fn.body) fn.body = Sinker().Mutate(fn.body);
}

}  // namespace tmc::ir
