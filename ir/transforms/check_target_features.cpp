#include "ir/transforms/check_target_features.h"

#include <set>

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

class FindHopper : public Visitor {
 public:
  FindHopper(const Function& fn, PassContext& ctx) : fn_(fn), ctx_(ctx) {}
  void Walk(const Stmt& s) override {
    if (s && s->loc.IsValid()) at_ = s->loc;
    Visitor::Walk(s);
  }

 protected:
  void Visit(const Call* c) override {
    if (IsHopperIntrinsic(c->intrinsic) && reported_.insert(c->intrinsic).second) {
      // As the source spells it (the IR has one setmaxnreg with a direction).
      std::string_view name = c->intrinsic == Intrinsic::Wgmma ? "wgmma" : IntrinsicName(c->intrinsic);
      if (c->intrinsic == Intrinsic::SetMaxNReg && c->args.size() > 1)
        if (auto inc = AsConstInt(c->args[1])) name = *inc ? "setmaxnreg_inc" : "setmaxnreg_dec";
      SourceRange at = c->loc.IsValid() ? c->loc : at_;
      // The target, once per function (its first such instruction): wgmma
      // and its fences exist on sm_90a only; mbarriers (try_wait, expect_tx),
      // TMA and fence.proxy.async from sm_90 on.
      bool wgmma_family = c->intrinsic == Intrinsic::Wgmma || c->intrinsic == Intrinsic::WgmmaFence ||
                          c->intrinsic == Intrinsic::SetMaxNReg ||
                          c->intrinsic == Intrinsic::WgmmaCommit || c->intrinsic == Intrinsic::WgmmaWait;
      bool supported = wgmma_family ? ctx_.ArchName() == "sm_90a" : ctx_.sm_arch >= 90;
      if (!supported && !arch_reported_)
        ctx_.diags->Report(at, DiagKind::HopperOnly, name, wgmma_family ? "--arch=sm_90a" : "--arch=sm_90 or sm_90a",
                           ctx_.ArchName());
      arch_reported_ = arch_reported_ || !supported;
      // wgmma and setmaxnreg are issued by the 128 threads of a warpgroup together.
      if ((c->intrinsic == Intrinsic::Wgmma || c->intrinsic == Intrinsic::SetMaxNReg) &&
          fn_.kind == Function::Kind::Kernel && fn_.Threads() % 128 != 0)
        ctx_.diags->Report(at, DiagKind::WgmmaPartialWarpgroup, name, fn_.name, fn_.Threads());
    }
    Visitor::Visit(c);
  }

 private:
  const Function& fn_;
  PassContext& ctx_;
  SourceRange at_;
  std::set<Intrinsic> reported_;
  bool arch_reported_ = false;
};

}  // namespace

void CheckTargetFeatures(Function& fn, PassContext& ctx) {
  if (!ctx.diags) return;
  // Thread-block clusters exist from sm_90 on.
  if (fn.ClusterBlocks() > 1 && ctx.sm_arch < 90) {
    ctx.diags->Report(fn.loc, DiagKind::ClusterArch, fn.name, "--arch=sm_90 or sm_90a", ctx.ArchName());
    return;
  }
  // A tensor-map parameter is Hopper's even when no copy uses it.
  for (const Param& p : fn.params)
    if (p.buffer && p.buffer->tma && ctx.sm_arch < 90) {
      ctx.diags->Report(fn.loc, DiagKind::TmaParamArch, p.buffer->name, "--arch=sm_90 or sm_90a", ctx.ArchName());
      return;
    }
  FindHopper find(fn, ctx);
  Visitor& v = find;
  v.Walk(fn.body);
}

}  // namespace tmc::ir
