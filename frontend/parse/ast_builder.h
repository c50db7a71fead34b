// ANTLR parse tree -> AST (called only on trees without syntax errors).
#pragma once

#include <TmParser.h>

#include <memory>
#include <vector>

#include "frontend/ast/ast.h"
#include "frontend/parse/syntax_errors.h"

namespace tmc {

/// Builds the AST of a syntactically valid tree. Literal errors (bad
/// suffixes, values out of range) are reported here, and so are expressions
/// nested deeper than `max_expr_depth` (then the result is null).
/// `skipped_bodies`: the start indices (sorted) of the `{` of the kernel
/// bodies the token source left out (kernel_body_skipper.h).
std::unique_ptr<ast::Module> BuildAst(grammar::TmParser::TranslationUnitContext* tree,
                                      uint32_t file_id, DiagnosticEngine& diags,
                                      const TokenLocator& locate, unsigned max_expr_depth,
                                      const std::vector<size_t>& skipped_bodies);

}  // namespace tmc
