// The back half of the driver: IR pipeline and the --emit outputs.
#pragma once

#include <string>

#include "frontend/check/checker.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// Lowers a checked module and returns what --emit asks for (ir, llvm,
/// ptx, cuda or meta); errors go to `diags`.
std::string EmitModule(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags);

}  // namespace tmc::driver
