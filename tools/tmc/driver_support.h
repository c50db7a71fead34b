// What the subcommands of the driver share: the frontend and diagnostics
// set up from the command line, and writing a file.
#pragma once

#include <string>

#include "frontend/compilation.h"
#include "support/diagnostics.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// The frontend's options from the command line: -I, --stdlib, -D.
CompileOptions FrontendOptions(const Options& o);

/// -Werror, -w, -Wno-FLAG and -ferror-limit applied to `diags`.
void ApplyDiagnosticOptions(const Options& o, DiagnosticEngine& diags);

/// Writes `bytes` to `path`; on failure false, with `error` naming the
/// file and the reason.
bool WriteFile(const std::string& path, const std::string& bytes, std::string* error);

}  // namespace tmc::driver
