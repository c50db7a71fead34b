// The reference evaluator: executes `op` definitions directly, with plain
// loops and f64 arithmetic, as the oracle for every kernel that implements
// an op.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontend/check/checker.h"

namespace tmc::ir {

/// A tensor (or, with an empty shape, a scalar) on the host, in f64.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<double> values;  // row-major
  int64_t Size() const;
};

/// Evaluates `op` on `inputs` (one per parameter, in order) into `outs`
/// (one per result, in the op's order). On entry `outs` may hold the
/// results' shapes (values ignored): they give the result dimensions that
/// no input determines (`-> f32[N, P, Q, F]` with P and Q free). Reductions
/// accumulate in f64; casts to integer types truncate, to bool compare with
/// zero; float casts keep f64. Returns false with `error` on a mismatch.
/// `flops`, if given, receives the number of floating-point operations the
/// op performs (each + - * / and math function evaluated), the work that
/// `tmc run --bench` divides by the kernel's time.
bool EvaluateOp(const ast::OpDecl& op, const std::vector<HostTensor>& inputs, std::vector<HostTensor>* outs,
                std::string* error, int64_t* flops = nullptr);

/// An op's conversion of `v` to integer type `to`: truncated toward zero,
/// then wrapped to the type's width as kernels do (docs/language.md §5).
double ConvertToInteger(double v, ScalarKind to);

/// The shapes of the tensors `op`'s statements define, in order (`let`
/// intermediates, then the results), found as EvaluateOp finds them, and the
/// values of the shape symbols and scalar parameters bound by `inputs`.
/// For code that evaluates ops another way (the compiled reference).
bool OpStatementShapes(const ast::OpDecl& op, const std::vector<HostTensor>& inputs,
                       std::vector<std::vector<int64_t>>* shapes, std::map<std::string, double>* symbols,
                       std::string* error, const std::vector<HostTensor>* results = nullptr);

}  // namespace tmc::ir
