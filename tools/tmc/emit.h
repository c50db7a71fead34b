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

/// Lowers a checked module like EmitModule and compiles its kernels for the
/// host (tmc lib --cpu): an x86-64 object whose kernels are named `prefix`
/// + their name, and the source location ("file:line:col") of each site id.
bool EmitHostObject(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags,
                    const std::vector<std::string>& only_kernels, const std::string& prefix, std::string* object,
                    std::vector<std::string>* sites);

}  // namespace tmc::driver
