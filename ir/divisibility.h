// Divisibility facts stated by conditions, for the code generators.
#pragma once

#include <utility>
#include <vector>

#include "ir/ir.h"

namespace tmc::ir {

/// The conjuncts of `cond` of the form `x % c == 0` with c a power of two
/// (at least 2), as (x, c). Inside a branch taken on `cond`, each x is a
/// multiple of c: the code generators tell LLVM (llvm.assume) and nvcc
/// (__builtin_assume), which then prove accesses aligned and merge them
/// into vector ones (split-tails writes such conditions).
std::vector<std::pair<Expr, int64_t>> DivisibilityFacts(const Expr& cond);

}  // namespace tmc::ir
