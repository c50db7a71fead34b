// Automatic schedules: an ordinary .tm kernel for an op that has no
// hand-written one, chosen by rules over the op's definition (as Hidet's
// rule-based schedules and TVM's DLight do). The kernel is source text that
// the frontend then checks and lowers like any other (`tmc --op NAME
// --emit=tm` prints it, to copy and edit).
#pragma once

#include <set>
#include <string>

#include "frontend/ast/ast.h"
#include "frontend/check/checker.h"

namespace tmc::graph {

enum class ScheduleRule {
  Injective,     // no reduction: 256 threads cover 256 * V elements of a row
  RowReduction,  // reductions per row: a warp or a block per row, chosen by the row length
  Serial,        // anything else: one thread per output element, reductions as loops
};

/// "injective", "row reduction", "serial".
const char* RuleName(ScheduleRule rule);

struct AutoKernel {
  std::string name;    // the generated kernel's name: OP_auto
  std::string source;  // the kernel, as .tm text (it `implements` the op)
  ScheduleRule rule = ScheduleRule::Serial;
  /// For the serial rule: why the faster rules did not apply.
  std::string why_serial;
  /// The serial rule over reductions whose reads are not coalesced along
  /// the threads (a matmul, a reduction over the innermost axis of a
  /// several-result op): correct, not fast, worth a warning.
  bool slow = false;
};

/// The kernel for `op`. `taken` holds the names the kernel may not use
/// (the declarations visible where it is added).
AutoKernel ScheduleOp(const ast::OpDecl& op, const std::set<std::string>& taken);

/// Whether any statement of `op` reduces (the op is an anchor in a graph).
bool OpHasReduction(const ast::OpDecl& op);

/// Whether `op` reads its parameter `param` only at the element it writes:
/// every read is `P[i1, ..., in]` with the result's own index variables in
/// order. Such a consumer can be computed where its producer stores.
bool ReadsAtOwnIndex(const ast::OpDecl& op, size_t param);

/// The op `name` declared in `m` or in a module it imports, or null; then
/// `known` lists the ops there are.
const ast::OpDecl* FindOp(const sema::CheckedModule& m, const std::string& name, std::vector<std::string>* known);

/// The top-level names declared in `m` and the modules it imports.
std::set<std::string> VisibleNames(const sema::CheckedModule& m);

}  // namespace tmc::graph
