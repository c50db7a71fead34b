// The diagnostics engine: every user-facing error, warning and note goes
// through it, from any stage. Kinds are registered in diagnostic_kinds.def.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "support/source_manager.h"

namespace tmc {

enum class Severity { Note, Warning, Error };

/// "1 argument", "2 arguments": a count with its noun in agreement.
inline std::string Plural(int64_t n, std::string_view singular, std::string_view plural = {}) {
  if (n == 1) return fmt::format("1 {}", singular);
  if (plural.empty()) return fmt::format("{} {}s", n, singular);
  return fmt::format("{} {}", n, plural);
}

enum class DiagKind {
#define TMC_DIAG(name, severity, format) name,
#include "support/diagnostic_kinds.def"
  kCount
};

/// The registered name of a kind (its identifier in diagnostic_kinds.def).
std::string_view DiagKindName(DiagKind kind);
Severity DiagKindSeverity(DiagKind kind);
std::string_view DiagKindFormat(DiagKind kind);
/// "error", "warning" or "note".
std::string_view SeverityName(Severity s);

/// The flag that names a warning kind in messages and in -Wno-FLAG: its
/// registered name in kebab case (UnusedVariable -> "unused-variable").
std::string WarningFlag(DiagKind kind);
/// The flags of every warning kind.
std::vector<std::string> WarningFlags();
/// "2 warnings and 1 error generated." (empty when both are zero).
std::string GeneratedSummary(unsigned warnings, unsigned errors);

struct Diagnostic {
  DiagKind kind;
  Severity severity;
  SourceRange range;
  std::string message;
  std::string flag = "";  // "-Wunused-variable", "-Werror,-Wunused-variable" or empty
};

/// Receives diagnostics as they are emitted, notes right after their parent.
class DiagnosticConsumer {
 public:
  virtual ~DiagnosticConsumer() = default;
  virtual void Handle(const Diagnostic& diag) = 0;
};

/// Prints diagnostics as clang does: location, message, source line, caret.
class TextDiagnosticPrinter : public DiagnosticConsumer {
 public:
  TextDiagnosticPrinter(const SourceManager& sm, std::FILE* out) : sm_(sm), out_(out) {}
  void Handle(const Diagnostic& diag) override;
  /// ANSI colours as clang uses them (bold location and message, red
  /// errors, magenta warnings, green carets).
  void SetColor(bool on) { color_ = on; }

 private:
  const SourceManager& sm_;
  std::FILE* out_;
  bool color_ = false;
};

/// Renders one diagnostic (header line, source line, caret line).
std::string RenderDiagnostic(const SourceManager& sm, const Diagnostic& diag, bool color = false);

class DiagnosticEngine;

/// Collects one diagnostic and its notes; emits them when it goes out of scope.
class DiagnosticBuilder {
 public:
  DiagnosticBuilder(DiagnosticEngine* engine, Diagnostic diag) : engine_(engine) {
    diags_.push_back(std::move(diag));
  }
  DiagnosticBuilder(DiagnosticBuilder&& other) noexcept
      : engine_(other.engine_), diags_(std::move(other.diags_)) {
    other.engine_ = nullptr;
  }
  DiagnosticBuilder(const DiagnosticBuilder&) = delete;
  DiagnosticBuilder& operator=(const DiagnosticBuilder&) = delete;
  ~DiagnosticBuilder();

  template <typename... Args>
  DiagnosticBuilder& Note(SourceRange range, DiagKind kind, Args&&... args) {
    diags_.push_back(Diagnostic{kind, Severity::Note, range,
                                fmt::format(fmt::runtime(DiagKindFormat(kind)),
                                            std::forward<Args>(args)...),
                                {}});
    return *this;
  }

 private:
  DiagnosticEngine* engine_;
  std::vector<Diagnostic> diags_;
};

class DiagnosticEngine {
 public:
  DiagnosticEngine(const SourceManager& sm, DiagnosticConsumer& consumer)
      : sm_(sm), consumer_(&consumer) {}

  template <typename... Args>
  DiagnosticBuilder Report(SourceRange range, DiagKind kind, Args&&... args) {
    return DiagnosticBuilder(
        this, Diagnostic{kind, DiagKindSeverity(kind), range,
                         fmt::format(fmt::runtime(DiagKindFormat(kind)),
                                     std::forward<Args>(args)...),
                         {}});
  }

  void SetWarningsAsErrors(bool on) { warnings_as_errors_ = on; }
  void SetSuppressWarnings(bool on) { suppress_warnings_ = on; }
  /// Drops the warnings located in [begin, end): generated text (the
  /// kernels tmc --op and --graph add to a file), where the user can do
  /// nothing about them.
  void SuppressWarningsIn(SourceRange range) { quiet_ranges_.push_back(range); }
  /// Drops the warnings of one flag (-Wno-FLAG, FLAG as WarningFlag gives it).
  void DisableWarning(std::string flag) { disabled_.push_back(std::move(flag)); }
  /// After this many errors, one more note says so and the rest are dropped.
  void SetErrorLimit(unsigned limit) { error_limit_ = limit; }
  /// Appends the name of each emitted kind to this file (the test suite uses
  /// it to check that every kind is exercised by some test).
  void SetKindLog(std::string path) { kind_log_ = std::move(path); }

  unsigned ErrorCount() const { return error_count_; }
  unsigned WarningCount() const { return warning_count_; }
  bool HasErrors() const { return error_count_ > 0; }
  /// True once the error limit is reached: stages should stop early.
  bool ShouldStop() const { return error_limit_ != 0 && error_count_ >= error_limit_; }
  const SourceManager& sources() const { return sm_; }

 private:
  friend class DiagnosticBuilder;
  void Emit(std::vector<Diagnostic>& diags);

  const SourceManager& sm_;
  DiagnosticConsumer* consumer_;
  bool warnings_as_errors_ = false;
  bool suppress_warnings_ = false;
  bool limit_reported_ = false;
  unsigned error_limit_ = 20;
  unsigned error_count_ = 0;
  unsigned warning_count_ = 0;
  std::string kind_log_;
  std::vector<std::string> disabled_;
  std::vector<SourceRange> quiet_ranges_;
};

}  // namespace tmc
