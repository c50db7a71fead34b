// Diagnostics rendering, limits, -Werror, and the expectation parser.
#include "support/diagnostics.h"

#include <gtest/gtest.h>

#include "support/diagnostic_verifier.h"

namespace tmc {
namespace {

class Collect : public DiagnosticConsumer {
 public:
  void Handle(const Diagnostic& d) override { diags.push_back(d); }
  std::vector<Diagnostic> diags;
};

TEST(Diagnostics, RendersLocationLineAndRange) {
  SourceManager sm;
  uint32_t f = sm.AddFile("a.tm", "let x = 1;\nlet yy = zz + 1;\n");
  Diagnostic d{DiagKind::UndeclaredIdentifier, Severity::Error,
               SourceRange{sm.Loc(f, 20), sm.Loc(f, 22)}, "use of undeclared identifier 'zz'"};
  EXPECT_EQ(RenderDiagnostic(sm, d),
            "a.tm:2:10: error: use of undeclared identifier 'zz'\n"
            "let yy = zz + 1;\n"
            "         ^~\n");
}

TEST(Diagnostics, CaretKeepsTabs) {
  SourceManager sm;
  uint32_t f = sm.AddFile("t.tm", "\tlet = 1;\n");
  Diagnostic d{DiagKind::UnexpectedToken, Severity::Error, SourceRange{sm.Loc(f, 5), sm.Loc(f, 6)},
               "unexpected '='"};
  EXPECT_EQ(RenderDiagnostic(sm, d), "t.tm:1:6: error: unexpected '='\n\tlet = 1;\n\t    ^\n");
}

TEST(Diagnostics, ErrorLimitStopsAndSaysSo) {
  SourceManager sm;
  uint32_t f = sm.AddFile("a.tm", "x");
  Collect c;
  DiagnosticEngine e(sm, c);
  e.SetErrorLimit(2);
  SourceRange r{sm.Loc(f, 0), sm.Loc(f, 1)};
  for (int i = 0; i < 5; ++i) e.Report(r, DiagKind::UndeclaredIdentifier, "x");
  ASSERT_EQ(c.diags.size(), 3u);
  EXPECT_EQ(c.diags[1].kind, DiagKind::UndeclaredIdentifier);
  EXPECT_EQ(c.diags[2].kind, DiagKind::TooManyErrors);
  EXPECT_TRUE(e.ShouldStop());
}

TEST(Diagnostics, WarningsAsErrors) {
  SourceManager sm;
  uint32_t f = sm.AddFile("a.tm", "x");
  Collect c;
  DiagnosticEngine e(sm, c);
  e.SetWarningsAsErrors(true);
  e.Report(SourceRange{sm.Loc(f, 0), sm.Loc(f, 1)}, DiagKind::UnusedVariable, "x");
  ASSERT_EQ(c.diags.size(), 1u);
  EXPECT_EQ(c.diags[0].severity, Severity::Error);
  EXPECT_EQ(e.ErrorCount(), 1u);
}

TEST(Diagnostics, NotesFollowTheirParent) {
  SourceManager sm;
  uint32_t f = sm.AddFile("a.tm", "x y");
  Collect c;
  DiagnosticEngine e(sm, c);
  e.Report(SourceRange{sm.Loc(f, 2), sm.Loc(f, 3)}, DiagKind::Redefinition, "y")
      .Note(SourceRange{sm.Loc(f, 0), sm.Loc(f, 1)}, DiagKind::NotePreviousDefinition);
  ASSERT_EQ(c.diags.size(), 2u);
  EXPECT_EQ(c.diags[1].severity, Severity::Note);
  EXPECT_EQ(c.diags[1].message, "previous definition is here");
}

TEST(Verifier, ParsesRelativeAndAbsoluteLines) {
  bool none = false;
  std::vector<std::string> errors;
  auto e = DiagnosticVerifier::ParseExpectations(
      "a // expected-error {{one}}\n"
      "// expected-warning@+1 {{two}}\n"
      "b\n"
      "// expected-note@1 {{three}} expected-error@-1 {{four}}\n",
      0, &none, &errors);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].line, 1u);
  EXPECT_EQ(e[0].text, "one");
  EXPECT_EQ(e[1].line, 3u);
  EXPECT_EQ(e[1].severity, Severity::Warning);
  EXPECT_EQ(e[2].line, 1u);
  EXPECT_EQ(e[3].line, 3u);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(none);
}

TEST(Verifier, ReportsMalformedExpectations) {
  bool none = false;
  std::vector<std::string> errors;
  DiagnosticVerifier::ParseExpectations("// expected-error {{open\n// expected-error@+ {{x}}\n", 0,
                                        &none, &errors);
  EXPECT_EQ(errors.size(), 2u);
}

TEST(Verifier, MatchesSeverityLineAndSubstring) {
  SourceManager sm;
  uint32_t f = sm.AddFile("a.tm", "x // expected-error {{undeclared identifier 'x'}}\n");
  DiagnosticVerifier v(sm);
  DiagnosticEngine e(sm, v);
  e.Report(SourceRange{sm.Loc(f, 0), sm.Loc(f, 1)}, DiagKind::UndeclaredIdentifier, "x");
  EXPECT_TRUE(v.Verify(stderr));
}

TEST(Verifier, FailsOnUnexpectedAndMissing) {
  SourceManager sm;
  uint32_t f = sm.AddFile("a.tm", "x\n// expected-error {{never}}\n");
  DiagnosticVerifier v(sm);
  DiagnosticEngine e(sm, v);
  e.Report(SourceRange{sm.Loc(f, 0), sm.Loc(f, 1)}, DiagKind::UndeclaredIdentifier, "x");
  EXPECT_FALSE(v.Verify(stderr));
}

}  // namespace
}  // namespace tmc
