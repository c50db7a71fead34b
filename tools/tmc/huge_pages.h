// huge-pages: the compiler's stack and heap in 2 MB transparent huge pages.
//
// Why: a compile touches about 10 MB of fresh heap and 2 MB of stack, and
// on the virtual machines tmc is measured on a page fault costs 5-25 us:
// in 4 KB pages that was 600 faults, a sixth of a kernel's compile time.
// In huge pages it is a few dozen. The executable's zero-initialized data
// goes into huge pages too, before main (huge_pages.cpp: a .preinit_array
// entry, nothing to call).
#pragma once

#include <cstddef>

namespace tmc::driver {

/// A thread stack of `bytes` (a multiple of 2 MB) for pthread_attr_setstack,
/// 2 MB aligned, in huge pages, with a guard page at its bottom; null if it
/// cannot be mapped. (glibc maps thread stacks with MAP_STACK, which Linux
/// 6.7 and later keeps out of huge pages.)
void* HugePageStack(size_t bytes);

/// Makes jemalloc map each new region of the calling thread's arena 2 MB
/// aligned and rounded up to 2 MB, advised for huge pages. (jemalloc grows
/// an arena by regions of 2, 2.5, 3, 3.5 MB ...; the kernel backs only
/// whole aligned 2 MB ranges with huge pages, so most of those faulted in
/// 4 KB pages.) Called at the start of each thread that compiles; does
/// nothing without jemalloc.
void HugePagesForThisThread();

}  // namespace tmc::driver
