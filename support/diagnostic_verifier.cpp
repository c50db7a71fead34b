// Matching rule: an expectation matches a diagnostic of the same severity on
// the same file and line whose message contains the expected text. Every
// diagnostic, notes included, must be expected, and every expectation seen.
#include "support/diagnostic_verifier.h"

#include <cctype>

namespace tmc {

std::vector<DiagnosticVerifier::Expectation> DiagnosticVerifier::ParseExpectations(
    std::string_view text, uint32_t file_id, bool* no_diagnostics,
    std::vector<std::string>* errors) {
  std::vector<Expectation> out;
  uint32_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
      continue;
    }
    if (text.compare(i, 9, "expected-") != 0) continue;
    (void)line_start;
    size_t p = i + 9;
    if (text.compare(p, 14, "no-diagnostics") == 0) {
      *no_diagnostics = true;
      i = p + 13;
      continue;
    }
    Severity severity;
    if (text.compare(p, 5, "error") == 0) {
      severity = Severity::Error;
      p += 5;
    } else if (text.compare(p, 7, "warning") == 0) {
      severity = Severity::Warning;
      p += 7;
    } else if (text.compare(p, 4, "note") == 0) {
      severity = Severity::Note;
      p += 4;
    } else {
      continue;
    }
    uint32_t target = line;
    if (p < text.size() && text[p] == '@') {
      ++p;
      char sign = (p < text.size() && (text[p] == '+' || text[p] == '-')) ? text[p++] : 0;
      int64_t n = 0;
      size_t digits = 0;
      while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) && digits < 9) {
        n = n * 10 + (text[p++] - '0');
        ++digits;
      }
      if (digits == 0) {
        errors->push_back(fmt::format("line {}: expected a line number after '@'", line));
        continue;
      }
      int64_t t = sign == '+' ? line + n : sign == '-' ? int64_t{line} - n : n;
      if (t <= 0) {
        errors->push_back(fmt::format("line {}: expectation points before line 1", line));
        continue;
      }
      target = static_cast<uint32_t>(t);
    }
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    // An optional count: `expected-note 3 {{...}}` expects three of them.
    int count = 0;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) && count < 1000)
      count = count * 10 + (text[p++] - '0');
    if (count == 0) count = 1;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (text.compare(p, 2, "{{") != 0) {
      errors->push_back(fmt::format("line {}: expected '{{{{' after expected-{}", line,
                                    SeverityName(severity)));
      continue;
    }
    size_t close = text.find("}}", p + 2);
    size_t nl = text.find('\n', p);
    if (close == std::string_view::npos || (nl != std::string_view::npos && close > nl)) {
      errors->push_back(fmt::format("line {}: missing '}}}}' in expectation", line));
      continue;
    }
    for (int k = 0; k < count; ++k)
      out.push_back(Expectation{severity, file_id, target,
                                std::string(text.substr(p + 2, close - p - 2))});
    i = close + 1;
  }
  return out;
}

bool DiagnosticVerifier::Verify(std::FILE* out) const {
  std::vector<Expectation> expected;
  std::vector<std::string> errors;
  bool no_diagnostics = false;
  for (uint32_t f = 0; f < sm_.FileCount(); ++f) {
    auto e = ParseExpectations(sm_.Contents(f), f, &no_diagnostics, &errors);
    expected.insert(expected.end(), e.begin(), e.end());
  }
  std::vector<bool> used(expected.size(), false);
  std::vector<const Diagnostic*> unexpected;
  for (const Diagnostic& d : seen_) {
    bool matched = false;
    if (d.range.IsValid()) {
      PresumedLoc loc = sm_.Presumed(d.range.begin);
      for (size_t i = 0; i < expected.size() && !matched; ++i) {
        const Expectation& e = expected[i];
        if (used[i] || e.severity != d.severity || e.file_id != loc.file_id || e.line != loc.line)
          continue;
        if (d.message.find(e.text) == std::string::npos) continue;
        used[i] = true;
        matched = true;
      }
    }
    if (!matched) unexpected.push_back(&d);
  }
  bool ok = errors.empty();
  for (const std::string& e : errors) fmt::print(out, "error: malformed expectation: {}\n", e);
  if (no_diagnostics && !expected.empty()) {
    fmt::print(out, "error: expected-no-diagnostics given together with expectations\n");
    ok = false;
  }
  if (!no_diagnostics && expected.empty() && seen_.empty()) {
    fmt::print(out, "error: no expected directives found: use expected-no-diagnostics\n");
    ok = false;
  }
  for (Severity s : {Severity::Error, Severity::Warning, Severity::Note}) {
    std::string missing, extra;
    for (size_t i = 0; i < expected.size(); ++i)
      if (!used[i] && expected[i].severity == s)
        missing += fmt::format("  File {} Line {}: {}\n", sm_.Path(expected[i].file_id),
                               expected[i].line, expected[i].text);
    for (const Diagnostic* d : unexpected) {
      if (d->severity != s) continue;
      if (d->range.IsValid()) {
        PresumedLoc loc = sm_.Presumed(d->range.begin);
        extra += fmt::format("  File {} Line {}: {}\n", loc.path, loc.line, d->message);
      } else {
        extra += fmt::format("  (no location): {}\n", d->message);
      }
    }
    if (!missing.empty())
      fmt::print(out, "error: '{}' diagnostics expected but not seen:\n{}", SeverityName(s), missing);
    if (!extra.empty())
      fmt::print(out, "error: '{}' diagnostics seen but not expected:\n{}", SeverityName(s), extra);
    ok = ok && missing.empty() && extra.empty();
  }
  return ok;
}

}  // namespace tmc
