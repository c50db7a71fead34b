// The op reference compiled to host code: what `tmc run` compares kernels
// with. Same semantics as ir::EvaluateOp (the tree-walking oracle): f64
// values, reductions in the same order, so the results are the same bit
// for bit; but compiled through LLVM and run on all cores, so a 512^3
// matmul or a conv2d reference takes a fraction of a second.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast/ast.h"
#include "ir/reference_eval.h"

namespace tmc::codegen {

/// Evaluates `op` on `inputs` (one per parameter) into `outs` (one per
/// result) like ir::EvaluateOp.
/// `threads` workers (0: one per core). An op the compiler cannot
/// translate, and any failure at run time (an index out of range in the
/// op), are handed to ir::EvaluateOp, so the result and the error message
/// are always the oracle's. As there, `outs` may hold the results' shapes
/// on entry. `compiled`, if given, says whether the compiled
/// code produced the result.
bool EvaluateOpCompiled(const ast::OpDecl& op, const std::vector<ir::HostTensor>& inputs,
                        std::vector<ir::HostTensor>* outs, std::string* error, int64_t* flops = nullptr,
                        int threads = 0, bool* compiled = nullptr);

}  // namespace tmc::codegen
