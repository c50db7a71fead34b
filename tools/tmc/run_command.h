// `tmc run`: run a kernel on random inputs, compare it with its op.
#pragma once

#include "support/diagnostics.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// Returns the exit code: 0 when the kernel ran, its checks found nothing,
/// and its output matched the reference; 1 otherwise.
int RunKernelCommand(const Options& options, SourceManager& sm, DiagnosticEngine& diags);

}  // namespace tmc::driver
