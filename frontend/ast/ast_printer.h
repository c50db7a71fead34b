// `tmc FILE --emit=ast`: a stable, readable dump of the syntax tree.
#pragma once

#include <string>

#include "frontend/ast/ast.h"

namespace tmc::ast {

/// One line per declaration and statement, indented by nesting, each with
/// its `line:col`; expressions print on one line, fully parenthesized so
/// that precedence is visible. The format is tested (test/Frontend/ast).
std::string PrintModule(const Module& module, const SourceManager& sm);
std::string PrintExpr(const Expr* expr);
std::string PrintType(const TypeSpec& type);

}  // namespace tmc::ast
