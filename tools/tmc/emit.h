// The back half of the driver: IR pipeline and the --emit outputs.
#pragma once

#include <string>

#include "frontend/check/checker.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// Lowers a checked module (only `only_kernel` of its kernels when not
/// empty) and returns what --emit asks for (ir, llvm, ptx, cubin, cuda or
/// meta); errors go to `diags`. With `meta`, also the kernel metadata of
/// the same lowering.
std::string EmitModule(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags,
                       const std::string& only_kernel = "", std::string* meta = nullptr);

}  // namespace tmc::driver
