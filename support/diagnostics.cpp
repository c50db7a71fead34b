// Formatting and bookkeeping of diagnostics.
#include "support/diagnostics.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "support/utf8.h"

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

// The echoed source line: valid UTF-8 is shown as is; bad bytes and control
// characters (other than tab) become '?', so a diagnostic about binary
// garbage does not write garbage to the terminal. `columns[i]` is the
// display column at which byte i starts.
struct EchoLine {
  std::string text;
  std::vector<size_t> columns;
};

EchoLine MakeEchoLine(std::string_view line) {
  EchoLine echo;
  echo.columns.assign(line.size() + 1, 0);
  size_t col = 0, i = 0;
  while (i < line.size()) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    size_t len = 1;
    if (c >= 0x80) {
      std::optional<size_t> bad = FindInvalidUtf8(line.substr(i, std::min<size_t>(4, line.size() - i)));
      len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 1;
      if (bad && *bad < len) len = 0;
    }
    if (len == 0) {
      echo.columns[i++] = col++;
      echo.text += '?';
      continue;
    }
    for (size_t k = 0; k < len; ++k) echo.columns[i + k] = col;
    if (c == '\t') echo.text += '\t';
    else if (c < 0x20 || c == 0x7F) echo.text += '?';
    else echo.text.append(line.substr(i, len));
    i += len;
    ++col;
  }
  echo.columns[line.size()] = col;
  return echo;
}

// Spaces up to display column `col`, copying tabs so that carets line up.
std::string Padding(const EchoLine& echo, std::string_view line, size_t col) {
  std::string pad;
  for (size_t i = 0; i < line.size() && echo.columns[i] < col; ++i) {
    if (i > 0 && echo.columns[i] == echo.columns[i - 1]) continue;
    pad += line[i] == '\t' ? '\t' : ' ';
  }
  return pad;
}

}  // namespace

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "error";
}

std::string WarningFlag(DiagKind kind) {
  std::string flag;
  for (char c : DiagKindName(kind)) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!flag.empty()) flag += '-';
      flag += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flag += c;
    }
  }
  return flag;
}

std::vector<std::string> WarningFlags() {
  std::vector<std::string> flags;
  for (size_t k = 0; k < kKinds.size(); ++k)
    if (kKinds[k].severity == Severity::Warning) flags.push_back(WarningFlag(static_cast<DiagKind>(k)));
  return flags;
}

std::string GeneratedSummary(unsigned warnings, unsigned errors) {
  auto count = [](unsigned n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); };
  if (warnings && errors) return count(warnings, "warning") + " and " + count(errors, "error") + " generated.";
  if (warnings) return count(warnings, "warning") + " generated.";
  if (errors) return count(errors, "error") + " generated.";
  return "";
}

std::string_view DiagKindName(DiagKind kind) { return kKinds[static_cast<size_t>(kind)].name; }
Severity DiagKindSeverity(DiagKind kind) { return kKinds[static_cast<size_t>(kind)].severity; }
std::string_view DiagKindFormat(DiagKind kind) { return kKinds[static_cast<size_t>(kind)].format; }

std::string RenderDiagnostic(const SourceManager& sm, const Diagnostic& diag, bool color) {
  // The escape sequences clang writes.
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  const char* severity_color = !color                               ? ""
                               : diag.severity == Severity::Error   ? "\033[0;1;31m"
                               : diag.severity == Severity::Warning ? "\033[0;1;35m"
                                                                    : "\033[0;1;30m";
  std::string flag = diag.flag.empty() ? "" : " [" + diag.flag + "]";
  std::string head = fmt::format("{}{}: {}{}{}{}{}\n", severity_color, SeverityName(diag.severity), reset, bold,
                                 diag.message, flag, reset);
  std::string out;
  if (!diag.range.IsValid()) return fmt::format("{}tmc: {}{}", bold, reset, head);
  PresumedLoc loc = sm.Presumed(diag.range.begin);
  out = fmt::format("{}{}:{}:{}: {}{}", bold, loc.path, loc.line, loc.column, reset, head);
  std::string_view line = sm.LineText(loc.file_id, loc.line);
  // Long lines (minified or generated input) are not echoed in full.
  constexpr size_t kMaxEcho = 4096;
  if (line.size() > kMaxEcho) return out;
  EchoLine echo = MakeEchoLine(line);
  out += echo.text;
  out += '\n';
  size_t begin = std::min<size_t>(loc.column - 1, line.size());
  size_t begin_col = echo.columns[begin];
  std::string caret = Padding(echo, line, begin_col) + (color ? "\033[0;1;32m^" : "^");
  // Underline the rest of the range when it stays on this line.
  PresumedLoc end = sm.Presumed(diag.range.end);
  if (diag.range.end.offset > diag.range.begin.offset + 1 && end.file_id == loc.file_id &&
      end.line == loc.line) {
    size_t end_col = echo.columns[std::min<size_t>(end.column - 1, line.size())];
    if (end_col > begin_col + 1) caret += std::string(end_col - begin_col - 1, '~');
  }
  out += caret;
  out += reset;
  out += '\n';
  return out;
}

void TextDiagnosticPrinter::Handle(const Diagnostic& diag) {
  std::string text = RenderDiagnostic(sm_, diag, color_);
  std::fwrite(text.data(), 1, text.size(), out_);
}

DiagnosticBuilder::~DiagnosticBuilder() {
  if (engine_) engine_->Emit(diags_);
}

void DiagnosticEngine::Emit(std::vector<Diagnostic>& diags) {
  Diagnostic& main = diags.front();
  if (main.severity == Severity::Warning) {
    std::string flag = WarningFlag(main.kind);
    if (suppress_warnings_ || std::find(disabled_.begin(), disabled_.end(), flag) != disabled_.end()) return;
    for (const SourceRange& r : quiet_ranges_)
      if (main.range.begin.offset >= r.begin.offset && main.range.begin.offset < r.end.offset) return;
    main.flag = "-W" + flag;
    if (warnings_as_errors_) {
      main.severity = Severity::Error;
      main.flag = "-Werror,-W" + flag;
    }
  }
  if (main.severity == Severity::Error) {
    if (ShouldStop()) return;  // past the limit: already said so
    ++error_count_;
  } else if (main.severity == Severity::Warning) {
    ++warning_count_;
  }
  // The last error allowed is followed at once by the note that stages now
  // stop, since they stop before reporting another.
  if (ShouldStop() && !limit_reported_) {
    limit_reported_ = true;
    diags.push_back(Diagnostic{DiagKind::TooManyErrors, Severity::Error, SourceRange{},
                               std::string(DiagKindFormat(DiagKind::TooManyErrors)), {}});
  }
  // A note about a tool's wrapper text (see VisibleText) would only confuse.
  diags.erase(std::remove_if(diags.begin() + 1, diags.end(),
                             [&](const Diagnostic& d) {
                               return d.severity == Severity::Note && d.range.IsValid() && sm_.IsHidden(d.range.begin);
                             }),
              diags.end());
  std::FILE* log = kind_log_.empty() ? nullptr : std::fopen(kind_log_.c_str(), "a");
  for (const Diagnostic& d : diags) {
    consumer_->Handle(d);
    if (log) fmt::print(log, "{}\n", DiagKindName(d.kind));
  }
  if (log) std::fclose(log);
}

}  // namespace tmc
