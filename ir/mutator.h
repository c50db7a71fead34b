// Rewriting the IR: override the Visit* of the kinds a pass changes; the
// defaults rebuild a node only when a child changed, so a pass that changes
// nothing allocates nothing (Halide's IRMutator, TVM's copy-on-write).
#pragma once

#include "ir/ir.h"

namespace tmc::ir {

class Mutator {
 public:
  virtual ~Mutator() = default;
  Expr Mutate(const Expr& e);
  Stmt Mutate(const Stmt& s);

 protected:
#define TMC_IR_EXPR(name) virtual Expr Visit(const name* e, const Expr& self);
#include "ir/node_kinds.def"
#define TMC_IR_STMT(name) virtual Stmt Visit(const name* s, const Stmt& self);
#include "ir/node_kinds.def"
  std::vector<Expr> MutateAll(const std::vector<Expr>& es, bool* changed);
  /// The indices of a kept source access (see SourceAccess), mutated.
  SourceAccess MutateSource(const SourceAccess& s, bool* changed);
};

/// Read-only traversal; override the kinds of interest and call the base to
/// keep descending.
class Visitor {
 public:
  virtual ~Visitor() = default;
  void Walk(const Expr& e);
  /// Virtual so that a visitor can observe every statement on the way down.
  virtual void Walk(const Stmt& s);

 protected:
#define TMC_IR_EXPR(name) virtual void Visit(const name* e);
#include "ir/node_kinds.def"
#define TMC_IR_STMT(name) virtual void Visit(const name* s);
#include "ir/node_kinds.def"
};

/// The register buffers that wgmma reads and writes asynchronously in
/// `fn`: its accumulators and its A operands in registers, in order of
/// first use (code generation passes them through each wgmma_fence and
/// wgmma_wait).
std::vector<const Buffer*> WgmmaRegisters(const Function& fn);

/// Whether `fn`'s body calls the intrinsic `i`.
bool UsesIntrinsic(const Function& fn, Intrinsic i);

}  // namespace tmc::ir
