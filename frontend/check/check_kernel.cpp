// Kernels and device functions: compile-time parameters and their chosen
// values, `where` constraints, launch configuration, `implements`, bodies.
#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"

namespace tmc::sema {
namespace {

bool AlwaysReturns(const ast::Stmt* s) {
  if (!s) return false;
  if (s->kind == ast::StmtKind::Return) return true;
  if (auto* b = ast::dyn_cast<ast::BlockStmt>(s)) {
    for (const ast::Stmt* c : b->stmts)
      if (AlwaysReturns(c)) return true;
    return false;
  }
  if (auto* i = ast::dyn_cast<ast::IfStmt>(s))
    return AlwaysReturns(i->then_body) && AlwaysReturns(i->else_body);
  return false;
}

}  // namespace

// The value of compile-time parameter `p`, in order: this kernel's -D
// (--all-candidates), the command line's -D, the default, the first
// candidate; `eval` reads a candidate or the default as the parameter's
// kind (a number, or an element type encoded by EncodeTypeValue). Records
// the candidates in `instance`. nullopt after reporting a missing value, a
// value of the other kind or one not among the candidates.
std::optional<int64_t> Checker::ChooseCtValue(ast::KernelDecl* decl, ast::CtParam& p, bool is_type,
                                              const std::function<std::optional<int64_t>(ast::Expr*)>& eval,
                                              KernelInstance& instance) {
  std::vector<int64_t> candidates;
  bool ok = true;
  for (ast::Expr* c : p.candidates) {
    std::optional<int64_t> v = eval(c);
    if (v) candidates.push_back(*v);
    ok = ok && v;
  }
  instance.ct_candidates.emplace_back(p.name.name, candidates);
  std::optional<int64_t> value;
  SourceRange value_range = p.name.range;
  auto own = options_.kernel_defines.find(decl->name.name);
  if (own != options_.kernel_defines.end() && own->second.count(p.name.name)) {
    value = own->second.at(p.name.name);
  } else if (auto it = options_.defines.find(p.name.name);
             it != options_.defines.end() &&
             (options_.defines_kernel.empty() || options_.defines_kernel == decl->name.name) &&
             (options_.defines_scope.empty() || options_.defines_scope.count(decl->name.name))) {
    value = it->second;
  } else if (p.default_value) {
    value = eval(p.default_value);
    value_range = p.default_value->range;
    ok = ok && value;
  } else if (!candidates.empty()) {
    value = candidates.front();
  }
  if (ok && !value) {
    diags_.Report(p.name.range, DiagKind::CtParamNoValue, p.name.name, p.name.name);
    ok = false;
  }
  // A -D value of the other kind: `-D T=64` for a type, `-D N=f16` for a number.
  // A bool parameter's values read as false and true.
  bool is_bool = !is_type && p.type.elem == ScalarKind::Bool;
  auto text = [&](int64_t v) { return is_bool && (v == 0 || v == 1) ? std::string(v ? "true" : "false") : CtValueString(v); };
  if (ok && DecodeTypeValue(*value).has_value() != is_type) {
    if (is_type)
      diags_.Report(value_range, DiagKind::CtTypeValue, p.name.name, CtValueString(*value));
    else
      diags_.Report(value_range, DiagKind::CtParamNotType, p.name.name, is_bool ? "a bool" : "an integer",
                    CtValueString(*value));
    ok = false;
  }
  if (ok && !candidates.empty() && std::find(candidates.begin(), candidates.end(), *value) == candidates.end()) {
    std::string list;
    for (int64_t c : candidates) list += (list.empty() ? "" : ", ") + text(c);
    diags_.Report(value_range, DiagKind::CtParamNotCandidate, text(*value), p.name.name, "[" + list + "]");
    ok = false;
  }
  return ok ? value : std::nullopt;
}

// An element-type parameter `T: type in [f16, bf16, f32] = f16`: its value
// is a scalar type, bound for the parameter types and body of the kernel
// (like a generic op's type parameter) and recorded encoded as an int64.
void Checker::CheckTypeCtParam(ast::KernelDecl* decl, ast::CtParam& p, KernelInstance& instance) {
  if (type_bindings_.count(p.name.name) || scope_->LookupLocal(p.name.name)) {
    diags_.Report(p.name.range, DiagKind::Redefinition, p.name.name);
    return;
  }
  auto type_of = [&](ast::Expr* e) -> std::optional<int64_t> {
    auto* n = ast::dyn_cast<ast::NameExpr>(e);
    std::optional<ScalarKind> k = n ? ParseScalar(n->name) : std::nullopt;
    if (!k) {
      diags_.Report(e->range, DiagKind::CtTypeValue, p.name.name, ast::PrintExpr(e));
      return std::nullopt;
    }
    return EncodeTypeValue(*k);
  };
  std::optional<int64_t> value = ChooseCtValue(decl, p, true, type_of, instance);
  // An unusable value still binds the name (to f32), so that the body's
  // uses of T are not reported as unknown types too.
  type_bindings_[p.name.name] = value ? *DecodeTypeValue(*value) : ScalarKind::F32;
  if (value) instance.ct_values.emplace_back(p.name.name, *value);
}

void Checker::CheckCtParams(ast::KernelDecl* decl, KernelInstance& instance) {
  type_bindings_.clear();
  for (ast::CtParam& p : decl->ct_params) {
    if (p.type.param && p.type.param->name == "type" && !p.type.is_tensor) {
      CheckTypeCtParam(decl, p, instance);
      continue;
    }
    if (type_bindings_.count(p.name.name)) {
      diags_.Report(p.name.range, DiagKind::Redefinition, p.name.name);
      continue;
    }
    bool is_bool = !p.type.is_tensor && p.type.elem == ScalarKind::Bool;
    bool is_int = !p.type.is_tensor && IsInteger(p.type.elem);
    Symbol s;
    s.kind = Symbol::Kind::CtParam;
    s.name = p.name.name;
    s.decl_range = p.name.range;
    s.type = types_.Scalar(p.type.elem);
    s.used = true;
    if (!is_bool && !is_int) {
      diags_.Report(p.type.range, DiagKind::CtParamType, p.name.name);
      s.type = types_.Error();
      Declare(std::move(s));
      continue;
    }
    auto eval = [&](ast::Expr* e) -> std::optional<int64_t> {
      ExprInfo info = CheckConverted(e, p.type.elem, "compile-time parameter value");
      if (info.IsError()) return std::nullopt;
      if (!info.value) {
        diags_.Report(e->range, DiagKind::NotCompileTime, "a compile-time parameter value");
        return std::nullopt;
      }
      return is_bool ? int64_t{info.value->b} : info.value->i;
    };
    std::optional<int64_t> value = ChooseCtValue(decl, p, false, eval, instance);
    if (value) {
      s.value = is_bool ? ConstValue::Bool(*value != 0) : ConstValue::Int(*value);
      instance.ct_values.emplace_back(p.name.name, *value);
    } else {
      s.type = types_.Error();
    }
    Declare(std::move(s));
  }
}

void Checker::CheckLaunch(ast::KernelDecl* decl, KernelInstance& instance) {
  const ast::LaunchClause* grid = nullptr;
  const ast::LaunchClause* block = nullptr;
  const ast::LaunchClause* cluster = nullptr;
  for (const ast::LaunchClause& l : decl->launch) {
    const ast::LaunchClause** slot = l.name.name == "grid"      ? &grid
                                     : l.name.name == "block"   ? &block
                                     : l.name.name == "cluster" ? &cluster
                                                                : nullptr;
    if (!slot) {
      diags_.Report(l.name.range, DiagKind::UnknownKernelClause, l.name.name);
      continue;
    }
    if (*slot) {
      diags_.Report(l.name.range, DiagKind::DuplicateKernelClause, l.name.name)
          .Note((*slot)->name.range, DiagKind::NotePreviousDefinition);
      continue;
    }
    *slot = &l;
    if (l.dims.size() > 3) {
      diags_.Report(l.range, DiagKind::LaunchArity, l.name.name, l.dims.size());
      continue;
    }
    if (slot == &block) {
      int64_t threads = 1;
      bool ok = true;
      for (ast::Expr* d : l.dims) {
        std::optional<int64_t> v = EvalInt(d, "a block dimension");
        if (v && *v <= 0) {
          diags_.Report(d->range, DiagKind::NonPositiveBlock, *v);
          v.reset();
        }
        ok = ok && v;
        if (v) {
          threads *= *v;
          block_dims_.push_back(Dim::Const(*v));
        }
      }
      if (ok && threads > 1024) diags_.Report(l.range, DiagKind::BlockTooLarge, threads);
      instance.block = block_dims_;
    } else if (slot == &cluster) {
      // Blocks per thread-block cluster: compile-time, at most 8 in all
      // (the portable cluster size of sm_90).
      int64_t blocks = 1;
      bool ok = true;
      for (size_t d = 0; d < l.dims.size(); ++d) {
        std::optional<int64_t> v = EvalInt(l.dims[d], "a cluster dimension");
        if (v && *v <= 0) {
          diags_.Report(l.dims[d]->range, DiagKind::NonPositiveCluster, *v);
          v.reset();
        }
        ok = ok && v;
        if (v) {
          blocks *= *v;
          instance.cluster[d] = *v;
        }
      }
      if (ok && blocks > 8) diags_.Report(l.range, DiagKind::ClusterTooLarge, blocks);
    } else {
      for (ast::Expr* d : l.dims) {
        ExprInfo info = CheckExpr(d);
        if (!info.IsError() && !info.type->IsInteger())
          diags_.Report(d->range, DiagKind::IncompatibleTypes, "grid dimension", info.type->ToString(), "i32");
        instance.grid.push_back(ast::PrintExpr(d));
      }
    }
  }
  if (!block) diags_.Report(decl->name.range, DiagKind::MissingBlockClause, decl->name.name);
  if (!grid) instance.grid = {"1"};
  // A cluster extent along a dimension the grid does not have (extent 1
  // there) can never divide it.
  static const char* kAxis[] = {"x", "y", "z"};
  for (size_t d = instance.grid.size(); cluster && d < 3; ++d)
    if (instance.cluster[d] > 1) {
      diags_.Report(cluster->range, DiagKind::ClusterGridRank, instance.cluster[d], kAxis[d], Plural(instance.grid.size(), "dimension"));
      break;
    }
}

void Checker::CheckImplements(ast::KernelDecl* decl, KernelInstance& instance) {
  const ast::Ident& name = *decl->implements;
  Symbol* op_sym = scope_->Lookup(name.name);
  if (!op_sym) {
    ReportUndeclared(name.name, name.range);
    return;
  }
  if (op_sym->kind != Symbol::Kind::Op) {
    diags_.Report(name.range, DiagKind::NotAnOp, name.name)
        .Note(op_sym->decl_range, DiagKind::NoteDeclaredHere, name.name);
    return;
  }
  op_sym->used = true;
  auto* op = static_cast<const ast::OpDecl*>(op_sym->decl);
  // The kernel's parameters: the op's inputs, then its results.
  size_t inputs = op->params.size();
  if (decl->params.size() != inputs + op->results.size()) {
    std::string outputs = op->results.size() == 1 ? "one output" : Plural(op->results.size(), "output");
    diags_.Report(name.range, DiagKind::ImplementsArity, decl->name.name,
                  Plural(decl->params.size(), "parameter"), name.name, Plural(op->params.size(), "input"), outputs)
        .Note(op_sym->decl_range, DiagKind::NoteDeclaredHere, name.name);
    return;
  }
  for (size_t i = inputs; i < decl->params.size(); ++i) instance.outputs.push_back(decl->params[i].name.name);
  // Type parameters of a generic op bind from the kernel's parameters.
  std::vector<const ast::TypeSpec*> specs;
  std::vector<const Type*> kernel_types;
  std::vector<SourceRange> where;
  for (size_t i = 0; i < decl->params.size(); ++i) {
    specs.push_back(i >= inputs ? &op->results[i - inputs].type : &op->params[i].type);
    Symbol* ks = scope_->LookupLocal(decl->params[i].name.name);
    kernel_types.push_back(ks ? ks->type : nullptr);
    where.push_back(decl->params[i].type.range);
  }
  std::map<std::string, ScalarKind> bindings;
  if (!BindTypeParams(*op, specs, kernel_types, where, &bindings)) return;
  // Op dimension (as written) -> the kernel dimension it was matched with,
  // and the kernel parameter where that happened.
  std::map<std::string, std::pair<Dim, std::string>> bound;
  for (size_t i = 0; i < decl->params.size(); ++i) {
    const ast::Param& kp = decl->params[i];
    bool is_result = i >= inputs;
    const ast::TypeSpec& want = is_result ? op->results[i - inputs].type : op->params[i].type;
    SourceRange want_range = is_result ? op->results[i - inputs].type.range : op->params[i].name.range;
    Symbol* ks = scope_->LookupLocal(kp.name.name);
    if (!ks || ks->type->IsError()) continue;
    const Type* kt = ks->type;
    bool same_kind = kt->IsTensor() == want.is_tensor && kt->scalar == ElemOf(want, bindings) &&
                     (!want.is_tensor || kt->Rank() == want.dims.size());
    if (!same_kind) {
      diags_.Report(kp.type.range, DiagKind::ImplementsParamMismatch, kp.name.name,
                    decl->name.name, kt->ToString(), name.name, ast::PrintType(want))
          .Note(want_range, DiagKind::NoteDeclaredHere,
                is_result ? (op->results.size() == 1 ? std::string("result") : op->results[i - inputs].name.name)
                          : op->params[i].name.name);
      continue;
    }
    for (size_t d = 0; d < want.dims.size(); ++d) {
      std::string op_dim = ast::PrintExpr(want.dims[d]);
      const Dim& kd = kt->dims[d];
      if (auto* lit = ast::dyn_cast<ast::IntLit>(want.dims[d])) {
        if (!kd.is_const || kd.value != static_cast<int64_t>(lit->value))
          diags_.Report(kp.type.dims[d]->range, DiagKind::ImplementsDimConst, d, kp.name.name,
                        kd.ToString(), name.name, lit->value);
        continue;
      }
      auto [it, inserted] = bound.emplace(op_dim, std::make_pair(kd, kp.name.name));
      if (!inserted && !(it->second.first == kd))
        diags_.Report(kp.type.dims[d]->range, DiagKind::ImplementsDimMismatch, name.name, op_dim,
                      it->second.first.ToString(), it->second.second, kd.ToString(), kp.name.name);
    }
  }
}

// A `where` constraint that involves shape symbols (and otherwise
// compile-time values and integer arithmetic) is a launch condition: it
// holds or not for the shapes of a launch (docs/language.md, "Launch
// conditions").
bool Checker::IsLaunchCondition(const ast::Expr* e) {
  switch (e->kind) {
    case ast::ExprKind::IntLit:
    case ast::ExprKind::BoolLit: return true;
    case ast::ExprKind::Name: {
      Symbol* s = scope_->Lookup(static_cast<const ast::NameExpr*>(e)->name);
      return s && (s->kind == Symbol::Kind::ShapeSymbol || s->kind == Symbol::Kind::CtParam ||
                   s->kind == Symbol::Kind::Const);
    }
    case ast::ExprKind::Unary: return IsLaunchCondition(static_cast<const ast::UnaryExpr*>(e)->operand);
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      if (!IsLaunchCondition(b->lhs) || !IsLaunchCondition(b->rhs)) return false;
      // `C / BC` with BC = 0 holds for no shape: an error here, not at launch.
      auto rhs = module_.constants.find(b->rhs);
      if ((b->op == ast::BinaryOp::Div || b->op == ast::BinaryOp::Mod) && rhs != module_.constants.end() &&
          rhs->second.kind == ConstValue::Kind::Int && rhs->second.i == 0) {
        diags_.Report(b->rhs->range, DiagKind::DivisionByZero);
        return true;  // reported; not also "must be a compile-time bool"
      }
      return true;
    }
    case ast::ExprKind::Cast: return IsLaunchCondition(static_cast<const ast::CastExpr*>(e)->operand);
    case ast::ExprKind::Call: {
      auto* c = static_cast<const ast::CallExpr*>(e);
      if (c->callee.name != "cdiv") return false;
      for (const ast::Expr* a : c->args)
        if (!IsLaunchCondition(a)) return false;
      return true;
    }
    default: return false;
  }
}

void Checker::CheckKernel(ast::KernelDecl* decl) {
  body_ = BodyKind::Kernel;
  block_dims_.clear();
  PushScope();
  KernelInstance instance;
  unsigned errors = diags_.ErrorCount();
  CheckCtParams(decl, instance);
  unsigned ct_errors = diags_.ErrorCount() - errors;
  BindShapeSymbols(decl->params);
  DeclareParams(decl->params, false);
  errors = diags_.ErrorCount();
  for (ast::Expr* w : decl->where) {
    ExprInfo info = CheckExpr(w);
    if (info.IsError()) continue;
    if (info.type->IsBool() && !info.value && IsLaunchCondition(w)) {
      instance.launch_conditions.push_back(w);
      continue;
    }
    if (!info.type->IsBool() || !info.value) {
      diags_.Report(w->range, DiagKind::WhereNotConstBool);
      continue;
    }
    if (!info.value->b) {
      std::string values;
      for (auto& [n, v] : instance.ct_values) values += (values.empty() ? "" : ", ") + n + " = " + CtValueString(v);
      auto diag = diags_.Report(w->range, DiagKind::WhereFailed, ast::PrintExpr(w));
      if (!values.empty()) diag.Note(decl->name.range, DiagKind::NoteCtValues, values);
    }
  }
  // With a compile-time value that is not allowed, or a failed 'where',
  // the launch and the body would only report what follows from it (a
  // mapping extent of 0, fragments of the wrong type): stop here.
  if (ct_errors == 0 && diags_.ErrorCount() == errors) {
    CheckLaunch(decl, instance);
    if (decl->implements) CheckImplements(decl, instance);
    tma_boxes_.clear();
    instance.name = decl->name.name;
    kernel_instance_ = &instance;
    if (!decl->body_skipped) CheckBlock(decl->body);  // else not compiled (kernel_body_skipper.h)
    kernel_instance_ = nullptr;
  }
  PopScope();
  type_bindings_.clear();
  module_.kernels[decl->name.name] = instance;
}

void Checker::CheckFunc(ast::FuncDecl* decl) {
  body_ = BodyKind::Func;
  PushScope();
  BindShapeSymbols(decl->params);
  DeclareParams(decl->params, false);
  func_result_ = nullptr;
  if (decl->result) {
    if (decl->result->is_tensor)
      diags_.Report(decl->result->range, DiagKind::FuncTensorResult);
    else
      func_result_ = types_.Scalar(decl->result->elem);
  }
  CheckBlock(decl->body);
  if (func_result_ && !AlwaysReturns(decl->body))
    diags_.Report(decl->name.range, DiagKind::MissingReturn, decl->name.name);
  PopScope();
  func_result_ = nullptr;
}

}  // namespace tmc::sema
