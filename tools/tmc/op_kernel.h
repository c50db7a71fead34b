// --op NAME: the op's automatic kernel (graph/auto_schedule.h), added to the
// input file for the compile or tmc run that follows.
#pragma once

#include "support/diagnostics.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// Checks the input file (quietly: the compile that follows reports its
/// diagnostics once), finds the op named by --op and writes its automatic
/// kernel to `o->op_source`, naming it in `o->kernel`. False, with an
/// error reported, when there is no such op. When the file does not check,
/// returns true with no kernel: the compile that follows says why.
bool PrepareOpKernel(Options* o, SourceManager& sm, DiagnosticEngine& diags);

}  // namespace tmc::driver
