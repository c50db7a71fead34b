// --op NAME: the op's automatic kernel (graph/auto_schedule.h), added to the
// input file for the compile or tmc run that follows.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "frontend/ast/ast.h"
#include "support/diagnostics.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// Checks the input file (quietly: the compile that follows reports its
/// diagnostics once), finds the op named by --op and writes its automatic
/// kernel to `o->op_source`, naming it in `o->kernel`. False, with an
/// error reported, when there is no such op. When the file does not check,
/// returns true with no kernel: the compile that follows says why.
bool PrepareOpKernel(Options* o, SourceManager& sm, DiagnosticEngine& diags);

/// --graph NAME: partitions the graph, writes its fused ops and kernels to
/// `o->op_source` (rewritten hand-written kernels, automatic schedules for
/// the rest), their names and bindings to `o->graph_kernels`, the launch plan to
/// `o->graph_plan` and the modules they need to `o->main_imports`. False,
/// with an error, when there is no such graph.
bool PrepareGraphKernels(Options* o, SourceManager& sm, DiagnosticEngine& diags);

/// Module metadata (`tmc --emit=meta`) with the graph's launch plan added
/// as its "graphs" entry.
std::string MetadataWithPlan(const std::string& metadata, const std::string& plan);

/// Graph kernel `gk` (declared as `k`): its shape symbols from the graph's
/// (`o.shapes`), each parameter's dimensions against those of the value it
/// is bound to, and its scalar arguments (literals, --arg values).
/// `missing` names a graph symbol that --shape does not give.
void BindGraphKernel(const Options& o, const ast::KernelDecl& k, const Options::GraphKernel& gk,
                     std::map<std::string, int64_t>* shapes, std::map<std::string, std::string>* args,
                     std::string* missing);

/// Whether every --shape symbol is one of the graph's (a typo would go
/// unnoticed); reports the first that is not.
bool CheckGraphShapeSymbols(const Options& o, DiagnosticEngine& diags);

/// tmc run --graph NAME --kernel K: runs (with `run`) kernel K of the plan
/// against its fused op, with its shape symbols derived from the graph's
/// (--shape M=...) through the values each parameter is bound to.
int RunGraphKernels(const Options& o, SourceManager& sm, DiagnosticEngine& diags,
                    const std::function<int(const Options&)>& run);

}  // namespace tmc::driver
