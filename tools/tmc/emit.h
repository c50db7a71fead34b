// The back half of the driver: IR pipeline and the --emit outputs.
#pragma once

#include <string>

#include "frontend/check/checker.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// Lowers a checked module (only the kernels `only_kernels` names when it
/// is not empty) and returns what --emit asks for (ir, llvm, ptx, cubin,
/// cuda or meta); errors go to `diags`. With `meta`, also the kernel
/// metadata of the same lowering.
std::string EmitModule(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags,
                       const std::vector<std::string>& only_kernels = {}, std::string* meta = nullptr);

}  // namespace tmc::driver
