// Turns ANTLR's syntax errors into tmc diagnostics with expected-token hints.
#pragma once

#include <antlr4-runtime.h>

#include <optional>

#include "support/diagnostics.h"
#include "support/utf8.h"

namespace tmc {

/// Maps ANTLR tokens (code-point offsets) to source ranges (byte offsets).
struct TokenLocator {
  const SourceManager& sm;
  uint32_t file_id;
  const CodePointMap& cp_map;

  SourceRange Range(const antlr4::Token* tok) const;
  /// The empty range just after `tok` (where a missing token belongs).
  SourceRange After(const antlr4::Token* tok) const;
  SourceRange Range(antlr4::ParserRuleContext* ctx) const;
};

/// How a diagnostic names a token: "identifier 'x'", "';'", "end of file".
std::string DescribeToken(const antlr4::Token* tok, const TokenLocator& locate);

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  SyntaxErrorListener(DiagnosticEngine& diags, const TokenLocator& locate)
      : diags_(diags), locate_(locate) {}
  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line,
                   size_t column, const std::string& msg, std::exception_ptr e) override;
  unsigned errors() const { return errors_; }

 private:
  DiagnosticEngine& diags_;
  const TokenLocator& locate_;
  unsigned errors_ = 0;
  std::optional<size_t> last_error_index_;
};

}  // namespace tmc
