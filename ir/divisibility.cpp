#include "ir/divisibility.h"

namespace tmc::ir {
namespace {

void Collect(const Expr& cond, std::vector<std::pair<Expr, int64_t>>* out) {
  auto* b = cond->as<Binary>();
  if (!b) return;
  if (b->op == BinaryOp::And) {
    Collect(b->lhs, out);
    Collect(b->rhs, out);
    return;
  }
  if (b->op != BinaryOp::Eq || AsConstInt(b->rhs) != 0) return;
  auto* mod = b->lhs->as<Binary>();
  if (!mod || mod->op != BinaryOp::Mod || !IsInteger(mod->type)) return;
  auto c = AsConstInt(mod->rhs);
  if (c && *c >= 2 && (*c & (*c - 1)) == 0) out->push_back({mod->lhs, *c});
}

}  // namespace

std::vector<std::pair<Expr, int64_t>> DivisibilityFacts(const Expr& cond) {
  std::vector<std::pair<Expr, int64_t>> facts;
  Collect(cond, &facts);
  return facts;
}

}  // namespace tmc::ir
