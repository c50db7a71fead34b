// Op definitions: declarative tensor expressions. Index variables range over
// the output shape (for `out`) or over the extents inferred from the tensor
// dimensions they index (for `let` intermediates); reductions bind their own.
#include <algorithm>

#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"

namespace tmc::sema {

namespace {

// Whether `e` mentions any of `names` (reduction variables).
bool Mentions(const ast::Expr* e, const std::vector<std::string>& names) {
  if (!e) return false;
  switch (e->kind) {
    case ast::ExprKind::Name:
      return std::find(names.begin(), names.end(), static_cast<const ast::NameExpr*>(e)->name) != names.end();
    case ast::ExprKind::Index: {
      auto* i = static_cast<const ast::IndexExpr*>(e);
      if (Mentions(i->base, names)) return true;
      for (const ast::Expr* x : i->indices)
        if (Mentions(x, names)) return true;
      return false;
    }
    case ast::ExprKind::Member: return Mentions(static_cast<const ast::MemberExpr*>(e)->base, names);
    case ast::ExprKind::Unary: return Mentions(static_cast<const ast::UnaryExpr*>(e)->operand, names);
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      return Mentions(b->lhs, names) || Mentions(b->rhs, names);
    }
    case ast::ExprKind::Ternary: {
      auto* t = static_cast<const ast::TernaryExpr*>(e);
      return Mentions(t->cond, names) || Mentions(t->then_value, names) || Mentions(t->else_value, names);
    }
    case ast::ExprKind::Cast: return Mentions(static_cast<const ast::CastExpr*>(e)->operand, names);
    case ast::ExprKind::Call: {
      for (const ast::Expr* x : static_cast<const ast::CallExpr*>(e)->args)
        if (Mentions(x, names)) return true;
      return false;
    }
    case ast::ExprKind::Reduce: {
      auto* r = static_cast<const ast::ReduceExpr*>(e);
      for (const auto& v : r->vars)
        if (Mentions(v.extent, names)) return true;
      return Mentions(r->body, names);
    }
    default: return false;
  }
}

// The terms of a chain of + and - with their signs (a + b - c: +a, +b, -c).
void AdditiveTerms(ast::Expr* e, char sign, std::vector<std::pair<ast::Expr*, char>>* out) {
  auto* b = ast::dyn_cast<ast::BinaryExpr>(e);
  if (b && (b->op == ast::BinaryOp::Add || b->op == ast::BinaryOp::Sub)) {
    AdditiveTerms(b->lhs, sign, out);
    AdditiveTerms(b->rhs, b->op == ast::BinaryOp::Sub ? (sign == '-' ? '+' : '-') : sign, out);
    return;
  }
  out->emplace_back(e, sign);
}

}  // namespace

// `sum(k < K) a[k] * b[k] + bias`: the body of a reduction extends to the
// right as far as it can, so `bias` is added K times. A term of the body's
// top-level sum that does not depend on the reduction variables is almost
// always meant to be outside: warn, and say how to write it.
void Checker::WarnInvariantReductionTerms(ast::ReduceExpr* r) {
  std::vector<std::string> vars;
  for (const auto& v : r->vars) vars.push_back(v.name.name);
  std::vector<std::pair<ast::Expr*, char>> terms;
  AdditiveTerms(r->body, '+', &terms);
  if (terms.size() < 2) return;
  for (auto [t, sign] : terms)
    if (!Mentions(t, vars)) {
      std::string term = ast::PrintExpr(t);
      const std::string& op = r->reducer.name;
      std::string counted = op == "sum" ? "added at every iteration" : "part of every iteration's value";
      diags_.Report(t->range, DiagKind::ReductionInvariantTerm, term, vars.front(), op, counted, op,
                    std::string(1, sign), term);
      return;
    }
}

ExprInfo Checker::CheckOpExpr(ast::Expr* e) {
  if (auto* idx = ast::dyn_cast<ast::IndexExpr>(e)) {
    std::optional<IndexOperands> operands = CheckIndexOperands(idx);
    if (!operands) return ErrorInfo();
    const Type* t = operands->base.type;
    bool ok = true;
    for (size_t k = 0; k < idx->indices.size(); ++k) {
      // A bare index variable covers exactly this dimension.
      auto* n = ast::dyn_cast<ast::NameExpr>(idx->indices[k]);
      Symbol* v = n ? scope_->Lookup(n->name) : nullptr;
      if (!v || !v->op_index) continue;
      if (!v->extent) {
        v->extent = t->dims[k];
      } else if (!(*v->extent == t->dims[k])) {
        diags_.Report(idx->indices[k]->range, DiagKind::IndexExtentMismatch, v->name,
                      v->extent->ToString(), k, operands->name, t->dims[k].ToString());
        ok = false;
      }
    }
    if (!ok) return ErrorInfo();
    return Scalar(t->scalar);
  }
  auto* r = static_cast<ast::ReduceExpr*>(e);
  const std::string& op = r->reducer.name;
  if (!ast::IsReducer(op)) {
    diags_.Report(r->reducer.range, DiagKind::UnknownReducer, op);
    return ErrorInfo();
  }
  PushScope();
  bool ok = true;
  for (ast::ReduceExpr::Var& v : r->vars) {
    std::optional<Dim> extent = ResolveDim(v.extent, "reduction extent");
    ok = ok && extent;
    Symbol s;
    s.name = v.name.name;
    s.decl_range = v.name.range;
    s.type = types_.Scalar(ScalarKind::I32);
    s.op_index = true;
    s.extent = extent;
    s.used = true;
    if (Symbol* outer = scope_->parent()->Lookup(v.name.name); outer && outer->op_index) {
      diags_.Report(v.name.range, DiagKind::ShadowedIndex, v.name.name)
          .Note(outer->decl_range, DiagKind::NoteDeclaredHere, v.name.name);
      ok = false;
      s.op_index = false;  // no extent checks on a variable already in error
    }
    Declare(std::move(s));
  }
  ExprInfo body = CheckExpr(r->body);
  PopScope();
  if (!ok || body.IsError()) return ErrorInfo();
  WarnInvariantReductionTerms(r);
  if (!body.type->IsNumeric()) {
    diags_.Report(r->body->range, DiagKind::IncompatibleTypes, "reduction body", body.type->ToString(), "a number");
    return ErrorInfo();
  }
  if (body.untyped_literal)
    return Scalar(body.value && body.value->kind == ConstValue::Kind::Float ? ScalarKind::F32 : ScalarKind::I32);
  return Scalar(body.type->scalar);
}

void Checker::CheckOp(ast::OpDecl* decl) {
  body_ = BodyKind::Op;
  // A generic op is checked once, with its type parameters as f32; calls
  // and `implements` bind them to the actual (floating-point) types.
  type_bindings_.clear();
  for (const ast::Ident& p : decl->type_params) {
    if (type_bindings_.count(p.name)) diags_.Report(p.range, DiagKind::Redefinition, p.name);
    type_bindings_[p.name] = ScalarKind::F32;
  }
  PushScope();
  BindShapeSymbols(decl->params);
  DeclareParams(decl->params, /*read_only=*/true);
  // The results: one (`-> T[...]`, assigned as `out`) or several, named.
  std::vector<const Type*> results;
  std::string result_names;
  for (const ast::Param& r : decl->results) {
    results.push_back(ResolveResultType(r.type, /*allow_free=*/true));
    result_names += (result_names.empty() ? "" : ", ") + r.name.name;
  }
  bool single = decl->results.size() == 1;
  // Result names are new names: not an input's, not another result's.
  for (size_t r = 0; r < decl->results.size(); ++r) {
    const ast::Ident& name = decl->results[r].name;
    bool clash = false;
    for (const ast::Param& p : decl->params) clash = clash || p.name.name == name.name;
    for (size_t q = 0; q < r; ++q) clash = clash || decl->results[q].name.name == name.name;
    if (clash) diags_.Report(name.range, DiagKind::Redefinition, name.name);
  }
  std::vector<const ast::OpStmt*> assigned(decl->results.size(), nullptr);
  const ast::OpStmt* first_out = nullptr;

  for (ast::OpStmt& st : decl->body) {
    if (diags_.ShouldStop()) break;
    const Type* result = types_.Error();
    if (!st.is_let) {
      size_t which = decl->results.size();
      for (size_t r = 0; r < decl->results.size(); ++r)
        if (decl->results[r].name.name == st.name.name) which = r;
      if (which == decl->results.size()) {
        if (single) diags_.Report(st.name.range, DiagKind::OpOutputName, st.name.name);
        else diags_.Report(st.name.range, DiagKind::OpOutputNotResult, st.name.name, decl->name.name, result_names);
        continue;
      }
      if (assigned[which]) {
        diags_.Report(st.name.range, DiagKind::DuplicateOpOutput, st.name.name)
            .Note(assigned[which]->name.range, DiagKind::NotePreviousDefinition);
        continue;
      }
      assigned[which] = &st;
      if (!first_out) first_out = &st;
      result = results[which];
      if (!result->IsError() && st.indices.size() != result->Rank()) {
        diags_.Report(st.range, DiagKind::OutputIndexCount, result->Rank(), st.name.name,
                      Plural(st.indices.size(), "index", "indices"));
        continue;
      }
    } else if (first_out) {
      diags_.Report(st.name.range, DiagKind::OpLetAfterOut, st.name.name, first_out->name.name);
    }
    PushScope();
    std::vector<Symbol*> index_vars;
    for (size_t k = 0; k < st.indices.size(); ++k) {
      Symbol s;
      s.name = st.indices[k].name;
      s.decl_range = st.indices[k].range;
      s.type = types_.Scalar(ScalarKind::I32);
      s.op_index = true;
      s.used = true;
      if (!st.is_let && !result->IsError()) s.extent = result->dims[k];
      index_vars.push_back(Declare(std::move(s)));
    }
    ExprInfo value = CheckExpr(st.value);
    bool ok = !value.IsError();
    if (ok && !st.is_let && !result->IsError())
      ok = Convertible(value, result->scalar, st.value->range, "the op's result");
    else if (ok && !value.type->IsScalar()) {
      diags_.Report(st.value->range, DiagKind::NotAValueType, value.type->ToString());
      ok = false;
    }
    std::vector<Dim> extents;
    for (Symbol* v : index_vars) {
      if (v->extent) {
        extents.push_back(*v->extent);
      } else if (st.is_let) {
        diags_.Report(v->decl_range, DiagKind::CannotInferExtent, v->name);
        ok = false;
      }
    }
    PopScope();
    if (!st.is_let) continue;
    Symbol t;
    t.name = st.name.name;
    t.decl_range = st.name.range;
    t.used = true;
    t.is_read_only_tensor = true;
    if (!ok) {
      t.type = types_.Error();
    } else {
      ScalarKind elem = value.untyped_literal
                            ? (value.value && value.value->kind == ConstValue::Kind::Float ? ScalarKind::F32 : ScalarKind::I32)
                            : value.type->scalar;
      if (extents.empty()) {
        t.type = types_.Scalar(elem);
      } else {
        Type tt;
        tt.kind = TypeKind::Tensor;
        tt.scalar = elem;
        tt.dims = extents;
        t.kind = Symbol::Kind::Tensor;
        t.type = types_.Make(std::move(tt));
      }
    }
    Declare(std::move(t));
  }
  for (size_t r = 0; r < decl->results.size(); ++r)
    if (!assigned[r]) diags_.Report(decl->name.range, DiagKind::MissingOpOutput, decl->name.name, decl->results[r].name.name);
  PopScope();
  type_bindings_.clear();
}

}  // namespace tmc::sema
