// Module-level checking: imports, top-level declarations, constants, and the
// dispatch to each declaration's checker.
#include "frontend/check/checker.h"

namespace tmc::sema {

Symbol* Scope::LookupLocal(const std::string& name) {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? nullptr : it->second.get();
}

Symbol* Scope::Lookup(const std::string& name) {
  for (Scope* s = this; s; s = s->parent_)
    if (Symbol* sym = s->LookupLocal(name)) return sym;
  return nullptr;
}

Symbol* Scope::Insert(Symbol symbol) {
  auto owned = std::make_unique<Symbol>(std::move(symbol));
  Symbol* raw = owned.get();
  symbols_[raw->name] = std::move(owned);
  return raw;
}

Checker::Checker(CheckedModule& module, TypeContext& types, DiagnosticEngine& diags,
                 const CheckOptions& options, const ImportResolver& resolve_import)
    : module_(module), types_(types), diags_(diags), options_(options),
      resolve_import_(resolve_import) {}

Symbol* Checker::Declare(Symbol symbol) {
  if (Symbol* prev = scope_->LookupLocal(symbol.name)) {
    diags_.Report(symbol.decl_range, DiagKind::Redefinition, symbol.name)
        .Note(prev->decl_range, DiagKind::NotePreviousDefinition);
    return prev;
  }
  return scope_->Insert(std::move(symbol));
}

void Checker::PopScope() {
  scope_->ForEach([&](Symbol& s) {
    if (s.warn_unused && !s.used && !s.name.starts_with("_") && s.type && !s.type->IsError())
      diags_.Report(s.decl_range, DiagKind::UnusedVariable, s.name);
  });
  scope_ = scope_->parent();
}

bool Checker::Run() {
  unsigned errors_before = diags_.ErrorCount();
  // Imported declarations live in a scope around the module's own.
  auto imports = std::make_unique<Scope>(nullptr);
  for (const ast::Import& imp : module_.ast->imports) {
    const CheckedModule* m = resolve_import_(imp);
    if (!m) continue;
    module_.imports.push_back(m);
    m->exports->ForEach([&](Symbol& s) {
      if (s.kind == Symbol::Kind::Const || s.kind == Symbol::Kind::Op ||
          s.kind == Symbol::Kind::Kernel || s.kind == Symbol::Kind::Func ||
          s.kind == Symbol::Kind::Graph)
        if (!imports->LookupLocal(s.name)) imports->Insert(s);
    });
  }
  scopes_.push_back(std::move(imports));
  // The module scope is the exported one; its parent is the import scope,
  // which is kept alive by scopes_ for as long as the checker runs. Exported
  // symbols must not point into it, so the link is cut after checking.
  module_.exports = std::make_unique<Scope>(scopes_.back().get());
  scope_ = module_.exports.get();

  for (ast::Decl* d : module_.ast->decls) {
    DeclareTopLevel(d);
    CheckTypeNames(d);
  }
  // Constants first, in source order (each may use those above it), so that
  // ops, kernels, functions and graphs may use any of them.
  for (ast::Decl* d : module_.ast->decls) {
    if (diags_.ShouldStop()) break;
    current_decl_ = d;
    if (d->kind == ast::DeclKind::Const) CheckConst(static_cast<ast::ConstDecl*>(d));
  }
  for (ast::Decl* d : module_.ast->decls) {
    if (diags_.ShouldStop()) break;
    current_decl_ = d;
    if (d->kind == ast::DeclKind::Func) ResolveParamMappings(static_cast<ast::FuncDecl*>(d));
  }
  // Functions before the bodies that call them: an op may call only
  // functions whose own calls are resolved (CheckOpFuncCall).
  for (ast::Decl* d : module_.ast->decls) {
    if (diags_.ShouldStop()) break;
    current_decl_ = d;
    if (d->kind == ast::DeclKind::Func) CheckFunc(static_cast<ast::FuncDecl*>(d));
  }
  for (ast::Decl* d : module_.ast->decls) {
    if (diags_.ShouldStop()) break;
    current_decl_ = d;
    switch (d->kind) {
      case ast::DeclKind::Const: break;
      case ast::DeclKind::Op: CheckOp(static_cast<ast::OpDecl*>(d)); break;
      case ast::DeclKind::Kernel: CheckKernel(static_cast<ast::KernelDecl*>(d)); break;
      case ast::DeclKind::Func: break;
      case ast::DeclKind::Graph: CheckGraph(static_cast<ast::GraphDecl*>(d)); break;
    }
  }
  // Re-home the exports into a parentless scope.
  auto exports = std::make_unique<Scope>(nullptr);
  module_.exports->ForEach([&](Symbol& s) { exports->Insert(s); });
  module_.exports = std::move(exports);
  module_.ok = diags_.ErrorCount() == errors_before;
  return module_.ok;
}

void Checker::DeclareTopLevel(ast::Decl* d) {
  Symbol s;
  s.name = d->name.name;
  s.decl_range = d->name.range;
  s.decl = d;
  s.module = &module_;
  s.type = types_.Void();
  switch (d->kind) {
    case ast::DeclKind::Const:
      s.kind = Symbol::Kind::Const;
      s.type = types_.Error();
      s.pending = true;
      break;
    case ast::DeclKind::Op: s.kind = Symbol::Kind::Op; break;
    case ast::DeclKind::Kernel: s.kind = Symbol::Kind::Kernel; break;
    case ast::DeclKind::Func: s.kind = Symbol::Kind::Func; break;
    case ast::DeclKind::Graph: s.kind = Symbol::Kind::Graph; break;
  }
  Declare(std::move(s));
}

void Checker::CheckConst(ast::ConstDecl* decl) {
  body_ = BodyKind::Module;
  ExprInfo info = decl->type ? CheckConverted(decl->value, decl->type->elem, "constant")
                             : CheckExpr(decl->value);
  Symbol* sym = scope_->LookupLocal(decl->name.name);
  if (!sym || sym->decl != decl) return;
  sym->pending = false;
  if (info.IsError()) return;
  if (decl->type && decl->type->is_tensor) {
    diags_.Report(decl->type->range, DiagKind::TensorConstant);
    return;
  }
  if (!info.value) {
    diags_.Report(decl->value->range, DiagKind::NotCompileTime, "a module-level constant");
    return;
  }
  // An untyped initializer gives its default type: f32, or the first of
  // i32, i64, u64 that holds the value.
  sym->type = decl->type ? types_.Scalar(decl->type->elem) : info.type;
  sym->value = info.value;
}

bool CheckModule(CheckedModule& module, TypeContext& types, DiagnosticEngine& diags,
                 const CheckOptions& options, const ImportResolver& resolve_import) {
  return Checker(module, types, diags, options, resolve_import).Run();
}

}  // namespace tmc::sema
