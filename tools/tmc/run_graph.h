// `tmc run FILE --graph NAME`: the graph's launch plan run end to end and
// checked against the unfused op-by-op reference (docs/fusion.md).
#pragma once

#include <string>

#include "support/diagnostics.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// The prefix of the reference ops that PrepareGraphKernels appends for
/// tmc run: GRAPH_ref0, GRAPH_ref1, ... (one per operation).
std::string RunGraphReferencePrefix(const std::string& graph);

/// Runs the plan that PrepareGraphKernels wrote into `options`; 0 when
/// every kernel ran cleanly and every value matched its reference.
int RunGraphCommand(const Options& options, SourceManager& sm, DiagnosticEngine& diags);

}  // namespace tmc::driver
