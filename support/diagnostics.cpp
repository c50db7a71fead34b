// Formatting and bookkeeping of diagnostics.
#include "support/diagnostics.h"

#include <array>

namespace tmc {
namespace {

struct KindInfo {
  std::string_view name;
  Severity severity;
  std::string_view format;
};

constexpr std::array<KindInfo, static_cast<size_t>(DiagKind::kCount)> kKinds = {{
#define TMC_DIAG(name, severity, format) {#name, Severity::severity, format},
#include "support/diagnostic_kinds.def"
}};

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "error";
}

// Display width of a UTF-8 prefix: one column per code point, tabs kept.
std::string CaretPadding(std::string_view line, size_t bytes) {
  std::string pad;
  for (size_t i = 0; i < bytes && i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == '\t') pad += '\t';
    else if ((c & 0xC0) != 0x80) pad += ' ';
  }
  return pad;
}

}  // namespace

std::string_view DiagKindName(DiagKind kind) { return kKinds[static_cast<size_t>(kind)].name; }
Severity DiagKindSeverity(DiagKind kind) { return kKinds[static_cast<size_t>(kind)].severity; }
std::string_view DiagKindFormat(DiagKind kind) { return kKinds[static_cast<size_t>(kind)].format; }

std::string RenderDiagnostic(const SourceManager& sm, const Diagnostic& diag) {
  std::string out;
  if (!diag.range.IsValid()) {
    out = fmt::format("tmc: {}: {}\n", SeverityName(diag.severity), diag.message);
    return out;
  }
  PresumedLoc loc = sm.Presumed(diag.range.begin);
  out = fmt::format("{}:{}:{}: {}: {}\n", loc.path, loc.line, loc.column,
                    SeverityName(diag.severity), diag.message);
  std::string_view line = sm.LineText(loc.file_id, loc.line);
  // Long lines (minified or generated input) are not echoed in full.
  constexpr size_t kMaxEcho = 4096;
  if (line.size() > kMaxEcho) return out;
  out += line;
  out += '\n';
  size_t col = loc.column - 1;
  std::string caret = CaretPadding(line, col) + '^';
  // Underline the rest of the range when it stays on this line.
  PresumedLoc end = sm.Presumed(diag.range.end);
  if (diag.range.end.offset > diag.range.begin.offset + 1 && end.file_id == loc.file_id &&
      end.line == loc.line) {
    size_t end_col = std::min<size_t>(end.column - 1, line.size());
    std::string tail = CaretPadding(line.substr(0, end_col), end_col);
    size_t head = CaretPadding(line, col + 1).size();
    if (tail.size() > head) caret += std::string(tail.size() - head, '~');
  }
  out += caret;
  out += '\n';
  return out;
}

void TextDiagnosticPrinter::Handle(const Diagnostic& diag) {
  std::string text = RenderDiagnostic(sm_, diag);
  std::fwrite(text.data(), 1, text.size(), out_);
}

DiagnosticBuilder::~DiagnosticBuilder() {
  if (engine_) engine_->Emit(diags_);
}

void DiagnosticEngine::Emit(std::vector<Diagnostic>& diags) {
  Diagnostic& main = diags.front();
  if (main.severity == Severity::Warning) {
    if (suppress_warnings_) return;
    if (warnings_as_errors_) main.severity = Severity::Error;
  }
  if (main.severity == Severity::Error) {
    if (ShouldStop()) {
      if (!limit_reported_) {
        limit_reported_ = true;
        Diagnostic stop{DiagKind::TooManyErrors, Severity::Error, SourceRange{},
                        std::string(DiagKindFormat(DiagKind::TooManyErrors))};
        consumer_->Handle(stop);
      }
      return;
    }
    ++error_count_;
  } else if (main.severity == Severity::Warning) {
    ++warning_count_;
  }
  std::FILE* log = kind_log_.empty() ? nullptr : std::fopen(kind_log_.c_str(), "a");
  for (const Diagnostic& d : diags) {
    consumer_->Handle(d);
    if (log) fmt::print(log, "{}\n", DiagKindName(d.kind));
  }
  if (log) std::fclose(log);
}

}  // namespace tmc
