// Written types: scalar and tensor types, dimensions, layouts, and the shape
// symbols that tensor parameters bind (`A: f32[M, K]` binds M and K).
#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"

#include <functional>
#include <set>

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
      // `X: T[T]` with T an element-type parameter: not a shape symbol too.
      if (type_bindings_.count(name->name) && body_ == BodyKind::Kernel) {
        diags_.Report(d->range, DiagKind::TypeParamAsDim, name->name);
        continue;
      }
      DeclareShapeSymbol(name->name, d->range);
    }
  }
}

void Checker::DeclareShapeSymbol(const std::string& name, SourceRange range) {
  Symbol s;
  s.kind = Symbol::Kind::ShapeSymbol;
  s.name = name;
  s.decl_range = range;
  s.type = types_.Scalar(ScalarKind::I32);
  s.used = true;
  scope_->Insert(std::move(s));
}

std::optional<Dim> Checker::ResolveDim(ast::Expr* e, std::string_view what) {
  ExprInfo info = CheckExpr(e);
  if (info.IsError()) return std::nullopt;
  if (!info.type->IsInteger()) {
    diags_.Report(e->range, DiagKind::DimNotInteger, what, info.type->ToString());
    return std::nullopt;
  }
  if (info.value) {
    ExactInt v = ExactValue(*info.value, info.type->scalar);
    if (v <= 0) {
      diags_.Report(e->range, DiagKind::NonPositiveDim, what, ExactString(v));
      return std::nullopt;
    }
    if (!ExactFits(v, ScalarKind::I64)) {
      diags_.Report(e->range, DiagKind::ConstOverflow, "i64");
      return std::nullopt;
    }
    return Dim::Const(info.value->i);
  }
  const ast::Expr* bad = nullptr;
  if (!OnlyShapeNames(e, scope_, &bad)) {
    diags_.Report(bad->range, DiagKind::DimNotShape, what);
    return std::nullopt;
  }
  std::string text = ast::PrintExpr(e);
  if (text.size() > 2 && text.front() == '(' && text.back() == ')') text = text.substr(1, text.size() - 2);
  return Dim::Symbolic(text);
}

ScalarKind Checker::ElemOf(const ast::TypeSpec& spec, const std::map<std::string, ScalarKind>& bindings) const {
  if (!spec.param) return spec.elem;
  auto it = bindings.find(spec.param->name);
  return it != bindings.end() ? it->second : ScalarKind::F32;
}

bool Checker::BindTypeParams(const ast::OpDecl& op, const std::vector<const ast::TypeSpec*>& specs,
                             const std::vector<const Type*>& types, const std::vector<SourceRange>& where,
                             std::map<std::string, ScalarKind>* bindings) {
  std::map<std::string, size_t> bound_at;
  for (size_t i = 0; i < specs.size() && i < types.size(); ++i) {
    if (!specs[i]->param || !types[i] || types[i]->IsError()) continue;
    const std::string& name = specs[i]->param->name;
    ScalarKind k = types[i]->scalar;
    auto it = bindings->find(name);
    if (it == bindings->end()) {
      if (!IsFloat(k)) {
        diags_.Report(where[i], DiagKind::TypeParamNotFloat, name, op.name.name, ScalarName(k));
        return false;
      }
      (*bindings)[name] = k;
      bound_at[name] = i;
    } else if (it->second != k) {
      diags_.Report(where[i], DiagKind::TypeParamMismatch, op.name.name, name, ScalarName(it->second),
                    bound_at[name] + 1, ScalarName(k), i + 1);
      return false;
    }
  }
  return true;
}

namespace {

// Every written type inside a statement tree.
void ForEachTypeSpec(const ast::Stmt* s, const std::function<void(const ast::TypeSpec&)>& fn) {
  if (!s) return;
  switch (s->kind) {
    case ast::StmtKind::Block:
      for (const ast::Stmt* c : static_cast<const ast::BlockStmt*>(s)->stmts) ForEachTypeSpec(c, fn);
      return;
    case ast::StmtKind::Let:
      if (auto& t = static_cast<const ast::LetStmt*>(s)->type) fn(*t);
      return;
    case ast::StmtKind::Var:
      if (auto& t = static_cast<const ast::VarStmt*>(s)->type) fn(*t);
      return;
    case ast::StmtKind::Shared: fn(static_cast<const ast::SharedStmt*>(s)->type); return;
    case ast::StmtKind::Register: fn(static_cast<const ast::RegisterStmt*>(s)->type); return;
    case ast::StmtKind::If: {
      auto* i = static_cast<const ast::IfStmt*>(s);
      ForEachTypeSpec(i->then_body, fn);
      ForEachTypeSpec(i->else_body, fn);
      return;
    }
    case ast::StmtKind::For: ForEachTypeSpec(static_cast<const ast::ForStmt*>(s)->body, fn); return;
    case ast::StmtKind::While: ForEachTypeSpec(static_cast<const ast::WhileStmt*>(s)->body, fn); return;
    default: return;
  }
}

}  // namespace

void Checker::CheckTypeNames(const ast::Decl* decl) {
  std::set<std::string> declared;
  if (auto* op = ast::dyn_cast<ast::OpDecl>(decl))
    for (const ast::Ident& p : op->type_params) declared.insert(p.name);
  // A kernel's element-type parameters (`T: type`), and `type` itself there.
  if (auto* k = ast::dyn_cast<ast::KernelDecl>(decl))
    for (const ast::CtParam& p : k->ct_params)
      if (p.type.param && p.type.param->name == "type" && !p.type.is_tensor) {
        declared.insert(p.name.name);
        declared.insert("type");
      }
  // `mbarrier` names the element type of shared mbarrier arrays (ResolveType
  // checks where, and says where they go to a function that takes one),
  // unless a type parameter takes the name.
  if (decl->kind == ast::DeclKind::Kernel || decl->kind == ast::DeclKind::Func) declared.insert("mbarrier");
  auto check = [&](const ast::TypeSpec& t) {
    if (t.param && !declared.count(t.param->name)) diags_.Report(t.param->range, DiagKind::UnknownType, t.param->name);
  };
  auto params = [&](const std::vector<ast::Param>& ps) {
    for (const ast::Param& p : ps) check(p.type);
  };
  switch (decl->kind) {
    case ast::DeclKind::Const:
      if (auto& t = static_cast<const ast::ConstDecl*>(decl)->type) check(*t);
      return;
    case ast::DeclKind::Op: {
      auto* op = static_cast<const ast::OpDecl*>(decl);
      params(op->params);
      params(op->results);
      return;
    }
    case ast::DeclKind::Kernel: {
      auto* k = static_cast<const ast::KernelDecl*>(decl);
      for (const ast::CtParam& p : k->ct_params) check(p.type);
      params(k->params);
      ForEachTypeSpec(k->body, check);
      return;
    }
    case ast::DeclKind::Func: {
      auto* f = static_cast<const ast::FuncDecl*>(decl);
      params(f->params);
      if (f->result) check(*f->result);
      ForEachTypeSpec(f->body, check);
      return;
    }
    case ast::DeclKind::Graph: {
      auto* g = static_cast<const ast::GraphDecl*>(decl);
      params(g->params);
      check(g->result);
      ForEachTypeSpec(g->body, check);
      return;
    }
  }
}

const Type* Checker::ResolveType(const ast::TypeSpec& spec, MemScope scope) {
  // `shared bar: mbarrier[N]`: an array of 64-bit mbarrier objects in the
  // block's shared memory, for the mbarrier built-ins only.
  bool mbarrier = spec.param && spec.param->name == "mbarrier" && !type_bindings_.count("mbarrier");
  if (mbarrier && (!spec.is_tensor || scope != MemScope::Shared || spec.layout || body_ != BodyKind::Kernel)) {
    diags_.Report(spec.range, DiagKind::MbarrierPlacement);
    return types_.Error();
  }
  ScalarKind elem = mbarrier ? ScalarKind::U64 : ElemOf(spec, type_bindings_);
  if (!spec.is_tensor) return types_.Scalar(elem);
  Type t;
  t.kind = TypeKind::Tensor;
  t.scalar = elem;
  t.scope = scope;
  t.mbarrier = mbarrier;
  if (spec.dims.empty()) {
    diags_.Report(spec.range, DiagKind::EmptyTensorShape);
    return types_.Error();
  }
  bool ok = true;
  // Shape symbols are bound before parameter types are resolved, so an
  // unknown name in one of their dimensions was never written alone.
  bool saved = in_param_dims_;
  in_param_dims_ = scope == MemScope::Global;
  for (ast::Expr* d : spec.dims) {
    std::optional<Dim> dim = ResolveDim(d, "tensor dimension");
    if (!dim) {
      ok = false;
      continue;
    }
    t.dims.push_back(*dim);
  }
  in_param_dims_ = saved;
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
      diags_.Report(l.range, DiagKind::LayoutArity, l.name.name, Plural(want, "argument"), l.args.size());
      return types_.Error();
    }
    for (size_t k = 0; k < l.args.size(); ++k) {
      ast::Expr* a = l.args[k];
      if (t.layout.kind == Layout::Kind::Swizzle) {
        std::optional<int64_t> v = EvalInt(a, "a swizzle parameter");
        if (!v) return types_.Error();
        t.layout.args.push_back(Dim::Const(*v));
      } else if (std::optional<Dim> d = ResolveDim(a, fmt::format("stride {} of 'strided'", k + 1))) {
        // Offsets are computed with 32-bit strides (and 32-bit offsets in
        // shared and register memory): a larger stride would be truncated.
        if (d->is_const && d->value > INT32_MAX) {
          diags_.Report(a->range, DiagKind::LayoutStrideTooLarge, d->value);
          return types_.Error();
        }
        t.layout.args.push_back(*d);
      } else {
        return types_.Error();
      }
    }
    if (t.layout.kind == Layout::Kind::Swizzle && !CheckSwizzle(l, t.layout)) return types_.Error();
  }
  return ok ? types_.Make(std::move(t)) : types_.Error();
}

// swizzle(B, M, S) XORs the B bits at M + S into the B bits at M (see
// ir/transforms/flatten_buffers.cpp). It permutes offsets only when the two
// bit ranges do not overlap (S >= B, as CUTLASS requires), and its mask must
// fit in a 32-bit offset.
bool Checker::CheckSwizzle(const ast::LayoutSpec& l, const Layout& layout) {
  int64_t b = layout.args[0].value, m = layout.args[1].value, s = layout.args[2].value;
  auto bad = [&](size_t arg, const char* why) {
    diags_.Report(l.args[arg]->range, DiagKind::InvalidSwizzle, b, m, s, why);
    return false;
  };
  if (b < 0) return bad(0, "the number of bits B must not be negative");
  if (m < 0) return bad(1, "the base M must not be negative");
  if (s < b) return bad(2, "the shift S must be at least B, or the XORed bits overlap the bits they change");
  if (m > 31 || s > 31 || b + m + s > 31) return bad(m > 31 ? 1 : 2, "B + M + S must be at most 31, the bits of a 32-bit offset");
  return true;
}

// A function's fragment parameters (`acc: f32[16, 8] by mma_c`) have their
// mappings evaluated before any body is checked, so that calls from
// kernels above the function can compare distributions.
void Checker::ResolveParamMappings(ast::FuncDecl* decl) {
  for (const ast::Param& p : decl->params) {
    if (!p.by || IsTmaMarker(p.by)) continue;  // `by tma`: reported by DeclareParams
    ExprInfo m = CheckExpr(p.by);
    if (!m.IsError() && m.type->kind != TypeKind::Mapping)
      diags_.Report(p.by->range, DiagKind::ByNotMapping, m.type->ToString());
    resolved_by_.insert(p.by);
  }
}

void Checker::DeclareParams(const std::vector<ast::Param>& params, bool read_only) {
  for (const ast::Param& p : params) {
    Symbol s;
    s.name = p.name.name;
    s.decl_range = p.name.range;
    bool tma = p.by && IsTmaMarker(p.by);
    s.type = ResolveType(p.type, p.by && !tma ? MemScope::Register : p.shared ? MemScope::Shared : MemScope::Global);
    if (p.shared && (body_ != BodyKind::Func || !p.type.is_tensor || p.by)) {
      diags_.Report(p.name.range, DiagKind::SharedParamOutsideFunc);
      s.type = types_.Error();
    } else if (tma && body_ != BodyKind::Kernel) {
      diags_.Report(p.by->range, DiagKind::TmaParamOutsideKernel);
      s.type = types_.Error();
    } else if (tma) {
      // `A: T[M, K] by tma`: the runtime passes a TMA tensor map of A
      // (docs/language.md, "TMA").
      const Type* t = s.type;
      size_t bytes = t->IsTensor() ? ScalarBytes(t->scalar) : 0;
      if (!t->IsError() && (!t->IsTensor() || t->Rank() < 1 || t->Rank() > 5 || t->layout.kind != Layout::Kind::RowMajor ||
                            t->scalar == ScalarKind::Bool || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))) {
        diags_.Report(p.by->range, DiagKind::TmaParamType, t->ToString() + (t->IsTensor() ? " " + t->layout.ToString() : ""));
        s.type = types_.Error();
      } else if (!t->IsError()) {
        Type tma = *t;
        tma.tma = true;
        s.type = types_.Make(std::move(tma));
      }
    } else if (p.by && body_ != BodyKind::Func) {
      diags_.Report(p.by->range, DiagKind::ByParamOutsideFunc);
      s.type = types_.Error();
    } else if (p.by) {
      s.type = DistributeBy(s.type, p.by);
    } else if (body_ == BodyKind::Func && s.type->IsTensor() && s.type->layout.kind != Layout::Kind::RowMajor) {
      // Calls pass row-major tensors only (FuncArgLayout), and the body
      // would index one with the declared layout.
      diags_.Report(p.type.layout->range, DiagKind::FuncParamLayout, p.name.name, s.type->layout.ToString());
      s.type = types_.Error();
    }
    s.kind = p.type.is_tensor ? Symbol::Kind::Tensor : Symbol::Kind::Value;
    s.is_read_only_tensor = read_only && p.type.is_tensor;
    s.used = true;
    Declare(std::move(s));
  }
}

const Type* Checker::ResolveResultType(const ast::TypeSpec& result, bool allow_free) {
  bool bound = true;
  for (ast::Expr* d : result.dims) {
    auto* n = ast::dyn_cast<ast::NameExpr>(d);
    if (!n || scope_->Lookup(n->name)) continue;
    if (allow_free) {
      // An op's result dimension that no input determines (a convolution's
      // output size): a shape symbol the caller gives with the result.
      DeclareShapeSymbol(n->name, d->range);
      continue;
    }
    diags_.Report(d->range, DiagKind::UnboundResultDim, n->name);
    bound = false;
  }
  return bound ? ResolveType(result, MemScope::Global) : types_.Error();
}

bool Checker::SameType(const Type* a, const Type* b) const {
  return a->kind == b->kind && a->scalar == b->scalar && a->dims == b->dims &&
         a->scope == b->scope;
}

}  // namespace tmc::sema
