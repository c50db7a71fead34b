// Graphs: ops composed over whole tensors. Op calls bind the op's shape
// symbols from the arguments (and must bind them consistently); element-wise
// arithmetic between tensors broadcasts as numpy does.
#include <algorithm>

#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"

namespace tmc::sema {
namespace {

std::string DimsString(const std::vector<Dim>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].ToString();
  return "[" + s + "]";
}

}  // namespace

bool Checker::CheckGraphScalar(const ast::Expr* e) {
  const ast::Expr* x = e;
  if (auto* u = ast::dyn_cast<ast::UnaryExpr>(x); u && u->op == ast::UnaryOp::Neg) x = u->operand;
  if (ast::dyn_cast<ast::IntLit>(x) || ast::dyn_cast<ast::FloatLit>(x) || ast::dyn_cast<ast::BoolLit>(x) ||
      (ast::dyn_cast<ast::NameExpr>(x) && x == e))
    return true;
  // Scalar arithmetic and math (`1.0 / t`, `exp(t)`, `f16(a)`) would run
  // on the host before the kernels, which a launch plan does not do.
  diags_.Report(e->range, DiagKind::GraphScalarExpression, ast::PrintExpr(e));
  return false;
}

ExprInfo Checker::CheckGraphExpr(ast::Expr* expr) {
  auto* e = static_cast<ast::BinaryExpr*>(expr);
  ExprInfo l = CheckExpr(e->lhs);
  ExprInfo r = CheckExpr(e->rhs);
  if (l.IsError() || r.IsError()) return ErrorInfo();
  if (!l.type->IsTensor() && !r.type->IsTensor()) {
    if (!l.type->IsScalar() || !r.type->IsScalar()) {
      diags_.Report(e->op_range, DiagKind::InvalidBinaryOperands, ast::Spelling(e->op),
                    l.type->ToString(), r.type->ToString());
      return ErrorInfo();
    }
    if (!graph_values_) return Arith(e, l, r);
    CheckGraphScalar(expr);
    return ErrorInfo();
  }
  if (graph_values_ && !l.type->IsTensor() && !CheckGraphScalar(e->lhs)) return ErrorInfo();
  if (graph_values_ && !r.type->IsTensor() && !CheckGraphScalar(e->rhs)) return ErrorInfo();
  bool arith = e->op == ast::BinaryOp::Add || e->op == ast::BinaryOp::Sub ||
               e->op == ast::BinaryOp::Mul || e->op == ast::BinaryOp::Div;
  const Type* lt = l.type;
  const Type* rt = r.type;
  bool types_ok = arith && (lt->IsTensor() || lt->IsScalar()) && (rt->IsTensor() || rt->IsScalar());
  if (types_ok && lt->IsTensor() && rt->IsTensor()) types_ok = lt->scalar == rt->scalar;
  if (!types_ok) {
    diags_.Report(e->op_range, DiagKind::InvalidBinaryOperands, ast::Spelling(e->op),
                  lt->ToString(), rt->ToString());
    return ErrorInfo();
  }
  if (!lt->IsTensor() && !Convertible(l, rt->scalar, e->lhs->range, "operand")) return ErrorInfo();
  if (!rt->IsTensor() && !Convertible(r, lt->scalar, e->rhs->range, "operand")) return ErrorInfo();
  if (!lt->IsTensor()) return ExprInfo{rt, std::nullopt, false, nullptr};
  if (!rt->IsTensor()) return ExprInfo{lt, std::nullopt, false, nullptr};
  // Broadcast, aligning trailing dimensions.
  std::vector<Dim> dims;
  size_t n = std::max(lt->Rank(), rt->Rank());
  for (size_t i = 0; i < n; ++i) {
    const Dim* a = i < lt->Rank() ? &lt->dims[lt->Rank() - 1 - i] : nullptr;
    const Dim* b = i < rt->Rank() ? &rt->dims[rt->Rank() - 1 - i] : nullptr;
    // A missing dimension or a 1 takes the other side's (a 1 against a
    // missing one stays 1).
    if (!b) dims.push_back(*a);
    else if (!a) dims.push_back(*b);
    else if (a->is_const && a->value == 1) dims.push_back(*b);
    else if ((b->is_const && b->value == 1) || *a == *b) dims.push_back(*a);
    else {
      diags_.Report(e->op_range, DiagKind::BroadcastMismatch, DimsString(lt->dims), DimsString(rt->dims));
      return ErrorInfo();
    }
  }
  std::reverse(dims.begin(), dims.end());
  Type t;
  t.kind = TypeKind::Tensor;
  t.scalar = lt->scalar;
  t.dims = dims;
  return ExprInfo{types_.Make(std::move(t)), std::nullopt, false, nullptr};
}

ExprInfo Checker::CheckOpCall(ast::CallExpr* call, const Symbol& op_sym) {
  auto* op = static_cast<const ast::OpDecl*>(op_sym.decl);
  if (op->results.size() != 1) {
    diags_.Report(call->callee.range, DiagKind::GraphMultiResultOp, call->callee.name, op->results.size())
        .Note(op_sym.decl_range, DiagKind::NoteDeclaredHere, call->callee.name);
    return ErrorInfo();
  }
  if (call->args.size() != op->params.size()) {
    diags_.Report(call->range, DiagKind::CallArity, call->callee.name, Plural(op->params.size(), "argument"), call->args.size())
        .Note(op_sym.decl_range, DiagKind::NoteDeclaredHere, call->callee.name);
    return ErrorInfo();
  }
  std::map<std::string, std::pair<Dim, size_t>> bound;  // op dim -> (dim, argument)
  // Type parameters first: they bind from the tensor arguments.
  std::vector<ExprInfo> infos;
  std::vector<const ast::TypeSpec*> specs;
  std::vector<const Type*> arg_types;
  std::vector<SourceRange> where;
  for (size_t i = 0; i < call->args.size(); ++i) {
    const ast::TypeSpec& want = op->params[i].type;
    infos.push_back(want.is_tensor || want.param ? CheckExpr(call->args[i]) : ExprInfo{});
    specs.push_back(&want);
    // An untyped literal adapts to the binding instead of making it.
    arg_types.push_back(infos.back().untyped_literal ? nullptr : infos.back().type);
    where.push_back(call->args[i]->range);
  }
  std::map<std::string, ScalarKind> bindings;
  if (!BindTypeParams(*op, specs, arg_types, where, &bindings)) return ErrorInfo();
  bool ok = true;
  for (size_t i = 0; i < call->args.size(); ++i) {
    const ast::TypeSpec& want = op->params[i].type;
    ScalarKind want_elem = ElemOf(want, bindings);
    if (!want.is_tensor) {
      if (graph_values_ && !infos[i].IsError() && !infos[i].type->IsTensor() && !CheckGraphScalar(call->args[i])) {
        ok = false;
        continue;
      }
      if (want.param && !infos[i].untyped_literal) continue;  // bound from this very argument
      if (want.param) ok = Convertible(infos[i], want_elem, call->args[i]->range, "argument") && ok;
      else ok = !CheckConverted(call->args[i], want_elem, "argument").IsError() && ok;
      continue;
    }
    ExprInfo a = infos[i];
    if (a.IsError()) {
      ok = false;
      continue;
    }
    if (!a.type->IsTensor() || a.type->scalar != want_elem || a.type->Rank() != want.dims.size()) {
      diags_.Report(call->args[i]->range, DiagKind::IncompatibleTypes, "argument",
                    a.type->ToString(), ast::PrintType(want))
          .Note(op->params[i].name.range, DiagKind::NoteDeclaredHere, op->params[i].name.name);
      ok = false;
      continue;
    }
    for (size_t d = 0; d < want.dims.size(); ++d) {
      const Dim& got = a.type->dims[d];
      if (auto* lit = ast::dyn_cast<ast::IntLit>(want.dims[d])) {
        if (!got.is_const || got.value != static_cast<int64_t>(lit->value)) {
          diags_.Report(call->args[i]->range, DiagKind::OpArgDimConst, d, i + 1, got.ToString(),
                        call->callee.name, lit->value);
          ok = false;
        }
        continue;
      }
      std::string name = ast::PrintExpr(want.dims[d]);
      auto [it, inserted] = bound.emplace(name, std::make_pair(got, i));
      if (!inserted && !(it->second.first == got)) {
        diags_.Report(call->args[i]->range, DiagKind::ShapeMismatch, call->callee.name, name,
                      it->second.first.ToString(), it->second.second + 1, got.ToString(), i + 1);
        ok = false;
      }
    }
  }
  if (!ok) return ErrorInfo();
  // A type parameter only the result names has no value here (it became
  // f32, and the graph's declared result type disagreed for no clear reason).
  if (op->result.param && !bindings.count(op->result.param->name) &&
      std::any_of(op->type_params.begin(), op->type_params.end(),
                  [&](const ast::Ident& p) { return p.name == op->result.param->name; })) {
    diags_.Report(call->callee.range, DiagKind::OpResultTypeUnbound, op->result.param->name, call->callee.name)
        .Note(op->name.range, DiagKind::NoteDeclaredHere, op->name.name);
    return ErrorInfo();
  }
  ScalarKind result_elem = ElemOf(op->result, bindings);
  if (!op->result.is_tensor) return Scalar(result_elem);
  Type t;
  t.kind = TypeKind::Tensor;
  t.scalar = result_elem;
  for (ast::Expr* d : op->result.dims) {
    if (auto* lit = ast::dyn_cast<ast::IntLit>(d)) {
      t.dims.push_back(Dim::Const(static_cast<int64_t>(lit->value)));
      continue;
    }
    auto it = bound.find(ast::PrintExpr(d));
    if (it == bound.end()) {
      // A free result dimension: nothing in the graph would determine it.
      diags_.Report(call->range, DiagKind::GraphOpFreeResultDim, call->callee.name, ast::PrintExpr(d))
          .Note(d->range, DiagKind::NoteDeclaredHere, ast::PrintExpr(d));
      return ErrorInfo();
    }
    t.dims.push_back(it->second.first);
  }
  return ExprInfo{types_.Make(std::move(t)), std::nullopt, false, nullptr};
}

void Checker::CheckGraph(ast::GraphDecl* decl) {
  body_ = BodyKind::Graph;
  PushScope();
  BindShapeSymbols(decl->params);
  DeclareParams(decl->params, /*read_only=*/true);
  std::vector<const Type*> results;
  if (decl->results.empty()) results.push_back(ResolveResultType(decl->result));
  for (const ast::Param& r : decl->results) results.push_back(ResolveResultType(r.type));
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i]->IsError() && !results[i]->IsTensor()) {
      const ast::TypeSpec& t = decl->results.empty() ? decl->result : decl->results[i].type;
      diags_.Report(t.range, DiagKind::GraphScalarResult, results[i]->ToString());
      results[i] = types_.Error();
    }
  std::map<std::string, const ast::Param*> params;
  for (const ast::Param& p : decl->params) params[p.name.name] = &p;
  auto count = [](size_t n) { return n == 1 ? std::string("1 value") : std::to_string(n) + " values"; };
  bool returned = false;
  PushScope();
  graph_values_ = true;
  for (ast::Stmt* s : decl->body->stmts) {
    if (diags_.ShouldStop()) break;
    // A let does not shadow a parameter: `x` would mean two tensors.
    if (auto* let = ast::dyn_cast<ast::LetStmt>(s); let && params.count(let->name.name)) {
      diags_.Report(let->name.range, DiagKind::Redefinition, let->name.name)
          .Note(params[let->name.name]->name.range, DiagKind::NoteDeclaredHere, let->name.name);
      continue;
    }
    CheckStmt(s);
    if (auto* let = ast::dyn_cast<ast::LetStmt>(s); let && let->init) {
      // A scalar let is a literal or a name, as every scalar of a graph.
      const Symbol* sym = scope_->Lookup(let->name.name);
      if (sym && sym->type && sym->type->IsScalar()) CheckGraphScalar(let->init);
    }
    auto* ret = ast::dyn_cast<ast::ReturnStmt>(s);
    if (!ret) continue;
    returned = true;
    if (!ret->value) {
      diags_.Report(s->range, DiagKind::MissingReturnValue, results.front()->ToString());
      continue;
    }
    std::vector<ast::Expr*> values = {ret->value};
    values.insert(values.end(), ret->more.begin(), ret->more.end());
    if (values.size() != results.size()) {
      diags_.Report(values[std::min(values.size(), results.size()) - 1]->range, DiagKind::GraphResultCount,
                    decl->name.name, count(values.size()), results.size() == 1 ? "1 result" : std::to_string(results.size()) + " results");
      continue;
    }
    for (size_t i = 0; i < values.size(); ++i) {
      ExprInfo v = CheckExpr(values[i]);
      if (v.IsError() || results[i]->IsError()) continue;
      bool same = v.type->kind == results[i]->kind && v.type->scalar == results[i]->scalar &&
                  v.type->dims == results[i]->dims;
      if (!same)
        diags_.Report(values[i]->range, DiagKind::GraphResultMismatch, decl->name.name, v.type->ToString(),
                      results[i]->ToString());
      if (auto* n = ast::dyn_cast<ast::NameExpr>(values[i]); n && params.count(n->name))
        diags_.Report(values[i]->range, DiagKind::GraphReturnsParameter, decl->name.name, n->name, n->name);
      // The same value twice would be one tensor bound to two outputs.
      for (size_t j = 0; j < i; ++j)
        if (auto* a = ast::dyn_cast<ast::NameExpr>(values[i]), *b = ast::dyn_cast<ast::NameExpr>(values[j]);
            a && b && a->name == b->name)
          diags_.Report(values[i]->range, DiagKind::GraphReturnsTwice, decl->name.name, a->name, a->name);
    }
  }
  graph_values_ = false;
  PopScope();
  if (!returned) diags_.Report(decl->name.range, DiagKind::MissingReturn, decl->name.name);
  PopScope();
}

}  // namespace tmc::sema
