// Written types: scalar and tensor types, dimensions, layouts, and the shape
// symbols that tensor parameters bind (`A: f32[M, K]` binds M and K).
#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"

namespace tmc::sema {
namespace {

// True when every name in `e` is a compile-time or shape name (dimensions
// may not depend on run-time values).
bool OnlyShapeNames(const ast::Expr* e, Scope* scope, const ast::Expr** bad) {
  if (!e) return true;
  switch (e->kind) {
    case ast::ExprKind::Name: {
      Symbol* s = scope->Lookup(static_cast<const ast::NameExpr*>(e)->name);
      if (s && s->kind == Symbol::Kind::Value && !s->value) {
        *bad = e;
        return false;
      }
      return true;
    }
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      return OnlyShapeNames(b->lhs, scope, bad) && OnlyShapeNames(b->rhs, scope, bad);
    }
    case ast::ExprKind::Unary:
      return OnlyShapeNames(static_cast<const ast::UnaryExpr*>(e)->operand, scope, bad);
    case ast::ExprKind::Call: {
      for (const ast::Expr* a : static_cast<const ast::CallExpr*>(e)->args)
        if (!OnlyShapeNames(a, scope, bad)) return false;
      return true;
    }
    case ast::ExprKind::Ternary: {
      auto* t = static_cast<const ast::TernaryExpr*>(e);
      return OnlyShapeNames(t->cond, scope, bad) && OnlyShapeNames(t->then_value, scope, bad) &&
             OnlyShapeNames(t->else_value, scope, bad);
    }
    case ast::ExprKind::IntLit:
    case ast::ExprKind::Member:
      return true;
    default:
      *bad = e;
      return false;
  }
}

}  // namespace

void Checker::BindShapeSymbols(const std::vector<ast::Param>& params) {
  for (const ast::Param& p : params) {
    if (!p.type.is_tensor) continue;
    for (ast::Expr* d : p.type.dims) {
      auto* name = ast::dyn_cast<ast::NameExpr>(d);
      if (!name || scope_->Lookup(name->name)) continue;
      Symbol s;
      s.kind = Symbol::Kind::ShapeSymbol;
      s.name = name->name;
      s.decl_range = d->range;
      s.type = types_.Scalar(ScalarKind::I32);
      s.used = true;
      scope_->Insert(std::move(s));
    }
  }
}

std::optional<Dim> Checker::ResolveDim(ast::Expr* e) {
  ExprInfo info = CheckExpr(e);
  if (info.IsError()) return std::nullopt;
  if (!info.type->IsInteger()) {
    diags_.Report(e->range, DiagKind::DimNotInteger, info.type->ToString());
    return std::nullopt;
  }
  if (info.value) {
    if (info.value->i <= 0) {
      diags_.Report(e->range, DiagKind::NonPositiveDim, info.value->i);
      return std::nullopt;
    }
    return Dim::Const(info.value->i);
  }
  const ast::Expr* bad = nullptr;
  if (!OnlyShapeNames(e, scope_, &bad)) {
    diags_.Report(bad->range, DiagKind::DimNotShape);
    return std::nullopt;
  }
  std::string text = ast::PrintExpr(e);
  if (text.size() > 2 && text.front() == '(' && text.back() == ')') text = text.substr(1, text.size() - 2);
  return Dim::Symbolic(text);
}

const Type* Checker::ResolveType(const ast::TypeSpec& spec, MemScope scope) {
  if (!spec.is_tensor) return types_.Scalar(spec.elem);
  Type t;
  t.kind = TypeKind::Tensor;
  t.scalar = spec.elem;
  t.scope = scope;
  if (spec.dims.empty()) {
    diags_.Report(spec.range, DiagKind::EmptyTensorShape);
    return types_.Error();
  }
  bool ok = true;
  for (ast::Expr* d : spec.dims) {
    std::optional<Dim> dim = ResolveDim(d);
    if (!dim) {
      ok = false;
      continue;
    }
    t.dims.push_back(*dim);
  }
  if (spec.layout) {
    const ast::LayoutSpec& l = *spec.layout;
    size_t want = 0;
    if (l.name.name == "row_major") {
      t.layout.kind = Layout::Kind::RowMajor;
    } else if (l.name.name == "col_major") {
      t.layout.kind = Layout::Kind::ColMajor;
    } else if (l.name.name == "strided") {
      t.layout.kind = Layout::Kind::Strided;
      want = spec.dims.size();
    } else if (l.name.name == "swizzle") {
      t.layout.kind = Layout::Kind::Swizzle;
      want = 3;
    } else {
      diags_.Report(l.name.range, DiagKind::UnknownLayout, l.name.name);
      return types_.Error();
    }
    if (l.args.size() != want) {
      diags_.Report(l.range, DiagKind::LayoutArity, l.name.name, want, l.args.size());
      return types_.Error();
    }
    for (ast::Expr* a : l.args) {
      if (t.layout.kind == Layout::Kind::Swizzle) {
        std::optional<int64_t> v = EvalInt(a, "a swizzle parameter");
        if (!v) return types_.Error();
        t.layout.args.push_back(Dim::Const(*v));
      } else if (std::optional<Dim> d = ResolveDim(a)) {
        t.layout.args.push_back(*d);
      } else {
        return types_.Error();
      }
    }
  }
  return ok ? types_.Make(std::move(t)) : types_.Error();
}

void Checker::DeclareParams(const std::vector<ast::Param>& params, bool read_only) {
  for (const ast::Param& p : params) {
    Symbol s;
    s.name = p.name.name;
    s.decl_range = p.name.range;
    s.type = ResolveType(p.type, MemScope::Global);
    s.kind = p.type.is_tensor ? Symbol::Kind::Tensor : Symbol::Kind::Value;
    s.is_read_only_tensor = read_only && p.type.is_tensor;
    s.used = true;
    Declare(std::move(s));
  }
}

const Type* Checker::ResolveResultType(const ast::TypeSpec& result) {
  bool bound = true;
  for (ast::Expr* d : result.dims) {
    auto* n = ast::dyn_cast<ast::NameExpr>(d);
    if (n && !scope_->Lookup(n->name)) {
      diags_.Report(d->range, DiagKind::UnboundResultDim, n->name);
      bound = false;
    }
  }
  return bound ? ResolveType(result, MemScope::Global) : types_.Error();
}

bool Checker::SameType(const Type* a, const Type* b) const {
  return a->kind == b->kind && a->scalar == b->scalar && a->dims == b->dims &&
         a->scope == b->scope;
}

}  // namespace tmc::sema
