// Statements of kernel and device-function bodies: bindings, local tensors,
// control flow, loops over ranges and task mappings, and assignments.
#include "frontend/check/checker.h"
#include "support/layout_span.h"

namespace tmc::sema {

void Checker::CheckBlock(ast::BlockStmt* block, bool new_scope) {
  if (new_scope) PushScope();
  for (ast::Stmt* s : block->stmts) {
    if (diags_.ShouldStop()) break;
    CheckStmt(s);
  }
  if (new_scope) PopScope();
}

void Checker::CheckStmt(ast::Stmt* stmt) {
  if (body_ == BodyKind::Graph && stmt->kind != ast::StmtKind::Let &&
      stmt->kind != ast::StmtKind::Return) {
    diags_.Report(stmt->range, DiagKind::StmtNotAllowedInGraph);
    return;
  }
  switch (stmt->kind) {
    case ast::StmtKind::Block: CheckBlock(static_cast<ast::BlockStmt*>(stmt)); return;
    case ast::StmtKind::Let: {
      auto* s = static_cast<ast::LetStmt*>(stmt);
      if (s->type && s->type->is_tensor) {
        diags_.Report(s->type->range, DiagKind::TensorVariable, s->name.name);
        CheckExpr(s->init);
        return;
      }
      // `let x: T = ...` with T an element-type parameter: its value here.
      ExprInfo init = s->type ? CheckConverted(s->init, ElemOf(*s->type, type_bindings_), "initializer")
                              : CheckExpr(s->init);
      const Type* t = init.type;
      if (!init.IsError()) {
        // A tensor binding is a view (`let cur = s[stage];`), or a graph value.
        bool view = t->IsTensor() && ast::dyn_cast<ast::IndexExpr>(s->init);
        if (t->IsTensor() && body_ != BodyKind::Graph && !view) {
          diags_.Report(s->init->range, DiagKind::TensorVariable, s->name.name);
          t = types_.Error();
        } else if (t->kind == TypeKind::Void || t->kind == TypeKind::Range ||
                   t->kind == TypeKind::Dim3) {
          diags_.Report(s->init->range, DiagKind::NotAValueType, t->ToString());
          t = types_.Error();
        } else if (init.untyped_literal) {
          t = types_.Scalar(init.value && init.value->kind == ConstValue::Kind::Float
                                ? ScalarKind::F32 : t->scalar);
        }
      }
      Symbol sym;
      sym.kind = t->IsTensor() ? Symbol::Kind::Tensor : Symbol::Kind::Value;
      sym.name = s->name.name;
      sym.decl_range = s->name.range;
      sym.type = t;
      sym.value = init.value;
      sym.warn_unused = true;
      Declare(std::move(sym));
      return;
    }
    case ast::StmtKind::Var: {
      auto* s = static_cast<ast::VarStmt*>(stmt);
      const Type* t = types_.Error();
      if (s->type && s->type->is_tensor) {
        diags_.Report(s->type->range, DiagKind::TensorVariable, s->name.name);
      } else if (!s->type && !s->init) {
        diags_.Report(s->name.range, DiagKind::VarNeedsType, s->name.name);
      } else if (s->type) {
        t = types_.Scalar(ElemOf(*s->type, type_bindings_));
        if (s->init) CheckConverted(s->init, t->scalar, "initializer");
      } else {
        ExprInfo init = CheckExpr(s->init);
        if (!init.IsError()) {
          if (!init.type->IsScalar()) {
            diags_.Report(s->init->range, DiagKind::NotAValueType, init.type->ToString());
          } else {
            t = init.untyped_literal && init.value && init.value->kind == ConstValue::Kind::Float
                    ? types_.Scalar(ScalarKind::F32)
                    : init.type;
          }
        }
      }
      Symbol sym;
      sym.name = s->name.name;
      sym.decl_range = s->name.range;
      sym.type = t;
      sym.is_mutable = true;
      sym.warn_unused = true;
      Declare(std::move(sym));
      return;
    }
    case ast::StmtKind::Shared: {
      auto* s = static_cast<ast::SharedStmt*>(stmt);
      CheckLocalTensor(stmt, s->name, s->type, nullptr, MemScope::Shared);
      return;
    }
    case ast::StmtKind::Register: {
      auto* s = static_cast<ast::RegisterStmt*>(stmt);
      CheckLocalTensor(stmt, s->name, s->type, s->by, MemScope::Register);
      return;
    }
    case ast::StmtKind::If: {
      auto* s = static_cast<ast::IfStmt*>(stmt);
      ExprInfo c = CheckExpr(s->cond);
      if (!c.IsError() && !c.type->IsBool())
        diags_.Report(s->cond->range, DiagKind::ConditionNotBool, c.type->ToString());
      CheckBlock(s->then_body);
      if (s->else_body) CheckStmt(s->else_body);
      return;
    }
    case ast::StmtKind::For: CheckFor(static_cast<ast::ForStmt*>(stmt)); return;
    case ast::StmtKind::While: {
      auto* s = static_cast<ast::WhileStmt*>(stmt);
      ExprInfo c = CheckExpr(s->cond);
      if (!c.IsError() && !c.type->IsBool())
        diags_.Report(s->cond->range, DiagKind::ConditionNotBool, c.type->ToString());
      loops_.push_back(LoopInfo{});
      CheckBlock(s->body);
      loops_.pop_back();
      return;
    }
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue: {
      std::string_view word = stmt->kind == ast::StmtKind::Break ? "break" : "continue";
      if (loops_.empty())
        diags_.Report(stmt->range, DiagKind::JumpOutsideLoop, word);
      else if (loops_.back().mapping)
        diags_.Report(stmt->range, DiagKind::JumpInMappingLoop, word);
      return;
    }
    case ast::StmtKind::Return: {
      auto* s = static_cast<ast::ReturnStmt*>(stmt);
      if (body_ == BodyKind::Graph) {
        // Graph returns are checked by CheckGraph.
        return;
      }
      if (!s->more.empty()) {
        diags_.Report(s->more.front()->range, DiagKind::ReturnSeveralValues);
        return;
      }
      if (body_ == BodyKind::Kernel) {
        if (s->value) diags_.Report(s->value->range, DiagKind::ReturnValueInKernel);
        return;
      }
      if (!func_result_) {
        if (s->value) diags_.Report(s->value->range, DiagKind::ReturnValueInVoidFunc);
        return;
      }
      if (!s->value) {
        diags_.Report(stmt->range, DiagKind::MissingReturnValue, func_result_->ToString());
        return;
      }
      CheckConverted(s->value, func_result_->scalar, "return value");
      return;
    }
    case ast::StmtKind::Sync: return;
    case ast::StmtKind::Assign: CheckAssign(static_cast<ast::AssignStmt*>(stmt)); return;
    case ast::StmtKind::ExprStmt: {
      auto* s = static_cast<ast::ExprStmt*>(stmt);
      ExprInfo info = CheckExpr(s->expr);
      if (!info.IsError() && s->expr->kind != ast::ExprKind::Call)
        diags_.Report(s->expr->range, DiagKind::ExprResultUnused);
      return;
    }
  }
}

void Checker::CheckFor(ast::ForStmt* stmt) {
  ExprInfo iter = CheckExpr(stmt->iter);
  LoopInfo loop;
  ScalarKind var_type = ScalarKind::I32;
  bool ok = !iter.IsError();
  if (ok && iter.type->kind == TypeKind::Range) {
    var_type = iter.type->scalar;
    if (stmt->vars.size() != 1) {
      diags_.Report(stmt->iter->range, DiagKind::ForArityRange, stmt->vars.size());
      ok = false;
    }
    if (stmt->worker) {
      diags_.Report(stmt->worker->range, DiagKind::OnWithoutMapping);
      CheckExpr(stmt->worker);
    }
  } else if (ok && iter.type->kind == TypeKind::Mapping) {
    const TaskMapping& m = *iter.value->m;
    loop.mapping = m;
    if (static_cast<int>(stmt->vars.size()) != m.Rank()) {
      diags_.Report(stmt->range.begin.IsValid() ? SourceRange{stmt->vars.front().range.begin, stmt->vars.back().range.end} : stmt->range,
                    DiagKind::ForArityMapping, Plural(stmt->vars.size(), "variable"), m.Rank())
          .Note(stmt->iter->range, DiagKind::NoteMappingType, m.TypeString());
      ok = false;
    }
    if (!stmt->worker) {
      diags_.Report(stmt->iter->range, DiagKind::MappingLoopNeedsOn);
      ok = false;
    } else {
      ExprInfo w = CheckExpr(stmt->worker);
      if (!w.IsError() && !w.type->IsInteger()) {
        diags_.Report(stmt->worker->range, DiagKind::WorkerNotInteger, w.type->ToString());
        ok = false;
      }
      // Workers past the block (or warp) never run: their tasks are lost.
      auto* member = ast::dyn_cast<ast::MemberExpr>(stmt->worker);
      auto* base = member ? ast::dyn_cast<ast::NameExpr>(member->base) : nullptr;
      if (base && base->name == "threadIdx" && member->member.name == "x" &&
          !block_dims_.empty() && block_dims_[0].is_const && m.Workers() > block_dims_[0].value)
        diags_.Report(stmt->worker->range, DiagKind::MappingExceedsBlock, m.ToString(),
                      m.Workers(), Plural(block_dims_[0].value, "thread"));
      auto* name = ast::dyn_cast<ast::NameExpr>(stmt->worker);
      if (name && name->name == "lane_id" && m.Workers() > 32)
        diags_.Report(stmt->worker->range, DiagKind::MappingExceedsWarp, m.ToString(), m.Workers());
    }
  } else if (ok) {
    diags_.Report(stmt->iter->range, DiagKind::NotIterable, iter.type->ToString());
    ok = false;
  }
  PushScope();
  for (const ast::Ident& v : stmt->vars) {
    Symbol s;
    s.name = v.name;
    s.decl_range = v.range;
    s.type = ok ? types_.Scalar(var_type) : types_.Error();
    s.used = true;
    loop.vars.push_back(Declare(std::move(s)));
  }
  loops_.push_back(loop);
  CheckBlock(stmt->body);
  loops_.pop_back();
  PopScope();
}

void Checker::CheckAssign(ast::AssignStmt* stmt) {
  ExprInfo target = CheckExpr(stmt->target);
  if (target.IsError()) {
    CheckExpr(stmt->value);
    return;
  }
  Symbol* root = target.lvalue_root;
  bool element = stmt->target->kind == ast::ExprKind::Index;
  if (!root || (!element && root->kind == Symbol::Kind::Tensor) || !target.type->IsScalar()) {
    diags_.Report(stmt->target->range, DiagKind::NotAssignable);
    CheckExpr(stmt->value);
    return;
  }
  if (!element && !root->is_mutable) {
    diags_.Report(stmt->target->range, DiagKind::AssignToImmutable, root->name)
        .Note(root->decl_range, DiagKind::NoteDeclaredHere, root->name);
    CheckExpr(stmt->value);
    return;
  }
  if (element && root->is_read_only_tensor) {
    diags_.Report(stmt->target->range, DiagKind::AssignToImmutable, root->name);
    return;
  }
  ScalarKind t = target.type->scalar;
  bool integer_only = stmt->op == ast::AssignOp::Mod || stmt->op == ast::AssignOp::And ||
                      stmt->op == ast::AssignOp::Or || stmt->op == ast::AssignOp::Xor ||
                      stmt->op == ast::AssignOp::Shl || stmt->op == ast::AssignOp::Shr;
  if ((integer_only && !IsInteger(t)) ||
      (stmt->op != ast::AssignOp::Assign && t == ScalarKind::Bool)) {
    diags_.Report(stmt->op_range, DiagKind::InvalidCompoundAssign, ast::Spelling(stmt->op),
                  ScalarName(t));
    CheckExpr(stmt->value);
    return;
  }
  if (stmt->op == ast::AssignOp::Shl || stmt->op == ast::AssignOp::Shr) {
    ExprInfo v = CheckExpr(stmt->value);
    if (!v.IsError() && !v.type->IsInteger())
      diags_.Report(stmt->value->range, DiagKind::InvalidCompoundAssign, ast::Spelling(stmt->op),
                    v.type->ToString());
    return;
  }
  CheckConverted(stmt->value, t, "assigned value");
}

void Checker::CheckLocalTensor(ast::Stmt* stmt, const ast::Ident& name, const ast::TypeSpec& spec,
                               ast::Expr* by, MemScope scope) {
  std::string_view what = scope == MemScope::Shared ? "shared" : "register";
  const Type* t = types_.Error();
  if (scope == MemScope::Shared && body_ != BodyKind::Kernel) {
    diags_.Report(stmt->range, DiagKind::SharedOutsideKernel);
  } else if (!spec.is_tensor) {
    diags_.Report(spec.range, DiagKind::LocalNeedsTensorType, what);
  } else {
    t = ResolveType(spec, scope);
    for (size_t i = 0; !t->IsError() && i < t->dims.size(); ++i) {
      if (!t->dims[i].is_const) {
        diags_.Report(spec.dims[i]->range, DiagKind::LocalDimNotConst, what);
        t = types_.Error();
      }
    }
    // The allocation is sized by the layout's largest offset, so strides
    // must be known too.
    for (size_t i = 0; !t->IsError() && i < t->layout.args.size(); ++i) {
      if (!t->layout.args[i].is_const) {
        diags_.Report(spec.layout->args[i]->range, DiagKind::LocalStrideNotConst, what);
        t = types_.Error();
      }
    }
    if (!t->IsError()) {
      std::vector<int64_t> dims, args;
      for (const Dim& d : t->dims) dims.push_back(d.value);
      for (const Dim& d : t->layout.args) args.push_back(d.value);
      SpanLayout layout = t->layout.kind == Layout::Kind::Strided   ? SpanLayout::Strided
                          : t->layout.kind == Layout::Kind::Swizzle ? SpanLayout::Swizzle
                                                                    : SpanLayout::Dense;
      std::optional<int64_t> span = LayoutSpan(layout, dims, args);
      if (!span || *span > INT32_MAX) {
        diags_.Report(spec.range, DiagKind::LocalTensorTooLarge, what, name.name,
                      span ? std::to_string(*span) : std::string("more than 2^63"));
        t = types_.Error();
      }
    }
  }
  if (by) t = DistributeBy(t, by);
  Symbol s;
  s.kind = Symbol::Kind::Tensor;
  s.name = name.name;
  s.decl_range = name.range;
  s.type = t;
  s.warn_unused = true;
  Declare(std::move(s));
}

}  // namespace tmc::sema

namespace tmc::sema {

// `TYPE by MAPPING`: a register tensor distributed over the workers of the
// mapping, whose shape must equal the tensor's. The mapping of a function
// parameter is evaluated once, before any call is checked
// (ResolveParamMappings); it is not re-checked here.
const Type* Checker::DistributeBy(const Type* t, ast::Expr* by) {
  std::optional<ConstValue> value;
  if (resolved_by_.count(by)) {
    auto it = module_.constants.find(by);
    if (it == module_.constants.end() || it->second.kind != ConstValue::Kind::Mapping) return types_.Error();
    value = it->second;
  } else {
    ExprInfo m = CheckExpr(by);
    if (m.IsError()) return types_.Error();
    if (m.type->kind != TypeKind::Mapping) {
      diags_.Report(by->range, DiagKind::ByNotMapping, m.type->ToString());
      return types_.Error();
    }
    value = m.value;
  }
  if (t->IsError()) return t;
  const TaskMapping& map = *value->m;
  std::vector<int64_t> shape;
  for (const Dim& d : t->dims) shape.push_back(d.is_const ? d.value : -1);
  if (shape != map.Shape()) {
    diags_.Report(by->range, DiagKind::DistributedShapeMismatch, t->ToString(), map.TypeString());
    return types_.Error();
  }
  Type dt = *t;
  dt.distributed_by = map;
  return types_.Make(std::move(dt));
}

}  // namespace tmc::sema
