// Renders the AST. Expressions are printed back as source with explicit
// parentheses around every compound subexpression.
#include "frontend/ast/ast_printer.h"

#include <fmt/format.h>

namespace tmc::ast {

std::string_view Spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Plus: return "+";
    case UnaryOp::Not: return "!";
    case UnaryOp::BitNot: return "~";
  }
  return "?";
}

std::string_view Spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Shl: return "<<";
    case BinaryOp::Shr: return ">>";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::And: return "&&";
    case BinaryOp::Or: return "||";
  }
  return "?";
}

std::string_view Spelling(AssignOp op) {
  switch (op) {
    case AssignOp::Assign: return "=";
    case AssignOp::Add: return "+=";
    case AssignOp::Sub: return "-=";
    case AssignOp::Mul: return "*=";
    case AssignOp::Div: return "/=";
    case AssignOp::Mod: return "%=";
    case AssignOp::And: return "&=";
    case AssignOp::Or: return "|=";
    case AssignOp::Xor: return "^=";
    case AssignOp::Shl: return "<<=";
    case AssignOp::Shr: return ">>=";
  }
  return "?";
}

std::string Import::Dotted() const {
  std::string s;
  for (const Ident& p : path) s += (s.empty() ? "" : ".") + p.name;
  return s;
}

namespace {

std::string JoinExprs(const std::vector<Expr*>& exprs) {
  std::string s;
  for (const Expr* e : exprs) s += (s.empty() ? "" : ", ") + PrintExpr(e);
  return s;
}

std::string JoinIdents(const std::vector<Ident>& ids) {
  std::string s;
  for (const Ident& i : ids) s += (s.empty() ? "" : ", ") + i.name;
  return s;
}

class Printer {
 public:
  explicit Printer(const SourceManager& sm) : sm_(sm) {}

  std::string Run(const Module& m) {
    Line(0, "Module", SourceRange{},
         fmt::format("\"{}\"", sm_.Path(m.file_id)));
    for (const Import& imp : m.imports) Line(1, "Import", imp.range, imp.Dotted());
    for (const Decl* d : m.decls) PrintDecl(1, d);
    return std::move(out_);
  }

 private:
  void Line(int depth, std::string_view what, SourceRange r, const std::string& rest) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_ += what;
    if (r.IsValid()) {
      PresumedLoc p = sm_.Presumed(r.begin);
      out_ += fmt::format(" <{}:{}>", p.line, p.column);
    }
    if (!rest.empty()) out_ += " " + rest;
    out_ += '\n';
  }

  void Params(int depth, const std::vector<Param>& params) {
    for (const Param& p : params)
      Line(depth, "Param", p.name.range,
           p.name.name + ": " + (p.shared ? "shared " : "") + PrintType(p.type) +
               (p.by ? " by " + PrintExpr(p.by) : std::string()));
  }

  void PrintDecl(int d, const Decl* decl) {
    switch (decl->kind) {
      case DeclKind::Const: {
        auto* c = static_cast<const ConstDecl*>(decl);
        std::string type = c->type ? ": " + PrintType(*c->type) : "";
        Line(d, "Const", c->range, c->name.name + type + " = " + PrintExpr(c->value));
        return;
      }
      case DeclKind::Op: {
        auto* op = static_cast<const OpDecl*>(decl);
        Line(d, "Op", op->range, op->name.name + (op->type_params.empty() ? "" : "<" + JoinIdents(op->type_params) + ">"));
        Params(d + 1, op->params);
        for (const Param& r : op->results)
          Line(d + 1, "Result", r.type.range, (op->results.size() > 1 ? r.name.name + ": " : "") + PrintType(r.type));
        for (const OpStmt& s : op->body) {
          std::string idx = s.indices.empty() ? "" : "[" + JoinIdents(s.indices) + "]";
          Line(d + 1, s.is_let ? "OpLet" : "OpOut", s.range,
               s.name.name + idx + " = " + PrintExpr(s.value));
        }
        return;
      }
      case DeclKind::Kernel: {
        auto* k = static_cast<const KernelDecl*>(decl);
        Line(d, "Kernel", k->range, k->name.name);
        for (const CtParam& p : k->ct_params) {
          std::string rest = p.name.name + ": " + PrintType(p.type);
          if (p.has_candidates) rest += " in [" + JoinExprs(p.candidates) + "]";
          if (p.default_value) rest += " = " + PrintExpr(p.default_value);
          Line(d + 1, "CtParam", p.name.range, rest);
        }
        Params(d + 1, k->params);
        if (k->implements) Line(d + 1, "Implements", k->implements->range, k->implements->name);
        for (const Expr* w : k->where) Line(d + 1, "Where", w->range, PrintExpr(w));
        for (const LaunchClause& l : k->launch)
          Line(d + 1, l.name.name == "grid" ? "LaunchGrid" : "LaunchBlock", l.range, JoinExprs(l.dims));
        PrintStmt(d + 1, k->body);
        return;
      }
      case DeclKind::Func: {
        auto* f = static_cast<const FuncDecl*>(decl);
        Line(d, "Func", f->range, f->name.name + (f->result ? " -> " + PrintType(*f->result) : ""));
        Params(d + 1, f->params);
        PrintStmt(d + 1, f->body);
        return;
      }
      case DeclKind::Graph: {
        auto* g = static_cast<const GraphDecl*>(decl);
        std::string results;
        for (const Param& r : g->results) results += (results.empty() ? "" : ", ") + r.name.name + ": " + PrintType(r.type);
        Line(d, "Graph", g->range, g->name.name + " -> " + (g->results.empty() ? PrintType(g->result) : "(" + results + ")"));
        Params(d + 1, g->params);
        PrintStmt(d + 1, g->body);
        return;
      }
    }
  }

  void PrintStmt(int d, const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Block:
        Line(d, "Block", s->range, "");
        for (const Stmt* c : static_cast<const BlockStmt*>(s)->stmts) PrintStmt(d + 1, c);
        return;
      case StmtKind::Let: {
        auto* l = static_cast<const LetStmt*>(s);
        std::string type = l->type ? ": " + PrintType(*l->type) : "";
        Line(d, "Let", s->range, l->name.name + type + " = " + PrintExpr(l->init));
        return;
      }
      case StmtKind::Var: {
        auto* v = static_cast<const VarStmt*>(s);
        std::string rest = v->name.name + (v->type ? ": " + PrintType(*v->type) : "");
        if (v->init) rest += " = " + PrintExpr(v->init);
        Line(d, "Var", s->range, rest);
        return;
      }
      case StmtKind::Shared: {
        auto* v = static_cast<const SharedStmt*>(s);
        Line(d, "Shared", s->range, v->name.name + ": " + PrintType(v->type));
        return;
      }
      case StmtKind::Register: {
        auto* v = static_cast<const RegisterStmt*>(s);
        std::string rest = v->name.name + ": " + PrintType(v->type);
        if (v->by) rest += " by " + PrintExpr(v->by);
        Line(d, "Register", s->range, rest);
        return;
      }
      case StmtKind::If: {
        auto* i = static_cast<const IfStmt*>(s);
        Line(d, "If", s->range, PrintExpr(i->cond));
        PrintStmt(d + 1, i->then_body);
        if (i->else_body) {
          Line(d, "Else", i->else_body->range, "");
          PrintStmt(d + 1, i->else_body);
        }
        return;
      }
      case StmtKind::For: {
        auto* f = static_cast<const ForStmt*>(s);
        std::string vars = f->parenthesized ? "(" + JoinIdents(f->vars) + ")" : JoinIdents(f->vars);
        std::string rest = vars + " in " + PrintExpr(f->iter);
        if (f->worker) rest += " on " + PrintExpr(f->worker);
        Line(d, "For", s->range, rest);
        PrintStmt(d + 1, f->body);
        return;
      }
      case StmtKind::While: {
        auto* w = static_cast<const WhileStmt*>(s);
        Line(d, "While", s->range, PrintExpr(w->cond));
        PrintStmt(d + 1, w->body);
        return;
      }
      case StmtKind::Break: Line(d, "Break", s->range, ""); return;
      case StmtKind::Continue: Line(d, "Continue", s->range, ""); return;
      case StmtKind::Sync: Line(d, "Sync", s->range, ""); return;
      case StmtKind::Return: {
        auto* r = static_cast<const ReturnStmt*>(s);
        std::string values = r->value ? PrintExpr(r->value) : "";
        for (const Expr* e : r->more) values += ", " + PrintExpr(e);
        Line(d, "Return", s->range, values);
        return;
      }
      case StmtKind::Assign: {
        auto* a = static_cast<const AssignStmt*>(s);
        Line(d, "Assign", s->range,
             PrintExpr(a->target) + " " + std::string(Spelling(a->op)) + " " + PrintExpr(a->value));
        return;
      }
      case StmtKind::ExprStmt:
        Line(d, "ExprStmt", s->range, PrintExpr(static_cast<const ExprStmt*>(s)->expr));
        return;
    }
  }

  const SourceManager& sm_;
  std::string out_;
};

}  // namespace

std::string PrintType(const TypeSpec& t) {
  std::string s = t.param ? t.param->name : std::string(ScalarName(t.elem));
  if (!t.is_tensor) return s;
  s += "[" + JoinExprs(t.dims) + "]";
  if (t.layout) {
    s += " " + t.layout->name.name;
    if (!t.layout->args.empty()) s += "(" + JoinExprs(t.layout->args) + ")";
  }
  return s;
}

std::string PrintExpr(const Expr* e) {
  if (!e) return "<null>";
  switch (e->kind) {
    case ExprKind::IntLit: {
      auto* l = static_cast<const IntLit*>(e);
      return fmt::format("{}{}", l->value, l->suffix ? ScalarName(*l->suffix) : "");
    }
    case ExprKind::FloatLit: {
      auto* l = static_cast<const FloatLit*>(e);
      return l->spelling;
    }
    case ExprKind::BoolLit: return static_cast<const BoolLit*>(e)->value ? "true" : "false";
    case ExprKind::Name: return static_cast<const NameExpr*>(e)->name;
    case ExprKind::Call: {
      auto* c = static_cast<const CallExpr*>(e);
      return c->callee.name + "(" + JoinExprs(c->args) + ")";
    }
    case ExprKind::Cast: {
      auto* c = static_cast<const CastExpr*>(e);
      return std::string(ScalarName(c->to)) + "(" + PrintExpr(c->operand) + ")";
    }
    case ExprKind::Index: {
      auto* i = static_cast<const IndexExpr*>(e);
      return PrintExpr(i->base) + "[" + JoinExprs(i->indices) + "]";
    }
    case ExprKind::Member: {
      auto* m = static_cast<const MemberExpr*>(e);
      return PrintExpr(m->base) + "." + m->member.name;
    }
    case ExprKind::Unary: {
      auto* u = static_cast<const UnaryExpr*>(e);
      return "(" + std::string(Spelling(u->op)) + PrintExpr(u->operand) + ")";
    }
    case ExprKind::Binary: {
      auto* b = static_cast<const BinaryExpr*>(e);
      return "(" + PrintExpr(b->lhs) + " " + std::string(Spelling(b->op)) + " " +
             PrintExpr(b->rhs) + ")";
    }
    case ExprKind::Ternary: {
      auto* t = static_cast<const TernaryExpr*>(e);
      return "(" + PrintExpr(t->cond) + " ? " + PrintExpr(t->then_value) + " : " +
             PrintExpr(t->else_value) + ")";
    }
    case ExprKind::Reduce: {
      auto* r = static_cast<const ReduceExpr*>(e);
      std::string vars;
      for (const auto& v : r->vars)
        vars += (vars.empty() ? "" : ", ") + v.name.name + " < " + PrintExpr(v.extent);
      return "(" + r->reducer.name + "(" + vars + ") " + PrintExpr(r->body) + ")";
    }
  }
  return "?";
}

std::string PrintModule(const Module& module, const SourceManager& sm) {
  return Printer(sm).Run(module);
}

}  // namespace tmc::ast
