// Walks over AST expressions, and joining generated text, for graph/.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "frontend/ast/ast.h"

namespace tmc::graph {

/// Calls `f` on `e` and every expression under it, parents first.
template <typename F>
void Walk(const ast::Expr* e, const F& f) {
  if (!e) return;
  f(e);
  switch (e->kind) {
    case ast::ExprKind::Call:
      for (const ast::Expr* a : static_cast<const ast::CallExpr*>(e)->args) Walk(a, f);
      break;
    case ast::ExprKind::Cast: Walk(static_cast<const ast::CastExpr*>(e)->operand, f); break;
    case ast::ExprKind::Index: {
      auto* x = static_cast<const ast::IndexExpr*>(e);
      Walk(x->base, f);
      for (const ast::Expr* i : x->indices) Walk(i, f);
      break;
    }
    case ast::ExprKind::Member: Walk(static_cast<const ast::MemberExpr*>(e)->base, f); break;
    case ast::ExprKind::Unary: Walk(static_cast<const ast::UnaryExpr*>(e)->operand, f); break;
    case ast::ExprKind::Binary:
      Walk(static_cast<const ast::BinaryExpr*>(e)->lhs, f);
      Walk(static_cast<const ast::BinaryExpr*>(e)->rhs, f);
      break;
    case ast::ExprKind::Ternary: {
      auto* t = static_cast<const ast::TernaryExpr*>(e);
      Walk(t->cond, f);
      Walk(t->then_value, f);
      Walk(t->else_value, f);
      break;
    }
    case ast::ExprKind::Reduce: {
      auto* r = static_cast<const ast::ReduceExpr*>(e);
      for (const auto& v : r->vars) Walk(v.extent, f);
      Walk(r->body, f);
      break;
    }
    default: break;
  }
}

/// Calls `f` on every expression in the statements under `s`.
template <typename F>
void WalkStmt(const ast::Stmt* s, const F& f) {
  if (!s) return;
  switch (s->kind) {
    case ast::StmtKind::Block:
      for (const ast::Stmt* c : static_cast<const ast::BlockStmt*>(s)->stmts) WalkStmt(c, f);
      break;
    case ast::StmtKind::Let: Walk(static_cast<const ast::LetStmt*>(s)->init, f); break;
    case ast::StmtKind::Var: Walk(static_cast<const ast::VarStmt*>(s)->init, f); break;
    case ast::StmtKind::Register: Walk(static_cast<const ast::RegisterStmt*>(s)->by, f); break;
    case ast::StmtKind::If: {
      auto* i = static_cast<const ast::IfStmt*>(s);
      Walk(i->cond, f);
      WalkStmt(i->then_body, f);
      WalkStmt(i->else_body, f);
      break;
    }
    case ast::StmtKind::For: {
      auto* l = static_cast<const ast::ForStmt*>(s);
      Walk(l->iter, f);
      Walk(l->worker, f);
      WalkStmt(l->body, f);
      break;
    }
    case ast::StmtKind::While:
      Walk(static_cast<const ast::WhileStmt*>(s)->cond, f);
      WalkStmt(static_cast<const ast::WhileStmt*>(s)->body, f);
      break;
    case ast::StmtKind::Return: Walk(static_cast<const ast::ReturnStmt*>(s)->value, f); break;
    case ast::StmtKind::Assign:
      Walk(static_cast<const ast::AssignStmt*>(s)->target, f);
      Walk(static_cast<const ast::AssignStmt*>(s)->value, f);
      break;
    case ast::StmtKind::ExprStmt: Walk(static_cast<const ast::ExprStmt*>(s)->expr, f); break;
    default: break;
  }
}

/// Whether a reduction (`sum(k < K) ...`) occurs in `e`.
inline bool HasReduce(const ast::Expr* e) {
  bool found = false;
  Walk(e, [&](const ast::Expr* x) { found |= x->kind == ast::ExprKind::Reduce; });
  return found;
}

/// The parts of generated source, separated by `sep`.
inline std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  return fmt::format("{}", fmt::join(parts, sep));
}

/// Whether `s` can be written as a name in generated source.
inline bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// Whether `s` is a non-negative integer literal ("768").
inline bool IsNumber(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

/// A dimension's text without the parentheses around all of it:
/// "((2 * N))" -> "2 * N", but "(a) * (b)" stays.
inline std::string Unparen(std::string d) {
  while (d.size() > 2 && d.front() == '(' && d.back() == ')') {
    int depth = 0;
    size_t close = 0;  // where the first '(' closes
    for (size_t i = 0; i < d.size() && !close; ++i)
      if (d[i] == '(') ++depth;
      else if (d[i] == ')' && --depth == 0) close = i;
    if (close != d.size() - 1) break;
    d = d.substr(1, d.size() - 2);
  }
  return d;
}

/// `s` as a JSON (and Graphviz) string literal.
inline std::string Quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o + "\"";
}

}  // namespace tmc::graph
