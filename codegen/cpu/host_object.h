// IR -> a relocatable host object (x86-64 ELF) for libraries that run their
// kernels on the CPU executor (tmc lib --cpu). The JIT's code, compiled
// ahead of time: the same kernel ABI (codegen/cpu/cpu_abi.h), for any
// x86-64 machine rather than this one.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace tmc::codegen {

struct HostObject {
  std::string object;              // ELF relocatable object, position-independent
  std::vector<SourceRange> sites;  // source range of each site id, for fault reports
};

/// Compiles every kernel of `m` (after the IR pipeline) at -O2 for the
/// generic x86-64 CPU, each as the external function `prefix + name`
/// (everything else internal, so that two libraries link together). The
/// object calls the executor's tmc_cpu_* functions (the runtime library
/// defines them), libm and the compiler runtime (half conversions).
bool CompileHostObject(const ir::Module& m, const std::string& prefix, HostObject* out, std::string* error);

}  // namespace tmc::codegen
