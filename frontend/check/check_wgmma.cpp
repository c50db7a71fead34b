// Hopper's warpgroup matrix multiply (wgmma.mma_async) and its fences:
// the accumulator is a register tensor made of the hardware's m64nNk16 D
// fragments over a warpgroup's 128 threads; A and B are shared tiles laid
// out as the instruction reads them (one of its swizzles), from which the
// compiler builds the matrix descriptors (docs/language.md, "Warpgroup MMA").
#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"
#include "support/mma_layouts.h"

namespace tmc::sema {
namespace {

// The swizzle span in bytes (32, 64 or 128) of a shared 16-bit tile laid
// out as wgmma reads it: rows of exactly one span, `swizzle(B, 3, 3)` (the
// hardware's Swizzle<B, 4, 3> on byte addresses, B = 1, 2, 3); 0 when the
// tile is laid out otherwise.
int64_t SwizzleSpan(const Type& t) {
  const Layout& L = t.layout;
  if (L.kind != Layout::Kind::Swizzle || L.args.size() != 3 || t.dims.empty()) return 0;
  for (const Dim& a : L.args)
    if (!a.is_const) return 0;
  int64_t b = L.args[0].value;
  if (b < 1 || b > 3 || L.args[1].value != 3 || L.args[2].value != 3) return 0;
  const Dim& row = t.dims.back();
  if (!row.is_const || row.value != (int64_t{8} << b)) return 0;
  return int64_t{16} << b;
}

}  // namespace

ExprInfo Checker::CheckWgmmaCall(ast::CallExpr* e, const std::string& name) {
  ExprInfo void_info{types_.Void(), std::nullopt, false, nullptr};
  if (name == "wgmma_wait") {
    std::optional<int64_t> n = EvalInt(e->args[0], "the group count of wgmma_wait");
    if (!n) return ErrorInfo();
    if (*n < 0 || *n > 7) {
      diags_.Report(e->args[0]->range, DiagKind::WgmmaWaitRange, *n);
      return ErrorInfo();
    }
    return void_info;
  }
  if (name == "setmaxnreg_inc" || name == "setmaxnreg_dec") {
    // The warpgroup's per-thread register count (warp specialization).
    std::optional<int64_t> n = EvalInt(e->args[0], "the register count of " + name);
    if (!n) return ErrorInfo();
    if (*n < 24 || *n > 256 || *n % 8 != 0) {
      diags_.Report(e->args[0]->range, DiagKind::SetMaxNRegValue, name, *n);
      return ErrorInfo();
    }
    return void_info;
  }
  if (name != "wgmma" && name != "wgmma_t") return void_info;  // wgmma_fence, wgmma_commit, fence_proxy_async

  // wgmma(d, a, b [, accumulate]): d = a * b (+ d), f16/bf16 in, f32 out;
  // wgmma_t(d, a, bt [, accumulate]): d = a * btᵀ (+ d), bt [N, K] K-major.
  bool transposed = name == "wgmma_t";
  bool ok = true;
  auto shared_tile = [&](size_t i) -> const Type* {
    ExprInfo info = CheckExpr(e->args[i]);
    if (info.IsError()) return nullptr;
    const Type* t = info.type;
    if (i == 1 && t->IsTensor() && t->scope == MemScope::Register) {
      // A in registers: a tensor of wgmma_a fragments (std.wgmma), whole.
      bool fits = (t->scalar == ScalarKind::F16 || t->scalar == ScalarKind::BF16) && t->Rank() == 2 &&
                  t->dims[0].is_const && t->dims[1].is_const && ast::dyn_cast<ast::NameExpr>(e->args[1]);
      if (!fits) {
        diags_.Report(e->args[1]->range, DiagKind::BuiltinArgType, 2, name,
                      "a shared f16 or bf16 matrix [M, K], or a register one of wgmma_a fragments", t->ToString());
        return nullptr;
      }
      if (!t->distributed_by || !SplitIntoFragments(*t->distributed_by, WgmmaA())) {
        auto diag = diags_.Report(e->args[1]->range, DiagKind::FragmentLayout, 2, name, "wgmma m64k16 A", WgmmaA().ToString());
        if (info.lvalue_root && t->distributed_by)
          diag.Note(info.lvalue_root->decl_range, DiagKind::NoteMappingType, t->distributed_by->TypeString());
        return nullptr;
      }
      return t;
    }
    if (!t->IsTensor() || t->scope != MemScope::Shared || (t->scalar != ScalarKind::F16 && t->scalar != ScalarKind::BF16) ||
        t->Rank() < 2 || t->Rank() > (i == 2 && !transposed ? 3 : 2)) {
      diags_.Report(e->args[i]->range, DiagKind::BuiltinArgType, i + 1, name,
                    i == 1        ? "a shared f16 or bf16 matrix [M, K], or a register one of wgmma_a fragments"
                    : transposed ? "a shared f16 or bf16 matrix [N, K]"
                                 : "a shared f16 or bf16 matrix [K, N] (or [G, K, N / G])",
                    t->ToString());
      return nullptr;
    }
    for (const Dim& d : t->dims)
      if (!d.is_const) return nullptr;  // shared dimensions are constants (checked at the declaration)
    if (SwizzleSpan(*t) == 0) {
      diags_.Report(e->args[i]->range, DiagKind::WgmmaOperandLayout, i + 1, name, ast::PrintExpr(e->args[i]),
                    t->ToString() + " " + t->layout.ToString(),
                    i == 1 || transposed ? "K" : "N");
      return nullptr;
    }
    return t;
  };
  const Type* a = shared_tile(1);
  const Type* b = shared_tile(2);
  ok = a && b;
  if (e->args.size() == 4) ok = !CheckConverted(e->args[3], ScalarKind::Bool, "the accumulate flag").IsError() && ok;

  // The accumulator: the whole width of d in one instruction when it is at
  // most 256 columns, else 256-column pieces.
  ExprInfo dinfo = CheckExpr(e->args[0]);
  if (dinfo.IsError()) return ErrorInfo();
  const Type* d = dinfo.type;
  bool d_ok = d->IsTensor() && d->scope == MemScope::Register && d->Rank() == 2 && d->dims[0].is_const &&
              d->dims[1].is_const && d->scalar == ScalarKind::F32 && ast::dyn_cast<ast::NameExpr>(e->args[0]);
  if (!d_ok) {
    diags_.Report(e->args[0]->range, DiagKind::BuiltinArgType, 1, name, "a register f32 tensor of wgmma accumulator fragments",
                  d->ToString());
    return ErrorInfo();
  }
  int64_t rows = d->dims[0].value, cols = d->dims[1].value;
  if (cols > 256 && cols % 256 != 0) {
    diags_.Report(e->args[0]->range, DiagKind::WgmmaWidth, cols);
    return ErrorInfo();
  }
  int64_t n = cols <= 256 ? cols : 256;
  std::optional<std::vector<FragmentPiece>> pieces;
  if (n % 8 == 0 && cols % n == 0 && d->distributed_by) pieces = SplitIntoFragments(*d->distributed_by, WgmmaD(n));
  if (!pieces) {
    int64_t shown = n % 8 == 0 ? n : 8;
    auto diag = diags_.Report(e->args[0]->range, DiagKind::FragmentLayout, 1, name, fmt::format("wgmma m64n{} D", shown),
                              WgmmaD(shown).ToString());
    if (dinfo.lvalue_root && d->distributed_by)
      diag.Note(dinfo.lvalue_root->decl_range, DiagKind::NoteMappingType, d->distributed_by->TypeString());
    return ErrorInfo();
  }
  if (!ok) return ErrorInfo();
  if (a->scalar != b->scalar) {
    diags_.Report(e->range, DiagKind::BuiltinMixedTypes, name, a->ToString(), b->ToString());
    return ErrorInfo();
  }
  int64_t a_rows = a->dims[0].value, k = a->dims[1].value;
  if (transposed) {
    int64_t bt_rows = b->dims[0].value, bt_k = b->dims[1].value;
    if (a_rows != rows || bt_rows != cols || bt_k != k || k % 16 != 0) {
      auto d = diags_.Report(e->range, DiagKind::WgmmaTShapes, rows, cols, a_rows, k, bt_rows, bt_k);
      if (a_rows == rows && bt_rows == k && bt_k == cols && k % 16 == 0)  // b as [K, N]: wgmma's form
        d.Note(e->args[2]->range, DiagKind::NoteWgmmaOtherForm, ast::PrintExpr(e->args[2]), bt_rows, bt_k, "[K, N]",
               "wgmma");
      return ErrorInfo();
    }
    return void_info;
  }
  int64_t b_rows = b->dims[b->Rank() - 2].value;
  int64_t b_cols = b->dims.back().value * (b->Rank() == 3 ? b->dims[0].value : 1);
  if (a_rows != rows || k != b_rows || b_cols != cols || k % 16 != 0) {
    auto d = diags_.Report(e->range, DiagKind::WgmmaShapes, rows, cols, a_rows, k, b_rows, b_cols);
    if (b->Rank() == 2 && a_rows == rows && b_rows == cols && b_cols == k && k % 16 == 0)  // b as [N, K]
      d.Note(e->args[2]->range, DiagKind::NoteWgmmaOtherForm, ast::PrintExpr(e->args[2]), b_rows, b_cols, "[N, K]",
             "wgmma_t");
    return ErrorInfo();
  }
  return void_info;
}

}  // namespace tmc::sema
