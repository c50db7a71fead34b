#include "tools/tmc/driver_support.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tmc::driver {

CompileOptions FrontendOptions(const Options& o) {
  CompileOptions copts;
  copts.include_dirs = o.include_dirs;
  copts.stdlib_dir = o.stdlib_dir;
  copts.check.defines = o.defines;
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

}  // namespace tmc::driver
