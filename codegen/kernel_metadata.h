// Machine-readable description of compiled kernels (`--emit=meta`), read
// by the host runtime to check arguments and compute launch configurations.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tmc::codegen {

/// JSON: {"module": ..., "arch": ..., "kernels": [{"name", "implements",
/// "params": [{"name", "kind": "tensor"|"scalar"|"shape", "dtype",
/// "shape": [dims as strings], "layout"}], "grid": [formulas over the
/// parameter names], "block": [ints], "shared_bytes", "dynamic_shared",
/// "compile_time": {name: value}}]}. Formulas use C syntax and only
/// parameter names, integer literals, + - * / % and parentheses.
std::string KernelMetadataJson(const ir::Module& m, const std::string& arch);

}  // namespace tmc::codegen
