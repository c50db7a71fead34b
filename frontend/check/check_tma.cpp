// Hopper's Tensor Memory Accelerator (sm_90): a kernel parameter declared
// `A: T[M, K] by tma` reaches the kernel as a tensor map, through which
// tma_load copies a box of A into a shared tile (completing transaction
// bytes on an mbarrier) and tma_store copies a shared tile back. The box
// and the swizzle of the map are the shared tiles' (docs/language.md,
// "TMA").
#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"

namespace tmc::sema {

bool Checker::IsTmaMarker(const ast::Expr* by) {
  auto* n = ast::dyn_cast<ast::NameExpr>(by);
  return n && n->name == "tma";
}

Symbol* Checker::CheckTmaOrigin(ast::Expr* arg, size_t index, const std::string& name) {
  // The common mistakes first: a tensor not declared `by tma`, a wrong
  // number of coordinates.
  auto* idx = ast::dyn_cast<ast::IndexExpr>(arg);
  auto* base = idx ? ast::dyn_cast<ast::NameExpr>(idx->base) : nullptr;
  if (Symbol* s = base ? scope_->Lookup(base->name) : nullptr; s && s->type && s->type->IsTensor()) {
    if (!s->type->tma && s->type->scope == MemScope::Global) {
      for (ast::Expr* i : idx->indices) CheckExpr(i);
      diags_.Report(idx->base->range, DiagKind::TmaNotMap, s->name, s->name);
      return nullptr;
    }
    if (s->type->tma && idx->indices.size() != s->type->Rank()) {
      for (ast::Expr* i : idx->indices) CheckExpr(i);
      diags_.Report(arg->range, DiagKind::TmaOriginRank, s->name, s->type->Rank(), s->type->Rank(), idx->indices.size());
      return nullptr;
    }
  }
  tma_operand_ = arg;
  ExprInfo origin = CheckExpr(arg);
  tma_operand_ = nullptr;
  if (origin.IsError()) return nullptr;
  if (!ast::dyn_cast<ast::IndexExpr>(arg) || !origin.lvalue_root || !origin.lvalue_root->type->tma ||
      !origin.type->IsScalar()) {
    diags_.Report(arg->range, DiagKind::TmaOrigin, index + 1, name);
    return nullptr;
  }
  return origin.lvalue_root;
}

// The tile: a shared tensor of the map's element type, or a view of one
// (`sa[stage]`), whose shape is the box (leading dimensions of 1 may be
// left out), laid out as TMA writes shared memory: row-major, or with
// rows of exactly one swizzle span and the matching swizzle (the
// hardware's Swizzle<B, 4, 3> on byte addresses: swizzle(B, 4 - log2(e), 3)
// for elements of e bytes, B = 1, 2, 3 for 32, 64, 128 bytes).
bool Checker::CheckTmaTile(ast::CallExpr* call, size_t index, const Symbol& map, const std::string& name) {
  ast::Expr* arg = call->args[index];
  ExprInfo tile = CheckExpr(arg);
  if (tile.IsError()) return false;
  const Type* t = tile.type;
  const Type* m = map.type;
  if (!t->IsTensor() || t->scope != MemScope::Shared || t->mbarrier || t->scalar != m->scalar || t->Rank() > m->Rank()) {
    diags_.Report(arg->range, DiagKind::BuiltinArgType, index + 1, name,
                  fmt::format("a shared {} tile of rank at most {} (the element type and rank of '{}')",
                              ScalarName(m->scalar), m->Rank(), map.name),
                  t->ToString());
    return false;
  }
  for (const Dim& d : t->dims)
    if (!d.is_const) return false;  // shared dimensions are constants (checked at the declaration)
  int64_t elem = ScalarBytes(t->scalar);
  int64_t row_bytes = t->dims.back().value * elem;
  std::string shown = ast::PrintExpr(arg), type = t->ToString() + " " + t->layout.ToString();
  auto bad = [&](const std::string& what) {
    diags_.Report(arg->range, DiagKind::TmaTile, name, shown, type, what);
    return false;
  };
  for (const Dim& d : t->dims)
    if (d.value > 256) return bad("at most 256 elements along each dimension (a TMA box's limit)");
  if (row_bytes % 16 != 0) return bad("made of rows of a multiple of 16 bytes (TMA moves 16-byte pieces)");
  int64_t swizzle = 0;
  const Layout& L = t->layout;
  if (L.kind == Layout::Kind::Swizzle) {
    int64_t log_e = elem == 1 ? 0 : elem == 2 ? 1 : elem == 4 ? 2 : 3;
    bool fits = L.args.size() == 3 && L.args[0].is_const && L.args[1].is_const && L.args[2].is_const &&
                L.args[0].value >= 1 && L.args[0].value <= 3 && L.args[1].value == 4 - log_e && L.args[2].value == 3;
    if (fits) swizzle = int64_t{16} << L.args[0].value;
    if (!fits || row_bytes != swizzle)
      return bad(fmt::format("row-major, or swizzled as TMA writes it: swizzle(1, {0}, 3), swizzle(2, {0}, 3) or "
                             "swizzle(3, {0}, 3) with rows of {1}, {2} or {3} elements respectively (32, 64 or 128 "
                             "bytes){4}",
                             4 - log_e, 32 / elem, 64 / elem, 128 / elem,
                             fits ? fmt::format("; its rows have {} elements ({} bytes)", row_bytes / elem, row_bytes)
                                  : std::string()));
  } else if (L.kind != Layout::Kind::RowMajor) {
    return bad("row-major, or swizzled as TMA writes it");
  }
  // A view (`sa[stage]`) starts at a multiple of the tile's size: TMA needs
  // 128-byte aligned tiles, and a whole swizzle period (8 rows) for the
  // swizzle to match the tile's own offsets.
  int64_t bytes = elem;
  for (const Dim& d : t->dims) bytes *= d.value;
  int64_t align = std::max<int64_t>(128, 8 * swizzle);
  auto* view = ast::dyn_cast<ast::IndexExpr>(arg);
  if (view && bytes % align != 0) {
    diags_.Report(arg->range, DiagKind::TmaTileAlign, align, ast::PrintExpr(view->base), bytes);
    return false;
  }
  // The box: the tile's shape with leading 1s up to the map's rank. One
  // per tensor map.
  std::vector<int64_t> box(m->Rank() - t->Rank(), 1);
  for (const Dim& d : t->dims) box.push_back(d.value);
  auto spell = [](const std::vector<int64_t>& b, int64_t sw) {
    std::string s;
    for (int64_t v : b) s += (s.empty() ? "" : ", ") + std::to_string(v);
    return std::pair{s, sw ? fmt::format("with the {}-byte swizzle", sw) : std::string("unswizzled")};
  };
  auto [it, fresh] = tma_boxes_.emplace(&map, TmaBox{box, swizzle, arg->range});
  if (!fresh && (it->second.box != box || it->second.swizzle != swizzle)) {
    auto [here, here_sw] = spell(box, swizzle);
    auto [before, before_sw] = spell(it->second.box, it->second.swizzle);
    diags_.Report(arg->range, DiagKind::TmaBoxMismatch, map.name, here, here_sw, before, before_sw)
        .Note(it->second.at, DiagKind::NoteTmaBoxBefore, map.name);
    return false;
  }
  return true;
}

ExprInfo Checker::CheckTmaCall(ast::CallExpr* e, const std::string& name) {
  ExprInfo void_info{types_.Void(), std::nullopt, false, nullptr};
  if (name == "tma_store_commit") return void_info;
  if (name == "tma_store_wait") {
    std::optional<int64_t> n = EvalInt(e->args[0], "the group count of tma_store_wait");
    if (!n) return ErrorInfo();
    if (*n < 0 || *n > 7) {
      diags_.Report(e->args[0]->range, DiagKind::TmaStoreWaitRange, *n);
      return ErrorInfo();
    }
    return void_info;
  }
  if (name == "tma_load") {
    // tma_load(tile, A[c0, ...], bar[i], mask?)
    Symbol* map = CheckTmaOrigin(e->args[1], 1, name);
    if (!map) CheckExpr(e->args[0]);  // still checked (and its names used)
    bool ok = map && CheckTmaTile(e, 0, *map, name);
    ok = CheckMbarrierOperand(e->args[2], 2, name) && ok;
    if (e->args.size() == 4) ok = CheckClusterOperand(e->args[3], true) && ok;
    return ok ? void_info : ErrorInfo();
  }
  // tma_store(A[c0, ...], tile): A must be one of the op's results.
  Symbol* map = CheckTmaOrigin(e->args[0], 0, name);
  if (!map) CheckExpr(e->args[1]);
  bool ok = map && CheckTmaTile(e, 1, *map, name);
  if (ok && kernel_instance_ && !kernel_instance_->outputs.empty() &&
      std::find(kernel_instance_->outputs.begin(), kernel_instance_->outputs.end(), map->name) ==
          kernel_instance_->outputs.end()) {
    diags_.Report(e->args[0]->range, DiagKind::TmaStoreToInput, map->name);
    ok = false;
  }
  return ok ? void_info : ErrorInfo();
}

}  // namespace tmc::sema
