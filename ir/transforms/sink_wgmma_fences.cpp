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

// Whether `s` calls any of the wgmma family (a wgmma, a fence, a commit or
// a wait), or, unless `wgmma_only`, may leave the sequence (a break, a
// continue, a return): only statements with neither may be stepped over,
// or a path that jumps would lose its fence or commit early.
bool Touches(const Stmt& s, bool wgmma_only) {
  struct Finder : Visitor {
    bool wgmma_only = false;
    bool found = false;
    void Visit(const Call* c) override {
      Intrinsic i = c->intrinsic;
      found = found || i == Intrinsic::Wgmma ||
              (!wgmma_only && (i == Intrinsic::WgmmaFence || i == Intrinsic::WgmmaCommit || i == Intrinsic::WgmmaWait));
      Visitor::Visit(c);
    }
    void Visit(const Jump* j) override {
      found = found || !wgmma_only;
      Visitor::Visit(j);
    }
    void Visit(const Return* r) override {
      found = found || !wgmma_only;
      Visitor::Visit(r);
    }
  } finder;
  finder.wgmma_only = wgmma_only;
  finder.Walk(s);
  return finder.found;
}

bool IssuesWgmma(const Stmt& s) { return Touches(s, /*wgmma_only=*/true); }

class Sinker : public Mutator {
 protected:
  using Mutator::Visit;

  Stmt Visit(const Seq* s, const Stmt& self) override {
    const std::vector<Stmt>& in = s->stmts;
    std::vector<Stmt> out;
    bool changed = false;
    for (size_t i = 0; i < in.size(); ++i) {
      // fence; A...; if (c) {...wgmma...} else {...}; B...; commit, with
      // A and B free of the wgmma family (the lets the if's condition or
      // branches read, the epilogue's address arithmetic).
      const bool fence = SyncCall(in[i], Intrinsic::WgmmaFence) != nullptr;
      size_t branch_at = i + 1;
      while (fence && branch_at < in.size() && !Touches(in[branch_at], false)) ++branch_at;
      auto* branch = fence && branch_at < in.size() ? in[branch_at]->as<IfStmt>() : nullptr;
      size_t commit_at = branch_at + 1;
      while (branch && commit_at < in.size() && !SyncCall(in[commit_at], Intrinsic::WgmmaCommit) &&
             !Touches(in[commit_at], false))
        ++commit_at;
      if (branch && commit_at < in.size() && SyncCall(in[commit_at], Intrinsic::WgmmaCommit) &&
          IssuesWgmma(in[branch_at])) {
        // Each branch as its own fence, body and commit; then the same
        // again inside them (Mutate). Moving the fence later and the
        // commit earlier over statements that issue no wgmma changes
        // neither the registers fenced nor the group committed.
        auto wrap = [&](const Stmt& body) {
          std::vector<Stmt> parts{in[i]};
          if (auto* seq = body ? body->as<Seq>() : nullptr)  // its statements, so that an if
            parts.insert(parts.end(), seq->stmts.begin(), seq->stmts.end());  // first in it is next to the fence
          else if (body)
            parts.push_back(body);
          parts.push_back(in[commit_at]);
          return Mutate(Seq::Make(std::move(parts)));
        };
        for (size_t j = i + 1; j < branch_at; ++j) out.push_back(Mutate(in[j]));
        out.push_back(IfStmt::Make(branch->cond, wrap(branch->then_body), wrap(branch->else_body)));
        for (size_t j = branch_at + 1; j < commit_at; ++j) out.push_back(Mutate(in[j]));
        i = commit_at;
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
