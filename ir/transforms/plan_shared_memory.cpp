// Shared tensors live for the whole kernel, so offsets are simply assigned
// in declaration order; a later pass could overlap tensors whose lifetimes
// do not intersect.
#include "ir/transforms/plan_shared_memory.h"

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

class Collect : public Visitor {
 public:
  std::vector<Buffer*> shared;

 protected:
  void Visit(const Alloc* a) override {
    if (a->buffer->scope == MemScope::Shared) shared.push_back(a->buffer.get());
  }
};

}  // namespace

int64_t SharedMemoryLimit(int sm_arch) {
  if (sm_arch >= 90) return 227 * 1024;
  if (sm_arch == 86 || sm_arch == 89) return 99 * 1024;
  return 163 * 1024;
}

void PlanSharedMemory(Function& fn, PassContext& ctx) {
  Collect c;
  c.Walk(fn.body);
  int64_t offset = 0;
  for (Buffer* b : c.shared) {
    offset = (offset + 15) / 16 * 16;
    b->shared_offset = offset;
    int64_t elems = 1;
    for (const Expr& d : b->shape) elems *= AsConstInt(d).value_or(1);
    offset += elems * ScalarBytes(b->elem);
  }
  fn.shared_bytes = offset;
  if (ctx.diags && offset > SharedMemoryLimit(ctx.sm_arch))
    ctx.diags->Report(fn.loc, DiagKind::SharedMemoryTooLarge, fn.name, offset, SharedMemoryLimit(ctx.sm_arch),
                      ctx.ArchName());
}

}  // namespace tmc::ir
