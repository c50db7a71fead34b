// Checked AST -> IR: kernels (with their chosen compile-time parameter
// values) and the device functions they call.
#pragma once

#include <memory>

#include "frontend/check/checker.h"
#include "ir/ir.h"

namespace tmc::ir {

/// Lowers every kernel of `module` (which must have passed checking), or
/// only those named in `only_kernels` when it is not empty (one kernel, or
/// a graph's kernels), and the device functions they use, from this module
/// or imported ones.
std::unique_ptr<Module> LowerFromAst(const sema::CheckedModule& module, const std::vector<std::string>& only_kernels = {});

}  // namespace tmc::ir
