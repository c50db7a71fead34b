// Thread-block clusters (sm_90): `cluster(...)` groups the blocks of a
// kernel; `cluster_rank()` is a block's rank in its cluster,
// `cluster_sync()` the barrier of all its threads, and the rank arguments
// of `mbarrier_arrive` (another block's barrier) and `tma_load` (a
// multicast mask) name blocks of it (docs/language.md, "Clusters").
#include "frontend/check/checker.h"

namespace tmc::sema {

ExprInfo Checker::CheckClusterCall(ast::CallExpr* e, const std::string& name) {
  if (name == "cluster_sync") return ExprInfo{types_.Void(), std::nullopt, false, nullptr};
  // A device function may be called from kernels with different clusters.
  if (body_ != BodyKind::Kernel) {
    diags_.Report(e->range, DiagKind::ClusterRankInKernel);
    return ErrorInfo();
  }
  return Scalar(ScalarKind::I32);
}

bool Checker::CheckClusterOperand(ast::Expr* arg, bool mask) {
  if (CheckConverted(arg, ScalarKind::I32, mask ? "the multicast mask" : "the block rank").IsError()) return false;
  if (body_ != BodyKind::Kernel || !kernel_instance_) return true;  // a device function: checked at run time
  // A kernel without a `cluster` clause is a cluster of one block (rank
  // 0, mask 1), as on the hardware: generic kernels need not special-case it.
  int64_t blocks = kernel_instance_->ClusterBlocks();
  auto c = module_.constants.find(arg);
  if (c == module_.constants.end() || c->second.kind != ConstValue::Kind::Int) return true;
  int64_t v = c->second.i;
  bool inside = mask ? v >= 1 && v < (int64_t{1} << blocks) : v >= 0 && v < blocks;
  if (!inside) {
    diags_.Report(arg->range, DiagKind::ClusterRankOutside, mask ? "multicast mask" : "block rank", v,
                  kernel_instance_->name, Plural(blocks, "block"),
                  mask ? fmt::format("masks 1 to {}", (int64_t{1} << blocks) - 1) : fmt::format("ranks 0 to {}", blocks - 1));
    return false;
  }
  return true;
}

}  // namespace tmc::sema
