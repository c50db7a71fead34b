// Shared tensors live for the whole kernel, so offsets are simply assigned
// in declaration order; a later pass could overlap tensors whose lifetimes
// do not intersect.
#include "ir/transforms/plan_shared_memory.h"

#include <algorithm>

#include "ir/mutator.h"
#include "ir/transforms/flatten_buffers.h"

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

// A swizzled tensor starts at a multiple of its swizzle period (at most
// 1024 bytes), so that the pattern of its offsets is that of its addresses:
// the hardware swizzles of wgmma and TMA work on address bits.
int64_t SharedAlignment(const Buffer& b) {
  if (b.layout != LayoutKind::Swizzle || b.layout_args.size() != 3) return 16;
  int64_t bits = 0;
  for (const Expr& a : b.layout_args) {
    std::optional<int64_t> v = AsConstInt(a);
    if (!v) return 16;
    bits += *v;
  }
  if (bits > 20) return 1024;
  return std::clamp<int64_t>((int64_t{1} << bits) * ScalarBytes(b.elem), 16, 1024);
}

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
  fn.shared_align = 16;
  for (Buffer* b : c.shared) {
    int64_t align = std::max(SharedAlignment(*b), b->align);  // TMA tiles: 128
    fn.shared_align = std::max(fn.shared_align, align);
    offset = (offset + align - 1) / align * align;
    b->shared_offset = offset;
    // Below 2^31 elements each (the checker), so no overflow short of
    // millions of tensors; the sum saturates all the same.
    int64_t bytes = AllocatedElements(*b) * ScalarBytes(b->elem);
    if (__builtin_add_overflow(offset, bytes, &offset)) offset = INT64_MAX - 15;
  }
  // A multiple of 16 bytes, like each offset: the CAS loops that implement
  // 8- and 16-bit atomics read and write the whole aligned 32-bit word, which
  // must lie inside the array.
  fn.shared_bytes = (offset + 15) / 16 * 16;
  if (ctx.diags && fn.shared_bytes > SharedMemoryLimit(ctx.sm_arch))
    ctx.diags->Report(fn.loc, DiagKind::SharedMemoryTooLarge, fn.name, fn.shared_bytes, SharedMemoryLimit(ctx.sm_arch),
                      ctx.ArchName());
}

}  // namespace tmc::ir
