// `tmc tune` and `tmc db` (docs/tuning.md).
#pragma once

#include "tools/tmc/options.h"

namespace tmc::driver {

/// Enumerates a kernel's candidates (its `in [...]` values that satisfy
/// `where`; type parameters stay at their -D or default value), compiles
/// them on all cores, drops those that spill, do not fit on an SM or do
/// not serve the shape, checks the rest on the CPU executor against the
/// op, then times them on the GPU (or ranks them by the static model),
/// and records every result and the best in the tuning database. Returns
/// the exit code: 1 when nothing could be tuned or a candidate computed a
/// wrong result.
int TuneCommand(const Options& o);

/// tmc db show | export | import FILE | merge DB...
int DbCommand(const Options& o);

}  // namespace tmc::driver
