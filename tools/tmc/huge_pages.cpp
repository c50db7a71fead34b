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
// its heap and metadata, and no incremental garbage collection of the
// thread caches (by default every 64 KB allocated, a cache bin's unused
// objects go back to the arena, to be fetched again by the next
// allocations: 0.4% of compiling a large kernel; what a thread caches
// stays bounded by the caches' sizes).
// (tcache_gc_incr_bytes is jemalloc 5.3's; an older one would print an
// error about it on every run.)
extern "C" {
#if JEMALLOC_VERSION_MAJOR > 5 || (JEMALLOC_VERSION_MAJOR == 5 && JEMALLOC_VERSION_MINOR >= 3)
const char* malloc_conf = "thp:always,metadata_thp:always,tcache_gc_incr_bytes:1073741824";
#else
const char* malloc_conf = "thp:always,metadata_thp:always";
#endif
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

// The executable's zero-initialized data (.bss): LLVM's command-line
// options and other statics, 2.6 MB, of which a compile touches ~500 KB in
// ~120 faults of 4 KB before main runs. Before the static constructors
// (.preinit_array runs first), the bss mapping is extended to the next
// 2 MB boundary where nothing is mapped there (tmc's laid-out code begins
// at one, scripts/optimize_layout.sh) and every 2 MB range in it becomes a
// huge page: advised, and collapsed at once (Linux 6.1+), since the loader
// and libc have already touched a few of its pages, which would otherwise
// keep the range in 4 KB pages. Where any step is refused the rest stays
// as it was.
extern "C" char __bss_start[];
extern "C" char _end[];

void HugePagesForStaticData(int, char**, char**) {
  constexpr int kMadvCollapse = 25;  // MADV_COLLAPSE, Linux 6.1
  auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto bss = reinterpret_cast<uintptr_t>(__bss_start);
  auto end = (reinterpret_cast<uintptr_t>(_end) + page - 1) & ~(page - 1);
  uintptr_t first = (bss + kHugePage - 1) & ~(kHugePage - 1);
  uintptr_t last = (end + kHugePage - 1) & ~(kHugePage - 1);
  if (last > end) {
    void* tail = mmap(reinterpret_cast<void*>(end), last - end, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (tail == MAP_FAILED || reinterpret_cast<uintptr_t>(tail) != end) {
      if (tail != MAP_FAILED) munmap(tail, last - end);
      last -= kHugePage;  // the partial range at the end stays in 4 KB pages
    }
  }
  if (last <= first) return;
  for (uintptr_t at = first; at < last; at += kHugePage) {
    void* range = reinterpret_cast<void*>(at);
    if (madvise(range, kHugePage, MADV_HUGEPAGE) == 0) madvise(range, kHugePage, kMadvCollapse);
  }
}

// Not under AddressSanitizer, whose own start-up comes first there.
#ifndef __SANITIZE_ADDRESS__
__attribute__((section(".preinit_array"), used)) void (*const kHugePagesForStaticData)(int, char**, char**) =
    HugePagesForStaticData;
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
