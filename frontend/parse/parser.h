// Text of one file -> AST. The only interface of frontend/parse/, the only
// code that sees ANTLR: syntax errors become tmc diagnostics here.
#pragma once

#include <memory>

#include "frontend/ast/ast.h"
#include "support/diagnostics.h"

namespace tmc {

struct ParseOptions {
  /// Deepest nesting of brackets and of grammar rules accepted; deeper input
  /// gets a diagnostic instead of exhausting the stack.
  unsigned max_bracket_depth = 256;
  unsigned max_rule_depth = 1500;
  /// Deepest expression tree, which also bounds operator chains such as
  /// "1 + 1 + ... + 1" (parsed by a loop, but as deep as they are long).
  unsigned max_expr_depth = 10000;
  /// Parse each kernel's signature and leave its body out (an empty block,
  /// KernelDecl::body_skipped): for modules whose kernels are not compiled
  /// (kernel_body_skipper.h).
  bool skip_kernel_bodies = false;
  /// With skip_kernel_bodies: the kernel of this name keeps its body (the
  /// one kernel a compile is for).
  std::string keep_kernel_body;
};

/// Lexes and parses file `file_id` of the diagnostics' source manager.
/// Returns null when the file has lexical or syntax errors (each reported);
/// a returned module may still have had literal errors reported.
std::unique_ptr<ast::Module> ParseFile(uint32_t file_id, DiagnosticEngine& diags,
                                       const ParseOptions& options = {});

}  // namespace tmc
