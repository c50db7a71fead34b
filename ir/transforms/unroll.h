// unroll: fully unrolls loops marked `unroll` with constant bounds.
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

/// Requires: nothing. Guarantees: every For marked unroll whose begin, end
/// and step are constants as written (not once an enclosing unrolled
/// loop's counter is replaced: such a loop stays a loop in each copy, with
/// constant bounds and its mark) is replaced by one copy of its body per
/// iteration, with the counter replaced by its value and every variable
/// declared inside the body renamed per copy (so that the copies can share
/// a scope). Loops with non-constant bounds stay loops, and so do loops
/// whose copies would exceed kMaxUnrolledStatements statements (a warning
/// at the loop): `unroll(100000000)` would exhaust memory, and a few
/// thousand copies already take LLVM seconds.
void Unroll(Function& fn, PassContext& ctx);

/// Statements in `s` (Seqs not counted): the unit of the limit.
int64_t CountStatements(const Stmt& s);

/// The most statements one unrolled loop may produce.
constexpr int64_t kMaxUnrolledStatements = 4096;

}  // namespace tmc::ir
