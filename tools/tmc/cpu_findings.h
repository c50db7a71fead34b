// Running kernels on the CPU executor from the driver: the executor's
// entry points for the JIT, and its findings (races, bounds, divergence,
// hangs) as diagnostics at their source lines. Shared by `tmc run` of one
// kernel and of a graph's plan.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/cpu/cpu_jit.h"
#include "ir/ir.h"
#include "runtime/cpu/cpu_executor.h"
#include "support/diagnostics.h"

namespace tmc::driver {

/// The executor's functions that CPU-compiled kernels call, by name.
std::map<std::string, void*> ExecutorSymbols();

/// Reports `findings` of a run of `kernel`; unrolled copies of one
/// statement are reported once per source location, with counts added up.
void ReportFindings(const std::vector<runtime::CpuFinding>& findings, const codegen::CpuModule& cpu_module,
                    const ir::Function& kernel, int64_t block_threads, double timeout, DiagnosticEngine& diags);

}  // namespace tmc::driver
