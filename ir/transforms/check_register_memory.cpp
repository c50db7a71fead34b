// Sums the sizes of the register allocations as code generation will make
// them (one per Alloc statement, after unrolling), in declaration order.
#include "ir/transforms/check_register_memory.h"

#include "ir/mutator.h"
#include "ir/transforms/flatten_buffers.h"

namespace tmc::ir {
namespace {

class Sum : public Visitor {
 public:
  int64_t bytes = 0;
  SourceRange crossing;  // the declaration that first went over the limit

 protected:
  void Visit(const Alloc* a) override {
    const Buffer& b = *a->buffer;
    if (b.scope != MemScope::Register) return;
    // Each array is below 2^31 elements (the checker), so no overflow.
    bytes += AllocatedElements(b) * ScalarBytes(b.elem);
    if (bytes > kMaxRegisterBytes && !crossing.IsValid()) crossing = a->loc;
  }
};

}  // namespace

void CheckRegisterMemory(Function& fn, PassContext& ctx) {
  Sum sum;
  Visitor& v = sum;
  v.Walk(fn.body);
  if (ctx.diags && sum.bytes > kMaxRegisterBytes)
    ctx.diags->Report(sum.crossing.IsValid() ? sum.crossing : fn.loc, DiagKind::RegisterMemoryTooLarge,
                      fn.kind == Function::Kind::Kernel ? "kernel" : "function", fn.name, sum.bytes,
                      kMaxRegisterBytes);
}

}  // namespace tmc::ir
