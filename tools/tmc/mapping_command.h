// `tmc mapping EXPR`: shows what a task mapping assigns to whom.
#pragma once

#include <string>

#include "support/diagnostics.h"
#include "support/task_mapping.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// Evaluates the mapping expression (reporting errors through `diags`) and
/// appends the report to `out`.
void RunMappingCommand(const Options& options, SourceManager& sm, DiagnosticEngine& diags,
                       std::string* out);

/// The report for an evaluated mapping (exposed for unit tests).
std::string DescribeMapping(const TaskMapping& m, std::optional<int64_t> worker, bool grid,
                            std::optional<int64_t> threads);

}  // namespace tmc::driver
