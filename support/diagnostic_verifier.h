// `--verify-diagnostics`: checks emitted diagnostics against expectations
// written in the source, as clang's -verify does:
//   x = y;  // expected-error {{use of undeclared identifier 'y'}}
//   // expected-warning@+1 {{unused variable}}
//   // expected-note@-3 {{declared here}}      (@N: absolute line N)
//   // expected-note 2 {{declared here}}       (expects two of them)
//   // expected-no-diagnostics
#pragma once

#include <string>
#include <vector>

#include "support/diagnostics.h"

namespace tmc {

class DiagnosticVerifier : public DiagnosticConsumer {
 public:
  explicit DiagnosticVerifier(const SourceManager& sm) : sm_(sm) {}
  void Handle(const Diagnostic& diag) override { seen_.push_back(diag); }

  /// Compares what was seen with the expectations in every loaded file;
  /// prints each mismatch to `out`. Returns true when they agree.
  bool Verify(std::FILE* out) const;

  struct Expectation {
    Severity severity;
    uint32_t file_id;
    uint32_t line;
    std::string text;
  };
  /// Parses the expectations written in one file (exposed for unit tests).
  static std::vector<Expectation> ParseExpectations(std::string_view text, uint32_t file_id,
                                                    bool* no_diagnostics,
                                                    std::vector<std::string>* errors);

 private:
  const SourceManager& sm_;
  std::vector<Diagnostic> seen_;
};

}  // namespace tmc
