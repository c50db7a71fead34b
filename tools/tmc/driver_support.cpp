#include "tools/tmc/driver_support.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace tmc::driver {

CompileOptions FrontendOptions(const Options& o) {
  CompileOptions copts;
  copts.include_dirs = o.include_dirs;
  copts.stdlib_dir = o.stdlib_dir;
  copts.check.defines = o.defines;
  copts.check.defines_kernel = o.kernel;
  copts.check.kernel_defines = o.kernel_defines;
  copts.main_appendix = o.op_source;
  copts.main_imports = o.main_imports;
  return copts;
}

void ApplyDiagnosticOptions(const Options& o, DiagnosticEngine& diags) {
  diags.SetWarningsAsErrors(o.warnings_as_errors);
  diags.SetSuppressWarnings(o.no_warnings);
  for (const std::string& flag : o.disabled_warnings) diags.DisableWarning(flag);
  diags.SetErrorLimit(o.error_limit);
}

bool WriteFile(const std::string& path, const std::string& bytes, std::string* error) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) *error = "cannot write '" + path + "': " + std::strerror(errno);
  return static_cast<bool>(f);
}

double RandomInputValue(ScalarKind k, std::mt19937_64& rng, std::uniform_real_distribution<double>& uniform) {
  if (IsFloat(k)) {
    double v = uniform(rng);
    return v >= 0 ? v + 0.0625 : v - 0.0625;
  }
  if (k == ScalarKind::Bool) return 1.0;
  int64_t v = static_cast<int64_t>(rng() % 8) + 1;
  return static_cast<double>(IsUnsigned(k) || rng() % 2 ? v : -v);
}

// Every combination of the parameters' values: a -D value or the
// candidate list; a parameter with neither keeps its default (no entry).
std::vector<std::vector<std::pair<std::string, int64_t>>> CandidateSpace(const sema::KernelInstance& k, const Options& o) {
  std::vector<std::vector<std::pair<std::string, int64_t>>> space = {{}};
  for (const auto& [name, values] : k.ct_candidates) {
    std::vector<int64_t> choices = values;
    if (auto it = o.define_lists.find(name); it != o.define_lists.end()) choices = it->second;
    else if (auto it = o.defines.find(name); it != o.defines.end()) choices = {it->second};
    if (choices.empty()) continue;
    std::vector<std::vector<std::pair<std::string, int64_t>>> next;
    for (const auto& partial : space)
      for (int64_t v : choices) {
        next.push_back(partial);
        next.back().emplace_back(name, v);
      }
    space = std::move(next);
  }
  return space;
}

int ChangedParams(const sema::KernelInstance& k, const std::vector<std::pair<std::string, int64_t>>& combo) {
  int n = 0;
  for (const auto& [p, v] : combo) {
    auto it = std::find_if(k.ct_values.begin(), k.ct_values.end(), [&](const auto& cv) { return cv.first == p; });
    if (it == k.ct_values.end() || it->second != v) ++n;
  }
  return n;
}

}  // namespace tmc::driver
