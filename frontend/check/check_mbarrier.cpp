// Hopper's mbarriers (sm_90a): 64-bit shared-memory objects that count
// arrivals and asynchronous transaction bytes per phase. `shared bar:
// mbarrier[N]` declares them; their elements are used only here
// (docs/language.md, "mbarriers").
#include "frontend/check/checker.h"

namespace tmc::sema {

ExprInfo Checker::CheckMbarrierCall(ast::CallExpr* e, const std::string& name) {
  ExprInfo void_info{types_.Void(), std::nullopt, false, nullptr};
  bool ok = CheckMbarrierOperand(e->args[0], 0, name);
  if (name == "mbarrier_arrive" && e->args.size() == 2) return CheckClusterOperand(e->args[1], false) && ok ? void_info : ErrorInfo();
  if (e->args.size() == 2) {
    const char* what = name == "mbarrier_init" ? "the arrival count" : name == "mbarrier_wait" ? "the phase parity" : "the transaction bytes";
    ok = !CheckConverted(e->args[1], ScalarKind::I32, what).IsError() && ok;
    // A constant count must be one the hardware can hold (1 .. 2^20 - 1).
    auto c = module_.constants.find(e->args[1]);
    if (ok && name == "mbarrier_init" && c != module_.constants.end() && c->second.kind == ConstValue::Kind::Int &&
        (c->second.i < 1 || c->second.i >= (1 << 20))) {
      diags_.Report(e->args[1]->range, DiagKind::MbarrierCount, c->second.i);
      ok = false;
    }
    // The transaction count of a phase is 20 bits wide (PTX ISA, "tx-count").
    if (ok && name == "mbarrier_arrive_expect_tx" && c != module_.constants.end() &&
        c->second.kind == ConstValue::Kind::Int && (c->second.i < 0 || c->second.i >= (1 << 20))) {
      diags_.Report(e->args[1]->range, DiagKind::MbarrierTxRange, c->second.i);
      ok = false;
    }
  }
  return ok ? void_info : ErrorInfo();
}

bool Checker::CheckMbarrierOperand(ast::Expr* arg, size_t index, const std::string& name) {
  // One mbarrier, `bar[i]` (all indices).
  mbarrier_operand_ = arg;
  ExprInfo bar = CheckExpr(arg);
  mbarrier_operand_ = nullptr;
  if (bar.IsError()) return false;
  if (!ast::dyn_cast<ast::IndexExpr>(arg) || !bar.lvalue_root || !bar.lvalue_root->type->mbarrier || bar.type->IsTensor()) {
    diags_.Report(arg->range, DiagKind::BuiltinArgType, index + 1, name, "an element of a shared mbarrier array",
                  bar.type->ToString());
    return false;
  }
  return true;
}

}  // namespace tmc::sema
