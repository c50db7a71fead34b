// huge-pages: see huge_pages.h.
#include "tools/tmc/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifdef TMC_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>

#include <mutex>
#include <string>

// jemalloc reads its options from this symbol: transparent huge pages for
// its heap and metadata.
extern "C" {
const char* malloc_conf = "thp:always,metadata_thp:always";
}
#endif

namespace tmc::driver {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// `bytes` (rounded up to 2 MB) of fresh memory aligned to `align` (at
// least 2 MB), advised for huge pages; null if mmap fails.
void* MapAligned(size_t bytes, size_t align) {
  if (align < kHugePage) align = kHugePage;
  bytes = (bytes + kHugePage - 1) & ~(kHugePage - 1);
  void* p = mmap(nullptr, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto begin = reinterpret_cast<uintptr_t>(p);
  uintptr_t aligned = (begin + align - 1) & ~(align - 1);
  if (aligned > begin) munmap(p, aligned - begin);
  uintptr_t end = begin + bytes + align;
  if (end > aligned + bytes) munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
  madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

#ifdef TMC_WITH_JEMALLOC
extent_hooks_t* default_hooks = nullptr;
extent_hooks_t huge_hooks;

// jemalloc's extent allocation hook: a new region where jemalloc lets the
// address be chosen; jemalloc's own where it asks for a given address (to
// grow a region in place). The rounding beyond `size` stays mapped and
// unused (address space, and at most part of one huge page; jemalloc's
// default hooks, which unmap and split what they are given, never see it).
void* AllocHuge(extent_hooks_t* /*hooks*/, void* new_addr, size_t size, size_t alignment, bool* zero, bool* commit,
                unsigned arena) {
  if (new_addr) return default_hooks->alloc(default_hooks, new_addr, size, alignment, zero, commit, arena);
  void* p = MapAligned(size, alignment);
  if (!p) return nullptr;
  *zero = true;  // fresh anonymous memory
  *commit = true;
  return p;
}
#endif

}  // namespace

void* HugePageStack(size_t bytes) {
  void* p = MapAligned(bytes, kHugePage);
  if (p) mprotect(p, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE);  // the guard page, below the stack
  return p;
}

void HugePagesForThisThread() {
#ifdef TMC_WITH_JEMALLOC
  unsigned arena = 0;
  size_t len = sizeof(arena);
  if (mallctl("thread.arena", &arena, &len, nullptr, 0) != 0) return;
  std::string name = "arena." + std::to_string(arena) + ".extent_hooks";
  extent_hooks_t* current = nullptr;
  len = sizeof(current);
  if (mallctl(name.c_str(), &current, &len, nullptr, 0) != 0 || !current || current == &huge_hooks) return;
  // jemalloc's defaults, the same for every arena: what AllocHuge falls
  // back on, and every other operation.
  static std::once_flag once;
  std::call_once(once, [&] {
    default_hooks = current;
    huge_hooks = *current;
    huge_hooks.alloc = AllocHuge;
  });
  if (current != default_hooks) return;  // someone else's hooks: leave them
  extent_hooks_t* mine = &huge_hooks;
  mallctl(name.c_str(), nullptr, nullptr, &mine, sizeof(mine));
#endif
}

}  // namespace tmc::driver
