// Fibers are coroutines with their own stacks (tmc_fiber_switch below). A block's scheduler
// runs every ready fiber in turn; a fiber that reaches `sync` or a warp
// operation parks itself. When all live fibers are parked at the same
// barrier, they are released together; a barrier that some threads have
// left (returned) or reach at another site is barrier divergence, reported
// and the block abandoned. Warp operations rendezvous the same way among
// the 32 lanes of a warp, with two banks of slots so that a lane can enter
// the next operation while slower lanes still read the previous one.
#include "runtime/cpu/cpu_executor.h"
#include "runtime/cpu/wgmma_descriptor.h"

#include "runtime/cpu/grid_shadow.h"
#include "runtime/half.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tuple>
#include <unordered_map>

// A fiber switch saves the callee-saved registers and the floating-point
// control words on the current stack and moves to another stack: no system
// call (glibc's swapcontext also saves the signal mask, which costs one per
// switch and made barriers the bottleneck). x86-64 System V only.
extern "C" void tmc_fiber_switch(void** save_sp, void* next_sp);
asm(R"(
  .text
  .globl tmc_fiber_switch
  .type tmc_fiber_switch,@function
tmc_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tmc_fiber_switch, .-tmc_fiber_switch
)");

namespace tmc::runtime {
namespace {

// A fiber's stack: room for the 512 KiB of local memory a GPU thread may
// have (register arrays that do not fit in registers) and the executor's
// own frames. Pages that a kernel never touches cost nothing.
constexpr size_t kStackBytes = 1024 * 1024;

// Fiber stacks are mapped once per process and reused: by every block a
// worker runs, and by later launches (--bench repeats them, tests launch
// many kernels). Each stack has a PROT_NONE guard page below it, so that an
// overflow faults (and is reported, OnStackFault) instead of overwriting
// the neighbour, and none is ever zero-filled: a kernel initialises what it
// uses, and only the pages it touches at the top cost a page fault, once.
class StackPool {
 public:
  // n stacks (their lowest usable byte) for one worker.
  std::vector<char*> Take(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < n) Grow(n - free_.size());
    std::vector<char*> out(free_.end() - static_cast<std::ptrdiff_t>(n), free_.end());
    free_.resize(free_.size() - n);
    return out;
  }
  void Give(const std::vector<char*>& stacks) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.insert(free_.end(), stacks.begin(), stacks.end());
  }
  // Whether `a` lies in a guard page (read from a signal handler: the
  // chunk table only grows, and each entry is published before the count).
  bool IsGuard(uintptr_t a) const {
    int n = chunks_.load(std::memory_order_acquire);
    for (int c = 0; c < n; ++c) {
      uintptr_t base = chunk_base_[c], end = base + chunk_stacks_[c] * Each();
      if (a >= base && a < end && (a - base) % Each() < Page()) return true;
    }
    return false;
  }

 private:
  static size_t Page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
  static size_t Each() { return kStackBytes + Page(); }
  void Grow(size_t n) {
    size_t page = Page(), each = Each();
    void* m = mmap(nullptr, each * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED || chunks_.load() == kMaxChunks) {
      // Out of address space: nothing can run the kernel.
      std::fprintf(stderr, "tmc: error: cannot map %zu fiber stacks for the CPU executor\n", n);
      std::_Exit(1);
    }
    for (size_t i = 0; i < n; ++i) {
      char* base = static_cast<char*>(m) + i * each;
      // A guard page splits the mapping: past the kernel's limit on
      // mappings (vm.max_map_count) a stack would have none.
      if (mprotect(base, page, PROT_NONE) != 0) {
        std::fprintf(stderr, "tmc: error: cannot protect the guard pages of %zu fiber stacks for the CPU executor\n", n);
        std::_Exit(1);
      }
      free_.push_back(base + page);
    }
    int c = chunks_.load();
    chunk_base_[c] = reinterpret_cast<uintptr_t>(m);
    chunk_stacks_[c] = n;
    chunks_.store(c + 1, std::memory_order_release);
  }
  static constexpr int kMaxChunks = 4096;
  std::mutex mu_;
  std::vector<char*> free_;
  std::atomic<int> chunks_{0};
  uintptr_t chunk_base_[kMaxChunks] = {};
  size_t chunk_stacks_[kMaxChunks] = {};
};

StackPool& Stacks() {
  static StackPool* pool = new StackPool;  // never destroyed: a fault may come late
  return *pool;
}

enum class State { Ready, AtBarrier, AtWarp, AtMbarrier, AtCluster, Done };

// What happened to one element (address) in the current barrier interval
// (epoch), and whether an asynchronous copy into it is still in flight
// (across barriers: only the issuing thread's cp_async_wait lands it).
struct Shadow {
  int64_t epoch = -1;
  int32_t writer = -1, writer_site = -1;
  int32_t reader = -1, reader_site = -1;
  int32_t reader2 = -1, reader2_site = -1;
  bool reader_atomic = false, reader2_atomic = false;  // the read was an atomic update
  int32_t pending = -1, pending_site = -1;  // the thread and site of an in-flight cp_async or tma_load
  bool pending_tma = false;                 // the copy in flight is a tma_load
  int32_t pending_rank = -1;                // ... multicast by that thread of this cluster rank (not this block)
  // The accessing threads' clocks (mbarrier ordering within the interval).
  int32_t writer_clock = 0, reader_clock = 0, reader2_clock = 0;
  // wgmmas issued but not yet waited for that read the element (across
  // barriers: only the issuing thread's wgmma_wait ends the read).
  int32_t async_reads = 0, async_reader = -1, async_site = -1;
  bool async_tma_store = false;  // the latest such read is a tma_store's (else a wgmma's)
  // The latest write of the element through the generic proxy (a thread's
  // store, a landed cp_async; not a tma_load), across barriers: its thread,
  // site and that thread's count of fence_proxy_async calls then. Until
  // the thread fences again, the asynchronous proxy (wgmma, tma_store) may
  // not see it.
  int32_t generic_writer = -1, generic_site = -1, generic_fences = 0;
  uint8_t grid_noted = 0;  // global elements: the GridAccess kinds this block told the grid shadow (bits)
};

// A cp_async issued but not yet landed. The source is read when the copy
// is issued; the destination is written when a cp_async_wait completes the
// copy's commit group (group: the thread's count of commits at the issue).
struct AsyncCopy {
  char* dst;
  uint8_t data[16];
  int32_t bytes, elem_bytes, group, site, dst_buffer;
  int64_t dst_offset;
};

// A tma_load issued but not landed: the box as read when issued (zeros
// outside the tensor), written to shared memory when the phase of its
// mbarrier completes.
struct TmaCopy {
  std::vector<std::pair<char*, int64_t>> dst;  // per element: its shared address, its offset in the tile's buffer
  std::vector<uint8_t> data;
  int32_t elem_bytes = 0, thread = -1;
  int32_t rank = -1;  // the issuing block's rank in the cluster, when another block multicast it
};

// A shared-memory read of an issued wgmma, checked for races when the
// wgmma_wait that completes its group comes: the hardware may read until
// then.
struct WgmmaRead {
  const char* addr;
  int32_t buffer, site, group;
  int64_t offset;
};

// Thread-block clusters: what is known to have happened before, per block
// r of the cluster: all its accesses in barrier intervals (epochs) before
// `epoch[r]`, and in interval `clock_epoch[r]` those of its thread u at
// clocks up to `clock[r][u]`. Epochs only grow, so knowledge never goes
// stale: joining takes the later of two.
struct PeerOrder {
  std::vector<int64_t> epoch, clock_epoch;
  std::vector<std::vector<int32_t>> clock;
  void Resize(size_t blocks) {
    if (epoch.size() >= blocks) return;
    epoch.resize(blocks, 0);
    clock_epoch.resize(blocks, -1);
    clock.resize(blocks);
  }
  // Thread `tid` (of `threads`) of block r did what it did up to clock `c` of interval `ep`.
  void Note(size_t r, int64_t ep, int32_t tid, int32_t c, size_t threads) {
    if (clock_epoch[r] != ep) {
      if (clock_epoch[r] > ep) return;
      clock_epoch[r] = ep;
      clock[r].assign(threads, -1);
    }
    clock[r][static_cast<size_t>(tid)] = std::max(clock[r][static_cast<size_t>(tid)], c);
  }
  void Join(const PeerOrder& o) {
    Resize(o.epoch.size());
    for (size_t r = 0; r < o.epoch.size(); ++r) {
      epoch[r] = std::max(epoch[r], o.epoch[r]);
      if (o.clock_epoch[r] > clock_epoch[r]) {
        clock_epoch[r] = o.clock_epoch[r];
        clock[r] = o.clock[r];
      } else if (o.clock_epoch[r] == clock_epoch[r]) {
        for (size_t u = 0; u < clock[r].size() && u < o.clock[r].size(); ++u) clock[r][u] = std::max(clock[r][u], o.clock[r][u]);
      }
    }
  }
  // Thread `tid` of block r's access at clock `c` of interval `ep` happened before.
  bool Covers(size_t r, int64_t ep, int32_t tid, int32_t c) const {
    if (r >= epoch.size()) return false;
    return ep < epoch[r] || (ep == clock_epoch[r] && tid >= 0 && static_cast<size_t>(tid) < clock[r].size() &&
                             clock[r][static_cast<size_t>(tid)] >= c);
  }
};

struct Fiber {
  void* sp = nullptr;  // saved stack pointer while switched out
  char* stack = nullptr;  // kStackBytes, from the StackPool
  tmc_cpu_thread t;
  State state = State::Ready;
  int32_t site = -1;
  int phase = 0;  // the warp bank this fiber's current warp operation uses
  std::vector<AsyncCopy> copies;  // in flight, in issue order
  int32_t committed = 0;          // cp_async_commit calls so far
  // mbarrier waits and the ordering they give (docs/runtime.md, "mbarriers"):
  // the thread's own clock, advanced at each arrive, and, per thread, the
  // clock up to which that thread's accesses happened before this one's
  // (learnt from completed waits). Both belong to one barrier interval.
  int64_t wait_bar = -1;  // shared offset of the mbarrier waited on
  int32_t wait_parity = 0;
  int32_t clock = 0;
  int64_t clock_epoch = -1;
  std::vector<int32_t> known;
  // Clusters: the other blocks' accesses known to have happened before
  // this thread's next ones (learnt from cluster_sync and from waits on
  // mbarriers those blocks arrived on).
  PeerOrder peer;
  int64_t known_epoch = -1;
  std::vector<WgmmaRead> wgmma_reads;  // --check-races: reads of wgmmas not yet waited for
  int32_t wgmma_groups = 0;            // wgmma_commit calls so far
  // Registers (accumulator, A) of issued wgmmas not yet waited for, by
  // address range, with the group and site of their wgmma.
  struct InFlightRegisters {
    const char *begin, *end;
    int32_t group, site;
  };
  std::vector<InFlightRegisters> wgmma_registers;
  // wgmma_fence calls so far, and (in the checking modes) the register
  // accesses since the latest: a wgmma using one of these registers needs
  // a fence between (PTX ISA, wgmma.fence).
  int32_t wgmma_fences = 0;
  struct RegisterTouch {
    const char* addr;
    int32_t buffer, site;
    int64_t offset;
    bool write;
  };
  std::vector<RegisterTouch> unfenced_registers;
  size_t compact_registers_at = 4096;  // its size at which repeated registers are dropped
  std::vector<WgmmaRead> tma_store_reads;  // --check-races: reads of tma_stores not yet waited for
  int32_t tma_store_groups = 0;            // tma_store_commit calls so far
  // The group of the latest tma_store and its site, and the groups a
  // tma_store_wait has completed (those below): a store not completed when
  // the thread ends is reported.
  int32_t tma_store_last_group = -1, tma_store_last_site = -1, tma_store_done_below = 0;
  int32_t proxy_fences = 0;  // fence_proxy_async calls so far
};

// An mbarrier of the block, by its shared-memory offset: the arrivals and
// transaction bytes still expected in the current phase, and the threads
// (with their clocks) that arrived in it and in the last completed phase.
struct Mbarrier {
  int32_t expected = 0, pending = 0;
  int64_t tx = 0;
  int32_t phase = 0;
  int32_t buffer = -1;
  int64_t index = 0;
  // Per thread, the clock up to which its accesses happened before the
  // arrivals of the current phase (`joined`) and of the last completed one
  // (`completed`): the arriving threads' own clocks joined with what they
  // had learnt themselves (a vector clock, so the order is transitive).
  std::vector<int32_t> joined, completed;
  int64_t joined_epoch = -1, completed_epoch = -1;
  // tma_loads of the current phase, and their bytes: they land as late as
  // the hardware may let them, when the phase would complete with them and
  // a thread waits for it (so a read before the wait sees the old tile).
  std::vector<TmaCopy> copies;
  int64_t inflight = 0;
  int64_t key = 0;  // its shared offset
  int64_t init_cluster_epoch = 0;  // the cluster_syncs of its cluster before its init
  // The cluster's accesses ordered before this barrier's arrivals so far
  // (`released`), and before those of its last completed phase.
  PeerOrder released, completed_released;
  // Other blocks' arrivals and multicast copies on it, of the current
  // phase (`remote`) and of completed phases that no thread of this block
  // has waited for since: nothing orders those before this block's exit.
  struct RemoteOp {
    int32_t thread, site, rank;
    bool multicast;
  };
  std::vector<RemoteOp> remote, remote_completed;
};

struct Warp {
  int phase = 0;
  uint32_t values[2][32];
  const void* ptrs[2][32][4];
  // The warpgroup instructions (wgmma, its fences, setmaxnreg) this warp
  // executed, by site: the four warps of a warpgroup must agree.
  std::unordered_map<int32_t, int64_t> group_ops;
};

struct Block {
  std::vector<Fiber> fibers;
  std::vector<Warp> warps;
  void* sched_sp = nullptr;
  int current = 0;
  int64_t epoch = 0;
  bool aborted = false;
  bool check_races = false;
  std::unordered_map<uintptr_t, Shadow> shadow;
  std::vector<CpuFinding>* findings = nullptr;  // of this worker
  int32_t bid[3];
  int64_t linear = 0;             // the block's position in grid order
  GridShadow* grid = nullptr;     // --check-races: shared by all workers
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::atomic<bool>* stop = nullptr;  // set when a block timed out: the launch ends
  double timeout_s = 0;
  ProfileRecorder* profile = nullptr;  // --profile: this worker's
  int64_t shared_bytes = 0;            // of each block of the launch
  std::unordered_map<int64_t, Mbarrier> mbarriers;  // by shared offset, for this block
  std::vector<char> shared;                          // its shared memory
  // Thread-block clusters: the blocks that run together (this one at
  // `rank`), and the cluster_syncs they completed.
  std::vector<Block>* cluster = nullptr;
  int32_t rank = 0;
  int64_t cluster_epoch = 0;
  // setmaxnreg: each warpgroup's register count after its latest one (0:
  // none executed), and the site of its latest increase.
  std::vector<int32_t> warpgroup_registers, warpgroup_inc_site;
};

// Whether every thread of `b` has returned (its shared memory is gone).
bool Exited(const Block& b) {
  return std::all_of(b.fibers.begin(), b.fibers.end(), [](const Fiber& f) { return f.state == State::Done; });
}

// Loop back-edges between two looks at the clock (tmc_cpu_poll).
constexpr int32_t kPollInterval = 4096;

thread_local Block* g_block = nullptr;
alignas(64) thread_local char g_scratch[256];

Fiber& Current() { return g_block->fibers[static_cast<size_t>(g_block->current)]; }

// AddressSanitizer must be told about every stack switch (docs/testing.md):
// before it, the stack being entered; after it, where the switch came from.
// A fiber leaves for the scheduler's stack, whose bounds ASan reports when
// the fiber is first entered. No-ops in ordinary builds.
#if defined(__SANITIZE_ADDRESS__)
thread_local const void* g_sched_stack = nullptr;
thread_local size_t g_sched_stack_size = 0;
void AsanEnter(void** fake_stack, const void* bottom, size_t size) { __sanitizer_start_switch_fiber(fake_stack, bottom, size); }
void AsanArrivedInFiber(void* fake_stack) {
  __sanitizer_finish_switch_fiber(fake_stack, &g_sched_stack, &g_sched_stack_size);
}
void AsanArrivedInScheduler(void* fake_stack) { __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr); }
const void* SchedulerStack() { return g_sched_stack; }
size_t SchedulerStackSize() { return g_sched_stack_size; }
#else
void AsanEnter(void**, const void*, size_t) {}
void AsanArrivedInFiber(void*) {}
void AsanArrivedInScheduler(void*) {}
const void* SchedulerStack() { return nullptr; }
size_t SchedulerStackSize() { return 0; }
#endif

void Park(State s, int32_t site) {
  Fiber& f = Current();
  f.state = s;
  f.site = site;
  void* fake_stack = nullptr;
  // A finished fiber never comes back: ASan may drop its fake stack.
  AsanEnter(s == State::Done ? nullptr : &fake_stack, SchedulerStack(), SchedulerStackSize());
  tmc_fiber_switch(&f.sp, g_block->sched_sp);
  AsanArrivedInFiber(fake_stack);
}

void Record(CpuFinding f) {
  std::vector<CpuFinding>& all = *g_block->findings;
  std::copy(g_block->bid, g_block->bid + 3, f.block);
  for (CpuFinding& e : all)
    if (e.kind == f.kind && e.site == f.site) {
      ++e.count;
      return;
    }
  all.push_back(f);
}

tmc_cpu_kernel_fn g_kernel = nullptr;
thread_local const uint64_t* g_args = nullptr;
const char* g_kernel_name = "";

struct sigaction g_previous_segv;

// A fault in a guard page is a fiber's stack overflowing (compiled kernels
// probe every page of a large frame, so none jumps over its guard page).
// The fiber cannot go on, so say which thread it was and end the process
// with exit code 1; any other fault goes to the previous handler (the
// faulting instruction runs again).
void OnSegv(int, siginfo_t* info, void*) {
  Block* b = g_block;
  if (b && Stacks().IsGuard(reinterpret_cast<uintptr_t>(info->si_addr))) {
    char msg[512];
    int len = std::snprintf(msg, sizeof msg,
                            "tmc: error: thread %d of block (%d, %d, %d) in kernel '%s' overflowed its %zu KiB stack on "
                            "the CPU executor: its register arrays and local variables are too large\n",
                            b->current, b->bid[0], b->bid[1], b->bid[2], g_kernel_name, kStackBytes / 1024);
    if (len > 0) (void)!write(2, msg, static_cast<size_t>(std::min<int>(len, sizeof msg - 1)));
    _exit(1);
  }
  sigaction(SIGSEGV, &g_previous_segv, nullptr);
}

void InstallSegvHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &OnSegv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_previous_segv);
  });
}

// Where a new fiber starts (entered by `ret` from tmc_fiber_switch); it
// never returns: when the kernel is done it parks for good.
extern "C" void FiberMain() {
  AsanArrivedInFiber(nullptr);
  Fiber& f = Current();
  g_kernel(&f.t, g_args);
  // The block's shared memory ends with it: a tma_store still reading it
  // (no tma_store_wait completed its group) reads freed memory.
  if (f.tma_store_last_group >= f.tma_store_done_below) {
    CpuFinding d{CpuFinding::Kind::TmaStoreUnfinished};
    d.site = f.tma_store_last_site;
    d.thread = f.t.linear_tid;
    Record(d);
  }
  Park(State::Done, -1);
}

// A fresh stack laid out as tmc_fiber_switch leaves one: control words,
// six callee-saved registers, and FiberMain as the return address.
void* InitialStack(char* stack) {
#if defined(__SANITIZE_ADDRESS__)
  // A reused stack still carries the poisoned redzones of frames that an
  // earlier fiber left without returning (parked for good, or abandoned).
  ASAN_UNPOISON_MEMORY_REGION(stack, kStackBytes);
#endif
  auto top = reinterpret_cast<uintptr_t>(stack + kStackBytes) & ~uintptr_t{15};
  auto* sp = reinterpret_cast<uint64_t*>(top);
  *--sp = 0;                                          // FiberMain's (unused) return address
  *--sp = reinterpret_cast<uint64_t>(&FiberMain);     // `ret` goes here
  for (int r = 0; r < 6; ++r) *--sp = 0;              // rbp rbx r12 r13 r14 r15
  uint32_t mxcsr;
  uint16_t fpcw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpcw));
  *--sp = static_cast<uint64_t>(mxcsr) | (static_cast<uint64_t>(fpcw) << 32);
  return sp;
}


// At the end of a block: wgmma, its fences and setmaxnreg are executed by
// the four warps of a warpgroup together (.sync.aligned over 128 threads).
// The lanes of each warp meet at them (MeetWarp); a warp of a warpgroup
// that executed one a different number of times than another warp of it
// (`if (threadIdx.x < 32) { setmaxnreg_dec(40); }`) is reported, with the
// first such site (a warp the block lacks counts as none).
void CheckWarpgroups(Block& b) {
  for (size_t g = 0; 4 * g < b.warps.size(); ++g) {
    std::map<int32_t, std::array<int64_t, 4>> counts;  // by site (in order: the first reported is stable)
    for (size_t k = 0; k < 4 && 4 * g + k < b.warps.size(); ++k)
      for (const auto& [site, n] : b.warps[4 * g + k].group_ops) counts[site][k] = n;
    for (const auto& [site, per_warp] : counts) {
      auto lo = std::min_element(per_warp.begin(), per_warp.end());  // the first warp of each
      auto hi = std::max_element(per_warp.begin(), per_warp.end());
      if (*lo == *hi) continue;
      CpuFinding d{CpuFinding::Kind::WarpgroupDivergence};
      d.site = site;
      d.thread = static_cast<int32_t>(32 * (4 * g + static_cast<size_t>(hi - per_warp.begin())));
      d.other_thread = static_cast<int32_t>(32 * (4 * g + static_cast<size_t>(lo - per_warp.begin())));
      d.address = *hi;  // (count is Record's: how many blocks)
      d.extent = *lo;
      g_block = &b;
      Record(d);
      return;
    }
  }
}

// At the end of a block: setmaxnreg_inc waits on the GPU until the block's
// register pool holds what it asks for; the pool is what ptxas gave each
// thread at entry times the threads (a kernel with setmaxnreg is compiled
// for one block an SM: 65536 / threads, in multiples of 8, at most 256),
// and only decreases return registers to it. If the counts after every
// warpgroup's latest setmaxnreg (a warpgroup with none keeps the entry
// count) add up to more, some increase never completed on the GPU:
// reported at one (the last warpgroup's).
void CheckRegisterBudget(Block& b) {
  constexpr int64_t kSmRegisters = 65536;
  int64_t threads = static_cast<int64_t>(b.fibers.size());
  int64_t entry = std::min<int64_t>(256, kSmRegisters / std::max<int64_t>(threads, 1) / 8 * 8);
  const int64_t pool = entry * threads;
  int64_t total = 0;
  int32_t inc_wg = -1;
  for (size_t g = 0; g < b.warpgroup_registers.size(); ++g) {
    int64_t in_group = std::min<int64_t>(128, threads - static_cast<int64_t>(128 * g));
    int64_t per_thread = b.warpgroup_registers[g] > 0 ? b.warpgroup_registers[g] : entry;
    total += per_thread * in_group;
    if (b.warpgroup_inc_site[g] >= 0) inc_wg = static_cast<int32_t>(g);
  }
  if (total <= pool || inc_wg < 0) return;
  CpuFinding d{CpuFinding::Kind::SetmaxnregOverBudget};
  d.site = b.warpgroup_inc_site[static_cast<size_t>(inc_wg)];
  d.thread = 128 * inc_wg;
  d.offset = b.warpgroup_registers[static_cast<size_t>(inc_wg)];
  d.address = total;
  d.extent = pool;
  g_block = &b;
  Record(d);
}

// After a scheduling round every fiber of the warp [w0, w1) is parked or
// done. Releases the warp when all its threads wait at one warp operation
// (true); records divergence and aborts the block when some wait at a warp
// operation and the others elsewhere: another warp operation, a barrier,
// or returned.
bool CheckWarp(Block& b, int32_t w0, int32_t w1) {
  int32_t first = -1;  // a lane waiting at a warp operation
  for (int32_t i = w0; i < w1 && first < 0; ++i)
    if (b.fibers[static_cast<size_t>(i)].state == State::AtWarp) first = i;
  if (first < 0) return false;
  // Lanes still waiting on an mbarrier may yet come: judge the warp later
  // (a wait that never completes is reported as a deadlock).
  for (int32_t i = w0; i < w1; ++i)
    if (b.fibers[static_cast<size_t>(i)].state == State::AtMbarrier) return false;
  int32_t site = b.fibers[static_cast<size_t>(first)].site;
  CpuFinding d{CpuFinding::Kind::WarpDivergence};
  d.site = site;
  d.thread = first;
  // The most telling other lane: one at another operation, then at a
  // barrier, then one that returned.
  int rank = 0;
  for (int32_t i = w0; i < w1; ++i) {
    const Fiber& f = b.fibers[static_cast<size_t>(i)];
    int r = f.state == State::AtWarp ? (f.site != site ? 3 : 0)
            : f.state == State::AtBarrier || f.state == State::AtCluster ? 2
                                                                          : 1;
    if (r <= rank) continue;
    rank = r;
    d.other_thread = i;
    d.other_site = r >= 2 ? f.site : -1;
    d.why = r == 3 ? CpuFinding::Why::OtherSite : r == 2 ? CpuFinding::Why::AtBarrier : CpuFinding::Why::Returned;
  }
  if (rank == 0) {
    if (b.profile) b.profile->WarpMeets(w0, w1);
    b.warps[static_cast<size_t>(w0 / 32)].phase ^= 1;
    for (int32_t i = w0; i < w1; ++i) b.fibers[static_cast<size_t>(i)].state = State::Ready;
    return true;
  }
  Record(d);
  b.aborted = true;
  return false;
}

// Resets `b` to run block (bx, by, bz) from its start.
void StartBlock(const CpuLaunch& l, int32_t bx, int32_t by, int32_t bz, Block& b) {
  int32_t n = static_cast<int32_t>(l.block[0] * l.block[1] * l.block[2]);
  std::fill(b.shared.begin(), b.shared.end(), 0);
  b.shared_bytes = l.shared_bytes;
  b.mbarriers.clear();
  b.epoch = 0;
  b.cluster_epoch = 0;
  b.aborted = false;
  b.timeout_s = l.timeout_s;
  if (l.timeout_s > 0)
    b.deadline = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(l.timeout_s));
  b.shadow.clear();
  if (b.profile) b.profile->StartBlock(n);
  b.bid[0] = bx;
  b.bid[1] = by;
  b.bid[2] = bz;
  for (Warp& w : b.warps) {
    w.phase = 0;
    w.group_ops.clear();
  }
  b.warpgroup_registers.assign(static_cast<size_t>((n + 127) / 128), 0);
  b.warpgroup_inc_site.assign(static_cast<size_t>((n + 127) / 128), -1);
  for (int32_t i = 0; i < n; ++i) {
    Fiber& f = b.fibers[static_cast<size_t>(i)];
    f.state = State::Ready;
    f.phase = 0;
    f.copies.clear();
    f.committed = 0;
    f.wait_bar = -1;
    f.wgmma_reads.clear();
    f.wgmma_groups = 0;
    f.wgmma_registers.clear();
    f.wgmma_fences = 0;
    f.unfenced_registers.clear();
    f.compact_registers_at = 4096;
    f.tma_store_reads.clear();
    f.tma_store_groups = 0;
    f.tma_store_last_group = f.tma_store_last_site = -1;
    f.tma_store_done_below = 0;
    f.proxy_fences = 0;
    f.clock = 0;
    f.clock_epoch = f.known_epoch = -1;
    f.peer = PeerOrder{};
    f.peer.Resize(b.cluster ? b.cluster->size() : 1);
    tmc_cpu_thread& t = f.t;
    t.tid[0] = static_cast<int32_t>(i % l.block[0]);
    t.tid[1] = static_cast<int32_t>((i / l.block[0]) % l.block[1]);
    t.tid[2] = static_cast<int32_t>(i / (l.block[0] * l.block[1]));
    t.bid[0] = bx;
    t.bid[1] = by;
    t.bid[2] = bz;
    for (int d = 0; d < 3; ++d) {
      t.bdim[d] = static_cast<int32_t>(l.block[d]);
      t.gdim[d] = static_cast<int32_t>(l.grid[d]);
    }
    t.shared = b.shared.data();
    t.block = &b;
    t.linear_tid = i;
    t.poll = kPollInterval;
    f.sp = InitialStack(f.stack);
  }
}

// Some thread of `b` waits on an mbarrier that can no longer complete
// (nobody in the cluster can run): reported, true.
bool ReportMbarrierDeadlock(Block& b) {
  int32_t n = static_cast<int32_t>(b.fibers.size());
  // The waiter to report: one whose barrier has all its arrivals but not
  // its transaction bytes (an expect_tx that does not match the copies)
  // is the cause; the others (a producer waiting for the consumers to
  // free a stage) wait on it. Otherwise the first waiter.
  int32_t i = -1;
  for (int32_t k = 0; k < n; ++k) {
    const Fiber& f = b.fibers[static_cast<size_t>(k)];
    if (f.state != State::AtMbarrier) continue;
    const Mbarrier& m = b.mbarriers[f.wait_bar];
    bool bytes_off = m.pending == 0 && m.tx - m.inflight != 0;
    if (i < 0 || bytes_off) i = k;
    if (bytes_off) break;
  }
  if (i < 0) return false;
  const Fiber& f = b.fibers[static_cast<size_t>(i)];
  const Mbarrier& m = b.mbarriers[f.wait_bar];
  CpuFinding d{CpuFinding::Kind::MbarrierDeadlock};
  d.site = f.site;
  d.thread = i;
  d.buffer = m.buffer;
  d.offset = m.index;
  d.extent = m.pending;
  d.address = m.tx - m.inflight;  // in-flight tma_loads would land at a wait
  d.bits = f.wait_parity;
  for (int32_t j = 0; j < n && d.other_thread < 0; ++j) {
    const Fiber& o = b.fibers[static_cast<size_t>(j)];
    if (j != i && (o.state == State::AtBarrier || o.state == State::AtWarp)) {
      d.other_thread = j;
      d.other_site = o.site;
      d.why = o.state == State::AtBarrier ? CpuFinding::Why::AtBarrier : CpuFinding::Why::OtherSite;
    }
  }
  // In a cluster the missing arrivals may be another block's, stuck too:
  // point at one of its threads that waits.
  for (size_t r = 0; d.other_thread < 0 && b.cluster && r < b.cluster->size(); ++r) {
    const Block& p = (*b.cluster)[r];
    if (&p == &b) continue;
    for (const Fiber& o : p.fibers)
      if (o.state != State::Done && o.state != State::Ready) {
        d.other_thread = o.t.linear_tid;
        d.other_site = o.site;
        d.other_rank = static_cast<int32_t>(r);
        std::copy(p.bid, p.bid + 3, d.other_block);
        break;
      }
  }
  g_block = &b;
  Record(d);
  b.aborted = true;
  return true;
}

// Releases the block's barrier when all its threads wait at one `sync`
// (true).
bool ReleaseBlockBarrier(Block& b) {
  int32_t site = -1;
  for (const Fiber& f : b.fibers) {
    if (f.state != State::AtBarrier || (site >= 0 && f.site != site)) return false;
    site = f.site;
  }
  if (b.profile) b.profile->Barrier(site);
  for (Fiber& f : b.fibers) f.state = State::Ready;
  ++b.epoch;
  return true;
}

// Some threads of the block wait at a `sync` that cannot be released: the
// others exited or wait elsewhere (a `sync` at another line, a
// cluster_sync). Reported (true), the block abandoned.
bool ReportBarrierDivergence(Block& b) {
  int32_t n = static_cast<int32_t>(b.fibers.size());
  auto first = std::find_if(b.fibers.begin(), b.fibers.end(), [](const Fiber& f) { return f.state == State::AtBarrier; });
  if (first == b.fibers.end()) return false;
  int32_t site = first->site;
  CpuFinding d{CpuFinding::Kind::BarrierDivergence};
  d.site = site;
  d.thread = static_cast<int32_t>(first - b.fibers.begin());
  for (int32_t i = 0; i < n; ++i) {
    const Fiber& f = b.fibers[static_cast<size_t>(i)];
    if ((f.state == State::AtBarrier || f.state == State::AtCluster) && f.site != site && d.other_site < 0) {
      d.other_site = f.site;
      d.other_thread = i;
    }
  }
  for (int32_t i = 0; i < n && d.other_site < 0; ++i)
    if (b.fibers[static_cast<size_t>(i)].state == State::Done) {
      d.other_thread = i;
      break;
    }
  g_block = &b;
  Record(d);
  b.aborted = true;
  return true;
}

// Releases the cluster_sync when every thread of the cluster that has not
// exited waits at it (true): barrier.cluster waits for the non-exited
// threads only. It is a barrier of each block too (a new barrier interval).
bool ReleaseClusterBarrier(std::vector<Block>& cl) {
  bool any = false;
  for (const Block& b : cl)
    for (const Fiber& f : b.fibers) {
      if (f.state != State::AtCluster && f.state != State::Done) return false;
      any = any || f.state == State::AtCluster;
    }
  if (!any) return false;
  for (Block& b : cl) {
    ++b.epoch;
    ++b.cluster_epoch;
    for (auto& [key, m] : b.mbarriers) m.remote.clear(), m.remote_completed.clear();  // ordered before any exit now
  }
  for (Block& b : cl)
    for (Fiber& f : b.fibers) {
      if (f.state == State::Done) continue;
      f.state = State::Ready;
      for (size_t r = 0; r < cl.size(); ++r) f.peer.epoch[r] = cl[r].epoch;
    }
  return true;
}

// When every thread of block `p` of the cluster has exited: the other
// blocks' arrivals and multicast copies on its mbarriers that nothing
// ordered before the exit (no thread of it waited for their phase, no
// cluster_sync came after them) may reach its shared memory after it is
// gone on the GPU, whatever order they took here. Reported at each.
void CheckExitOrdered(std::vector<Block>& cl, Block& p) {
  for (auto& [key, m] : p.mbarriers) {
    for (const std::vector<Mbarrier::RemoteOp>* ops : {&m.remote, &m.remote_completed})
      for (const Mbarrier::RemoteOp& op : *ops) {
        CpuFinding f{CpuFinding::Kind::ClusterExitUnordered};
        f.site = op.site;
        f.thread = op.thread;
        f.write = op.multicast;
        f.buffer = m.buffer;
        f.offset = m.index;
        std::copy(p.bid, p.bid + 3, f.other_block);
        g_block = &cl[static_cast<size_t>(op.rank)];
        Record(f);
      }
    m.remote.clear();
    m.remote_completed.clear();
  }
}

// Runs the blocks of one cluster (one block without clusters) to the end:
// their threads take turns on this worker, so that blocks can wait for
// each other (cluster_sync, another block's mbarrier, multicast copies).
void RunCluster(std::vector<Block>& cl) {
  auto aborted = [&] { return std::any_of(cl.begin(), cl.end(), [](const Block& b) { return b.aborted; }); };
  std::vector<bool> exited(cl.size(), false);
  auto check_exits = [&] {
    if (cl.size() == 1) return;
    for (size_t r = 0; r < cl.size(); ++r)
      if (!exited[r] && Exited(cl[r])) {
        exited[r] = true;
        CheckExitOrdered(cl, cl[r]);
      }
  };
  while (!aborted()) {
    bool ran = false;
    for (Block& b : cl) {
      g_block = &b;
      int32_t n = static_cast<int32_t>(b.fibers.size());
      for (int32_t i = 0; i < n && !b.aborted; ++i) {
        if (b.fibers[static_cast<size_t>(i)].state != State::Ready) continue;
        b.current = i;
        void* fake_stack = nullptr;
        AsanEnter(&fake_stack, b.fibers[static_cast<size_t>(i)].stack, kStackBytes);
        tmc_fiber_switch(&b.sched_sp, b.fibers[static_cast<size_t>(i)].sp);
        AsanArrivedInScheduler(fake_stack);
        ran = true;
      }
      if (b.aborted) break;
    }
    if (aborted()) break;
    check_exits();
    // Wake the threads whose mbarrier phase has completed (before judging
    // warps, which needs every lane parked).
    bool woke = false;
    for (Block& b : cl) {
      if (b.mbarriers.empty()) continue;
      for (Fiber& f : b.fibers)
        if (f.state == State::AtMbarrier && b.mbarriers[f.wait_bar].phase != f.wait_parity) {
          f.state = State::Ready;
          woke = true;
        }
    }
    if (woke) continue;
    // Release warps whose lanes have all arrived at the same warp
    // operation; anything else is divergence (the hardware's .sync and
    // .aligned forms need every lane of the warp at the same instruction).
    bool released = false;
    for (Block& b : cl) {
      g_block = &b;
      int32_t n = static_cast<int32_t>(b.fibers.size());
      for (int32_t w0 = 0; w0 < n && !b.aborted; w0 += 32)
        if (CheckWarp(b, w0, std::min(n, w0 + 32))) released = true;
    }
    if (aborted()) break;
    if (released || ran) continue;
    // Nobody can run. First the barriers whose threads have all arrived
    // (a block's arrivals on another block's mbarrier may come after its
    // `sync`).
    bool progress = false;
    for (Block& b : cl) progress = ReleaseBlockBarrier(b) || progress;
    if (progress || ReleaseClusterBarrier(cl)) continue;
    // A thread waiting on an mbarrier waits forever: no one is left to
    // arrive (or to issue the copies it counts).
    if (std::any_of(cl.begin(), cl.end(), [](Block& b) { return ReportMbarrierDeadlock(b); })) break;
    // Else everyone is done, or threads wait at a `sync` that others
    // skipped (or a cluster_sync): reported.
    std::any_of(cl.begin(), cl.end(), [](Block& b) { return ReportBarrierDivergence(b); });
    break;
  }
  for (Block& b : cl) {
    if (!b.aborted) {
      CheckWarpgroups(b);
      CheckRegisterBudget(b);
    }
    if (b.profile) b.profile->EndBlock();
  }
  g_block = nullptr;
}

}  // namespace

std::vector<CpuFinding> RunOnCpu(const CpuLaunch& l) {
  g_kernel = l.kernel;
  g_kernel_name = l.name;
  InstallSegvHandler();
  int64_t blocks = l.grid[0] * l.grid[1] * l.grid[2];
  // Blocks run by clusters (one block each without them), in grid order.
  int64_t per_cluster = l.cluster[0] * l.cluster[1] * l.cluster[2];
  int64_t clusters_x = l.grid[0] / l.cluster[0], clusters_y = l.grid[1] / l.cluster[1];
  int64_t clusters = blocks / per_cluster;
  int workers = l.workers > 0 ? l.workers : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers = static_cast<int>(std::min<int64_t>(workers, clusters));
  // Each worker holds a stack (two mappings: stack and guard page) per
  // thread of its cluster: stay well below Linux's default limit of 65530
  // mappings a process.
  constexpr int64_t kMaxFibers = 16384;
  int64_t fibers = l.block[0] * l.block[1] * l.block[2] * per_cluster;
  workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(workers, kMaxFibers / fibers)));
  std::atomic<int64_t> next{0};
  std::atomic<bool> stop{false};
  std::unique_ptr<GridShadow> grid_shadow(l.check_races ? new GridShadow(l.grid, l.cluster) : nullptr);
  std::vector<std::vector<CpuFinding>> found(static_cast<size_t>(workers));
  std::vector<ProfileRecorder> profiles(l.profile ? static_cast<size_t>(workers * per_cluster) : 0);
  auto work = [&](int id) {
    std::vector<Block> cl(static_cast<size_t>(per_cluster));
    int32_t n = static_cast<int32_t>(l.block[0] * l.block[1] * l.block[2]);
    // One stack per fiber, and one for the fault handler (an overflow
    // leaves no room on the fiber's own).
    std::vector<char*> stacks = Stacks().Take(static_cast<size_t>(n * per_cluster) + 1);
    for (size_t r = 0; r < cl.size(); ++r) {
      Block& b = cl[r];
      if (l.profile) b.profile = &profiles[static_cast<size_t>(id) * cl.size() + r];
      b.fibers.resize(static_cast<size_t>(n));
      for (int32_t i = 0; i < n; ++i) b.fibers[static_cast<size_t>(i)].stack = stacks[r * static_cast<size_t>(n) + static_cast<size_t>(i)];
      b.warps.resize(static_cast<size_t>((n + 31) / 32));
      b.check_races = l.check_races;
      b.grid = grid_shadow.get();
      b.findings = &found[static_cast<size_t>(id)];
      b.shared.resize(static_cast<size_t>(std::max<int64_t>(l.shared_bytes, 16)));
      b.stop = &stop;
      b.cluster = &cl;
      b.rank = static_cast<int32_t>(r);
    }
    stack_t alt{}, previous_alt{};
    alt.ss_sp = stacks.back();
    alt.ss_size = kStackBytes;
    sigaltstack(&alt, &previous_alt);
    g_args = l.args;
    for (int64_t c = next++; c < clusters && !stop.load(std::memory_order_relaxed); c = next++) {
      int64_t cx = c % clusters_x, cy = (c / clusters_x) % clusters_y, cz = c / (clusters_x * clusters_y);
      for (int64_t r = 0; r < per_cluster; ++r) {
        // Rank r of the cluster: x fastest, as %cluster_ctarank.
        auto bx = static_cast<int32_t>(cx * l.cluster[0] + r % l.cluster[0]);
        auto by = static_cast<int32_t>(cy * l.cluster[1] + (r / l.cluster[0]) % l.cluster[1]);
        auto bz = static_cast<int32_t>(cz * l.cluster[2] + r / (l.cluster[0] * l.cluster[1]));
        Block& b = cl[static_cast<size_t>(r)];
        b.linear = bx + l.grid[0] * (by + l.grid[1] * static_cast<int64_t>(bz));
        StartBlock(l, bx, by, bz, b);
      }
      RunCluster(cl);
    }
    sigaltstack(&previous_alt, nullptr);
    Stacks().Give(stacks);
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < workers; ++i) threads.emplace_back(work, i);
  if (workers > 0) work(0);
  for (std::thread& t : threads) t.join();
  if (grid_shadow) found.push_back(grid_shadow->Races());
  // Sums and maxima: the profile does not depend on which worker ran which block.
  for (const ProfileRecorder& p : profiles) p.MergeInto(l.profile);
  // Merge, one finding per kind and site. Blocks run on several workers in
  // no fixed order: keep the instance from the first block in grid order,
  // and sort by site, so that reports are the same on every run.
  auto before = [](const CpuFinding& a, const CpuFinding& b) {
    return std::make_tuple(a.block[2], a.block[1], a.block[0], a.thread) <
           std::make_tuple(b.block[2], b.block[1], b.block[0], b.thread);
  };
  std::vector<CpuFinding> out;
  for (auto& list : found)
    for (CpuFinding& f : list) {
      auto it = std::find_if(out.begin(), out.end(), [&](const CpuFinding& e) { return e.kind == f.kind && e.site == f.site; });
      if (it == out.end()) {
        out.push_back(f);
      } else {
        int64_t count = it->count + f.count;
        if (before(f, *it)) *it = f;
        it->count = count;
      }
    }
  std::sort(out.begin(), out.end(), [](const CpuFinding& a, const CpuFinding& b) {
    return std::make_pair(a.site, static_cast<int>(a.kind)) < std::make_pair(b.site, static_cast<int>(b.kind));
  });
  return out;
}

}  // namespace tmc::runtime

using tmc::runtime::g_block;

extern "C" {

void tmc_cpu_sync(tmc_cpu_thread*, int32_t site) { tmc::runtime::Park(tmc::runtime::State::AtBarrier, site); }

void tmc_cpu_cluster_sync(tmc_cpu_thread*, int32_t site) { tmc::runtime::Park(tmc::runtime::State::AtCluster, site); }

uint32_t tmc_cpu_shfl32(tmc_cpu_thread* t, int32_t kind, uint32_t value, int32_t arg, int32_t site) {
  using namespace tmc::runtime;
  int32_t lane = t->linear_tid % 32;
  Warp& w = g_block->warps[static_cast<size_t>(t->linear_tid / 32)];
  int phase = w.phase;
  w.values[phase][lane] = value;
  Current().phase = phase;
  Park(State::AtWarp, site);
  int32_t warp_size = std::min<int32_t>(32, t->bdim[0] * t->bdim[1] * t->bdim[2] - (t->linear_tid / 32) * 32);
  int32_t src = lane;
  switch (kind) {
    case 0: src = lane ^ arg; break;
    case 1: src = lane + arg; break;
    case 2: src = lane - arg; break;
    default: src = arg & 31; break;
  }
  if (src < 0 || src >= warp_size) src = lane;  // out of range: the lane keeps its value
  return w.values[phase][src];
}

}  // extern "C"

namespace tmc::runtime {
namespace {

// Thread `f`'s clock in the current barrier interval (0 after each barrier).
int32_t& ClockOf(Fiber& f) {
  if (f.clock_epoch != g_block->epoch) {
    f.clock = 0;
    f.clock_epoch = g_block->epoch;
  }
  return f.clock;
}

// True when thread `other`'s access at its clock `c` happened before what
// thread `me` does now: `other` arrived on an mbarrier after it (publishing
// a clock >= c), and `me` has since waited for that phase to complete, or
// learnt of it from a thread that did (vector clocks).
bool Ordered(int32_t me, int32_t other, int32_t c) {
  const Fiber& f = g_block->fibers[static_cast<size_t>(me)];
  return f.known_epoch == g_block->epoch && f.known[static_cast<size_t>(other)] >= c;
}

// The race check of one element access by thread `me`: against the other
// threads' accesses in this barrier interval that mbarriers do not order
// before it, against a cp_async into the element that is still in flight
// (any thread, even the issuing one, touching it before the wait that
// lands it), and, for writes, against a wgmma still reading it.
// Accesses to global tensors also go to the grid shadow (races between
// blocks), once per element and kind of access per block. Atomic updates
// count as reads within the block (they do not race with each other).
void CheckRace(int32_t me, const void* addr, int32_t buffer, int64_t offset, GridAccess access, bool global,
               int32_t site) {
  bool is_write = access == GridAccess::Write;
  int32_t clock = g_block->mbarriers.empty() ? 0 : ClockOf(g_block->fibers[static_cast<size_t>(me)]);
  Shadow& s = g_block->shadow[reinterpret_cast<uintptr_t>(addr)];
  if (s.epoch != g_block->epoch) {
    Shadow fresh{g_block->epoch};
    fresh.pending = s.pending;
    fresh.pending_site = s.pending_site;
    fresh.pending_tma = s.pending_tma;
    fresh.pending_rank = s.pending_rank;
    fresh.grid_noted = s.grid_noted;
    fresh.async_reads = s.async_reads;
    fresh.async_reader = s.async_reader;
    fresh.async_site = s.async_site;
    fresh.async_tma_store = s.async_tma_store;
    fresh.generic_writer = s.generic_writer;
    fresh.generic_site = s.generic_site;
    fresh.generic_fences = s.generic_fences;
    s = fresh;
  }
  uint8_t bit = static_cast<uint8_t>(1u << static_cast<int>(access));
  if (global && !(s.grid_noted & bit)) {
    s.grid_noted |= bit;
    g_block->grid->Note(addr, buffer, offset, g_block->linear, me, site, access);
  }
  bool atomic = access == GridAccess::Atomic;
  // A race with `other`'s access at `other_site`; the callers add what it was.
  auto finding = [&](int32_t other, int32_t other_site) {
    CpuFinding f{CpuFinding::Kind::Race};
    f.site = site;
    f.other_site = other_site;
    f.buffer = buffer;
    f.offset = offset;
    f.thread = me;
    f.other_thread = other;
    f.write = is_write;
    return f;
  };
  auto race = [&](int32_t other, int32_t other_site, bool other_write, bool other_atomic, bool async) {
    CpuFinding f = finding(other, other_site);
    f.atomic = atomic;
    f.other_write = other_write;
    f.other_atomic = other_atomic;
    f.other_async = async;
    Record(f);
  };
  auto other = [&](int32_t t, int32_t c) { return t >= 0 && t != me && !Ordered(me, t, c); };
  if (s.pending >= 0) {
    if (s.pending_tma) {
      CpuFinding f = finding(s.pending, s.pending_site);
      f.other_tma = true;
      if (s.pending_rank >= 0) {
        f.other_rank = s.pending_rank;
        const Block& issuer = (*g_block->cluster)[static_cast<size_t>(s.pending_rank)];
        std::copy(issuer.bid, issuer.bid + 3, f.other_block);
      }
      Record(f);
    } else {
      race(s.pending, s.pending_site, true, false, true);
    }
  } else if (access != GridAccess::Read && s.async_reads > 0) {
    // A wgmma or a tma_store still reads it.
    CpuFinding f = finding(s.async_reader, s.async_site);
    f.write = true;
    f.other_async_read = s.async_tma_store ? 2 : 1;
    Record(f);
  } else if (other(s.writer, s.writer_clock)) {
    race(s.writer, s.writer_site, true, false, false);
  } else if (is_write) {
    if (other(s.reader, s.reader_clock)) race(s.reader, s.reader_site, false, s.reader_atomic, false);
    else if (other(s.reader2, s.reader2_clock)) race(s.reader2, s.reader2_site, false, s.reader2_atomic, false);
  }
  if (is_write) {
    s.writer = me;
    s.writer_site = site;
    s.writer_clock = clock;
  } else if (s.reader < 0 || s.reader == me || !other(s.reader, s.reader_clock)) {
    s.reader = me;
    s.reader_site = site;
    s.reader_atomic = atomic;
    s.reader_clock = clock;
  } else if (s.reader2 < 0 || s.reader2 == me || !other(s.reader2, s.reader2_clock)) {
    s.reader2 = me;
    s.reader2_site = site;
    s.reader2_atomic = atomic;
    s.reader2_clock = clock;
  }
  if (access != GridAccess::Read) {  // a store or an atomic update, through the generic proxy
    s.generic_writer = me;
    s.generic_site = site;
    s.generic_fences = g_block->fibers[static_cast<size_t>(me)].proxy_fences;
  }
}

// A read of the element of `sh` (`buffer`[`offset`]) through the
// asynchronous proxy, by a wgmma or a tma_store that thread `me` issued at
// `site`: the element's latest generic write must have been followed by a
// fence_proxy_async of its writer, or the copy may read the old value.
void CheckProxyFence(Shadow& sh, int32_t me, int32_t buffer, int64_t offset, int32_t site, bool tma_store) {
  if (sh.generic_writer < 0) return;
  if (g_block->fibers[static_cast<size_t>(sh.generic_writer)].proxy_fences != sh.generic_fences) return;
  CpuFinding f{CpuFinding::Kind::ProxyFenceMissing};
  f.site = site;
  f.other_site = sh.generic_site;
  f.buffer = buffer;
  f.offset = offset;
  f.thread = me;
  f.other_thread = sh.generic_writer;
  f.other_async_read = tma_store ? 2 : 1;
  Record(f);
}

// A tma_load by thread `tid` (of the block of cluster rank `rank`, -1 for
// this block) at `site` is in flight into the element of `s`.
void MarkTmaPending(Shadow& s, int32_t tid, int32_t site, int32_t rank) {
  s.pending = tid;
  s.pending_site = site;
  s.pending_tma = true;
  s.pending_rank = rank;
}

// Lands a cp_async: writes its bytes and, with race checks, turns the
// in-flight copy into an ordinary write by its thread at its site.
void Land(int32_t me, const AsyncCopy& c) {
  std::memcpy(c.dst, c.data, static_cast<size_t>(c.bytes));
  if (!g_block->check_races) return;
  for (int32_t k = 0; k < c.bytes / c.elem_bytes; ++k) {
    const char* a = c.dst + k * c.elem_bytes;
    Shadow& s = g_block->shadow[reinterpret_cast<uintptr_t>(a)];
    if (s.pending != me) continue;  // a later overlapping copy owns it now
    s.pending = s.pending_site = -1;
    CheckRace(me, a, c.dst_buffer, c.dst_offset + k, GridAccess::Write, false, c.site);
  }
}

// Ends the asynchronous shared-memory reads (of wgmma or tma_store) of the
// groups below `done_below` (a wait completes all but the `pending` most
// recent committed): each is race-checked now, with the waiting thread's
// clock, and no longer blocks writes to its element.
void EndAsyncReads(int32_t tid, std::vector<WgmmaRead>& reads, int32_t done_below) {
  // The reads are in issue order, so in group order: those of the groups
  // that end are a prefix.
  size_t ended = 0;
  while (ended < reads.size() && reads[ended].group < done_below) ++ended;
  if (ended == 0) return;
  for (size_t i = 0; i < ended; ++i) {
    const WgmmaRead& r = reads[i];
    Shadow& sh = g_block->shadow[reinterpret_cast<uintptr_t>(r.addr)];
    if (sh.async_reads > 0) --sh.async_reads;
    CheckRace(tid, r.addr, r.buffer, r.offset, GridAccess::Read, false, r.site);
  }
  reads.erase(reads.begin(), reads.begin() + static_cast<std::ptrdiff_t>(ended));
}

// An mbarrier index outside its array: reported, and the block abandoned
// (never returns then), as the barrier word would be anything.
void RequireMbarrierIndex(tmc_cpu_thread* t, int32_t buffer, int64_t index, int64_t extent, int32_t site) {
  if (index >= 0 && index < extent) return;
  CpuFinding f{CpuFinding::Kind::OutOfBounds};
  f.site = site;
  f.buffer = buffer;
  f.offset = index;
  f.extent = extent;
  f.thread = t->linear_tid;
  Record(f);
  g_block->aborted = true;
  Park(State::Done, site);
}

// The mbarrier at shared offset `key`; one used before its init is
// reported, and the block abandoned (never returns then).
Mbarrier& InitializedMbarrier(tmc_cpu_thread* t, int64_t key, int32_t buffer, int64_t index, int32_t site) {
  auto it = g_block->mbarriers.find(key);
  if (it == g_block->mbarriers.end()) {
    CpuFinding f{CpuFinding::Kind::MbarrierUninitialized};
    f.site = site;
    f.thread = t->linear_tid;
    f.buffer = buffer;
    f.offset = index;
    Record(f);
    g_block->aborted = true;
    Park(State::Done, site);  // never resumes
  }
  return it->second;
}

// The block of rank `rank` in the cluster, for an arrival on its mbarrier
// or a multicast copy into it (`mask`: the rank came from a multicast
// mask). A rank outside the cluster is reported and the block abandoned
// (never returns then); a block whose threads all exited is reported and
// null returned (the operation is dropped: its shared memory is gone).
Block* PeerBlock(tmc_cpu_thread* t, int64_t rank, bool mask, int32_t site) {
  std::vector<Block>& cl = *g_block->cluster;
  if (rank < 0 || rank >= static_cast<int64_t>(cl.size())) {
    CpuFinding f{CpuFinding::Kind::ClusterRankOutside};
    f.site = site;
    f.thread = t->linear_tid;
    f.offset = rank;
    f.extent = static_cast<int64_t>(cl.size());
    f.write = mask;
    Record(f);
    g_block->aborted = true;
    Park(State::Done, site);  // never resumes
  }
  Block& p = cl[static_cast<size_t>(rank)];
  if (&p != g_block && Exited(p)) {
    CpuFinding f{CpuFinding::Kind::ClusterPeerExited};
    f.site = site;
    f.write = mask;
    f.thread = t->linear_tid;
    std::copy(p.bid, p.bid + 3, f.other_block);
    Record(f);
    return nullptr;
  }
  return &p;
}

// A multicast copy by thread `me` at `site` may land at once in `sh`, an
// element of block `p`'s tile (element `offset` of buffer `buffer`): that
// block's accesses to it must be ordered before the issue (its release of
// the stage, through an mbarrier `me` waited on, or a cluster_sync).
// Reports the first that is not (true).
bool ReportUnorderedPeerAccess(const Fiber& me, const Block& p, const Shadow& sh, int32_t site, int32_t buffer,
                               int64_t offset) {
  auto r = static_cast<size_t>(p.rank);
  auto unordered = [&](int32_t who, int32_t clock) { return who >= 0 && !me.peer.Covers(r, sh.epoch, who, clock); };
  CpuFinding f{CpuFinding::Kind::ClusterCopyRace};
  if (unordered(sh.writer, sh.writer_clock))
    f.other_thread = sh.writer, f.other_site = sh.writer_site, f.other_write = true;
  else if (unordered(sh.reader, sh.reader_clock))
    f.other_thread = sh.reader, f.other_site = sh.reader_site;
  else if (unordered(sh.reader2, sh.reader2_clock))
    f.other_thread = sh.reader2, f.other_site = sh.reader2_site;
  else
    return false;
  f.site = site;
  f.thread = me.t.linear_tid;
  f.buffer = buffer;
  f.offset = offset;
  std::copy(p.bid, p.bid + 3, f.other_block);
  Record(f);
  return true;
}

// The mbarrier at shared offset `key` of block `p` of the cluster (not
// this thread's), for an arrival or a multicast copy. Its init must be
// ordered before by a cluster_sync (the hardware's other blocks see it
// only then): when none came between, reported; when it is not
// initialized at all, reported too and the block abandoned.
Mbarrier& PeerMbarrier(tmc_cpu_thread* t, Block& p, int64_t key, int32_t buffer, int64_t index, int32_t site) {
  auto it = p.mbarriers.find(key);
  if (it == p.mbarriers.end() || it->second.init_cluster_epoch == p.cluster_epoch) {
    CpuFinding f{CpuFinding::Kind::ClusterMbarrierUnordered};
    f.site = site;
    f.thread = t->linear_tid;
    f.buffer = buffer;
    f.offset = index;
    std::copy(p.bid, p.bid + 3, f.other_block);
    Record(f);
    if (it == p.mbarriers.end()) {
      g_block->aborted = true;
      Park(State::Done, site);  // never resumes
    }
  }
  return it->second;
}

// An arrival on `m` by thread `by` of block `from` at its clock `clock`:
// what that block did before its current barrier interval, what the
// thread did so far, and what it learnt of the other blocks, is ordered
// before the phase's waiters (across blocks; JoinArrival within one).
void Release(Mbarrier& m, const Block& from, const Fiber& by, int32_t clock) {
  auto r = static_cast<size_t>(from.rank);
  m.released.Resize(from.cluster ? from.cluster->size() : 1);
  m.released.epoch[r] = std::max(m.released.epoch[r], from.epoch);
  m.released.Note(r, from.epoch, by.t.linear_tid, clock, from.fibers.size());
  m.released.Join(by.peer);
}

// An arrival of thread `tid` on `m` (or its tma_load's completion): what
// the thread did so far, and what it knew to have happened before, is
// ordered before whoever waits for the phase; what it does next is not.
void JoinArrival(Mbarrier& m, int32_t tid) {
  Block& b = *g_block;
  Fiber& me = b.fibers[static_cast<size_t>(tid)];
  size_t threads = b.fibers.size();
  if (m.joined_epoch != b.epoch) {
    m.joined.assign(threads, -1);
    m.joined_epoch = b.epoch;
  }
  int32_t& clock = ClockOf(me);
  int32_t& own = m.joined[static_cast<size_t>(tid)];
  own = std::max(own, clock);
  if (b.cluster && b.cluster->size() > 1) Release(m, b, me, clock);
  if (me.known_epoch == b.epoch)
    for (size_t u = 0; u < threads; ++u) m.joined[u] = std::max(m.joined[u], me.known[u]);
  ++clock;
}

// Completes the current phase of `m` when no arrival and no transaction
// byte is missing: its tma_loads land, and the arrivals' clocks become
// what its waiters learn.
void CompleteIfDone(Mbarrier& m, bool waiting) {
  if (m.pending > 0 || m.tx - m.inflight != 0) return;
  if (m.inflight > 0 && !waiting) {
    bool someone = false;  // already parked on this barrier
    // (A waiter of the phase that completed before, not yet woken, waits
    // for nothing: it must not make the next phase land early.)
    for (const Fiber& f : g_block->fibers)
      someone = someone || (f.state == State::AtMbarrier && f.wait_bar == m.key && f.wait_parity == m.phase);
    if (!someone) return;
  }
  for (const TmaCopy& c : m.copies) {
    for (size_t k = 0; k < c.dst.size(); ++k) {
      std::memcpy(c.dst[k].first, c.data.data() + k * static_cast<size_t>(c.elem_bytes), static_cast<size_t>(c.elem_bytes));
      if (!g_block->check_races) continue;
      Shadow& s = g_block->shadow[reinterpret_cast<uintptr_t>(c.dst[k].first)];
      if (s.pending == c.thread && s.pending_tma && s.pending_rank == c.rank)
        s.pending = s.pending_site = -1, s.pending_tma = false, s.pending_rank = -1;
      s.generic_writer = -1;  // written through the asynchronous proxy: wgmma sees it
    }
  }
  m.copies.clear();
  m.tx = m.inflight = 0;
  m.phase ^= 1;
  m.completed_released = m.released;
  m.remote_completed.insert(m.remote_completed.end(), m.remote.begin(), m.remote.end());
  m.remote.clear();
  m.completed.swap(m.joined);
  m.completed_epoch = m.joined_epoch;
  m.joined_epoch = -1;
  m.pending = m.expected;
}

void RecordCpAsyncFault(CpuFinding::Kind kind, tmc_cpu_thread* t, int32_t site, int32_t buffer, int64_t offset,
                        int64_t extent, int64_t address, int32_t bytes, bool dst) {
  CpuFinding f{kind};
  f.site = site;
  f.buffer = buffer;
  f.offset = offset;
  f.extent = extent;
  f.address = address;
  f.bytes = bytes;
  f.thread = t->linear_tid;
  f.write = dst;
  Record(f);
}

// mma and ldmatrix exchange fragments among all 32 lanes: the last warp of
// a block whose size is not a multiple of 32 cannot run them. Records the
// divergence, abandons the block and never returns.
void RequireFullWarp(tmc_cpu_thread* t, int32_t site) {
  int32_t threads = t->bdim[0] * t->bdim[1] * t->bdim[2] - (t->linear_tid / 32) * 32;
  if (threads >= 32) return;
  CpuFinding d{CpuFinding::Kind::WarpDivergence};
  d.site = site;
  d.thread = t->linear_tid;
  d.why = CpuFinding::Why::PartialWarp;
  d.warp_threads = threads;
  Record(d);
  g_block->aborted = true;
  Park(State::AtWarp, site);
}

// A warp-wide instruction that exchanges nothing (wgmma and its fences,
// .sync.aligned): every lane of a full warp meets here, at one call site.
void MeetWarp(tmc_cpu_thread* t, int32_t site) {
  RequireFullWarp(t, site);
  Current().phase = g_block->warps[static_cast<size_t>(t->linear_tid / 32)].phase;
  Park(State::AtWarp, site);
}

// A wgmma at `site` by `t` using D's registers [d, d + d_bytes) and A's
// [a, a + a_bytes) (a null when A is in shared memory): the thread must
// have executed a wgmma_fence, and none of these registers may have been
// accessed since its latest one (the accesses are known in the checking
// modes). Reported once per wgmma.
void CheckWgmmaFenced(tmc_cpu_thread* t, Fiber& me, const char* d, int32_t d_bytes, const char* a, int32_t a_bytes,
                      int32_t site) {
  auto inside = [](const char* p, const char* begin, int32_t bytes) { return begin && p >= begin && p < begin + bytes; };
  CpuFinding f{CpuFinding::Kind::WgmmaUnfenced};
  f.site = site;
  f.thread = t->linear_tid;
  if (me.wgmma_fences == 0) {
    Record(f);
    return;
  }
  for (const Fiber::RegisterTouch& r : me.unfenced_registers)
    if (inside(r.addr, d, d_bytes) || inside(r.addr, a, a_bytes)) {
      f.other_site = r.site;
      f.buffer = r.buffer;
      f.offset = r.offset;
      f.write = r.write;
      Record(f);
      return;
    }
}

// A warpgroup instruction at `site` that the warp of `t` executed (its
// lanes have met there): counted once per warp, by lane 0.
void CountWarpgroupOp(tmc_cpu_thread* t, int32_t site) {
  if (t->linear_tid % 32 == 0) ++g_block->warps[static_cast<size_t>(t->linear_tid / 32)].group_ops[site];
}
}  // namespace
}  // namespace tmc::runtime

extern "C" {

void tmc_cpu_mma_m16n8k16(tmc_cpu_thread* t, float* d, const uint16_t* a, const uint16_t* b, const float* c,
                          int32_t bf16, int32_t site) {
  using namespace tmc::runtime;
  RequireFullWarp(t, site);
  int32_t lane = t->linear_tid % 32;
  Warp& w = g_block->warps[static_cast<size_t>(t->linear_tid / 32)];
  int phase = w.phase;
  w.ptrs[phase][lane][0] = a;
  w.ptrs[phase][lane][1] = b;
  Park(State::AtWarp, site);
  // Fragment layouts of the PTX ISA (std.mma): lane 4g + t holds
  // A(g + 8*((r/2)%2), 2t + r%2 + 8*(r/4)), B(2t + r%2 + 8*(r/2), g) and
  // C/D(g + 8*(r/2), 2t + r%2).
  auto A = [&](int row, int k) {
    int l = (row % 8) * 4 + (k % 8) / 2, r = (k >= 8 ? 4 : 0) + (row >= 8 ? 2 : 0) + k % 2;
    uint16_t x = static_cast<const uint16_t*>(w.ptrs[phase][l][0])[r];
    return bf16 ? Bf16ToFloat(x) : HalfToFloat(x);
  };
  auto B = [&](int k, int col) {
    int l = col * 4 + (k % 8) / 2, r = (k >= 8 ? 2 : 0) + k % 2;
    uint16_t x = static_cast<const uint16_t*>(w.ptrs[phase][l][1])[r];
    return bf16 ? Bf16ToFloat(x) : HalfToFloat(x);
  };
  int g = lane / 4, tq = lane % 4;
  float out[4];
  for (int r = 0; r < 4; ++r) {
    int row = g + 8 * (r / 2), col = 2 * tq + r % 2;
    float acc = c[r];  // accumulate in f32, as the hardware does
    for (int k = 0; k < 16; ++k) acc += A(row, k) * B(k, col);
    out[r] = acc;
  }
  // Every lane must have read the others' fragments before any changes them.
  Current().phase = w.phase;
  Park(State::AtWarp, site);
  std::memcpy(d, out, sizeof out);
}

void tmc_cpu_ldmatrix(tmc_cpu_thread* t, uint16_t* regs, const uint16_t* row, int32_t count, int32_t trans,
                      int32_t site) {
  using namespace tmc::runtime;
  // The row's access was reported as one element; the instruction reads 16 bytes.
  if (g_block->profile)
    g_block->profile->MarkLdMatrix(t->linear_tid, reinterpret_cast<const char*>(row) - t->shared,
                                   t->linear_tid % 32 < 8 * count);
  RequireFullWarp(t, site);
  int32_t lane = t->linear_tid % 32;
  // Each row the instruction reads (lanes 0 .. 8 * count - 1 supply them)
  // is 16 bytes, and the hardware needs it 16-byte aligned.
  int64_t address = reinterpret_cast<const char*>(row) - t->shared;
  if (lane < 8 * count && address % 16 != 0) {
    CpuFinding f{CpuFinding::Kind::LdMatrixMisaligned};
    f.site = site;
    f.thread = t->linear_tid;
    f.address = address;
    Record(f);
  }
  Warp& w = g_block->warps[static_cast<size_t>(t->linear_tid / 32)];
  int phase = w.phase;
  w.ptrs[phase][lane][0] = row;
  Park(State::AtWarp, site);
  // Matrix k's rows come from lanes 8k .. 8k + 7. Lane 4g + q holds (g,
  // 2q) and (g, 2q + 1) of each matrix, or with .trans (2q, g), (2q + 1, g).
  int g = lane / 4, q = lane % 4;
  for (int k = 0; k < count; ++k)
    for (int i = 0; i < 2; ++i) {
      int r = trans ? 2 * q + i : g, c = trans ? g : 2 * q + i;
      regs[2 * k + i] = static_cast<const uint16_t*>(w.ptrs[phase][8 * k + r][0])[c];
    }
}

void tmc_cpu_wgmma(tmc_cpu_thread* t, float* d, const uint16_t* a_regs, uint64_t a_desc, uint64_t b_desc, int32_t n, int32_t trans_b,
                   int32_t scale_d, int32_t bf16, int32_t a_buffer, int64_t a_base, int32_t b_buffer, int64_t b_base,
                   int32_t site) {
  using namespace tmc::runtime;
  // The calling thread's share of D (std.wgmma): thread 32w + 4g + q of the
  // warpgroup holds, in register i, row 16w + g + 8 * ((i % 4) / 2) and
  // column 8 * (i / 4) + 2q + i % 2. Each reads the operand elements it
  // needs through the descriptors, as the hardware would.
  int32_t lane = t->linear_tid % 32, warp = (t->linear_tid % 128) / 32;
  int32_t g = lane / 4, q = lane % 4;
  Warp& w = g_block->warps[static_cast<size_t>(t->linear_tid / 32)];
  if (a_regs) w.ptrs[w.phase][lane][0] = a_regs;  // A in registers: the warp's fragments
  int phase = w.phase;
  MeetWarp(t, site);
  CountWarpgroupOp(t, site);
  bool bad = false;
  Fiber& me = Current();
  auto element = [&](uint64_t desc, bool mn_major, int64_t mn, int64_t k, int32_t buffer, int64_t base) -> float {
    int64_t addr = WgmmaElementAddress(desc, mn_major, mn, k);
    if (addr < 0 || addr + 2 > g_block->shared_bytes) {
      if (!bad) {  // a descriptor outside the block's shared memory: report once
        CpuFinding f{CpuFinding::Kind::OutOfBounds};
        f.site = site;
        f.buffer = buffer;
        f.offset = (addr - base) / 2;
        f.extent = (g_block->shared_bytes - base) / 2;
        f.thread = t->linear_tid;
        Record(f);
        bad = true;
      }
      return 0.0f;
    }
    const char* p = t->shared + addr;
    // The hardware reads until the wait that completes this wgmma's group:
    // the read is checked for races there.
    if (g_block->check_races) {
      me.wgmma_reads.push_back(WgmmaRead{p, buffer, site, me.wgmma_groups, (addr - base) / 2});
      Shadow& sh = g_block->shadow[reinterpret_cast<uintptr_t>(p)];
      CheckProxyFence(sh, t->linear_tid, buffer, (addr - base) / 2, site, false);
      ++sh.async_reads;
      sh.async_reader = t->linear_tid;
      sh.async_site = site;
      sh.async_tma_store = false;
    }
    uint16_t x;
    std::memcpy(&x, p, sizeof x);
    return bf16 ? Bf16ToFloat(x) : HalfToFloat(x);
  };
  float a[2][16];
  if (a_regs) {
    // mma.m16n8k16's A fragment (std.mma): lane 4g' + t' holds, in half r,
    // A(g' + 8 * ((r / 2) % 2), 2t' + r % 2 + 8 * (r / 4)) of its warp's rows.
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 16; ++k) {
        int row = g + 8 * h;
        int l = (row % 8) * 4 + (k % 8) / 2, r = (k >= 8 ? 4 : 0) + (row >= 8 ? 2 : 0) + k % 2;
        uint16_t x = static_cast<const uint16_t*>(w.ptrs[phase][l][0])[r];
        a[h][k] = bf16 ? Bf16ToFloat(x) : HalfToFloat(x);
      }
    // Every lane has read the others' fragments before any changes them.
    MeetWarp(t, site);
  } else {
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 16; ++k) a[h][k] = element(a_desc, false, 16 * warp + g + 8 * h, k, a_buffer, a_base);
  }
  for (int32_t i = 0; i < n / 2; ++i) {
    int32_t row_half = (i % 4) / 2, col = 8 * (i / 4) + 2 * q + i % 2;
    float acc = scale_d ? d[i] : 0.0f;  // accumulate in f32, as the hardware does
    for (int k = 0; k < 16; ++k) acc += a[row_half][k] * element(b_desc, trans_b != 0, col, k, b_buffer, b_base);
    d[i] = acc;
  }
  CheckWgmmaFenced(t, me, reinterpret_cast<const char*>(d), n / 2 * 4, reinterpret_cast<const char*>(a_regs), 16, site);
  // The hardware reads A's registers and writes D's until the wgmma_wait
  // that completes this group: accesses to them before it are reported.
  me.wgmma_registers.push_back({reinterpret_cast<const char*>(d), reinterpret_cast<const char*>(d + n / 2),
                                me.wgmma_groups, site});
  if (a_regs)
    me.wgmma_registers.push_back({reinterpret_cast<const char*>(a_regs), reinterpret_cast<const char*>(a_regs + 8),
                                  me.wgmma_groups, site});
}

void tmc_cpu_mbarrier(tmc_cpu_thread* t, int32_t op, void* bar, int32_t value, int32_t buffer, int64_t index,
                      int64_t extent, int32_t site) {
  using namespace tmc::runtime;
  Block& b = *g_block;
  Fiber& me = Current();
  RequireMbarrierIndex(t, buffer, index, extent, site);
  int64_t key = static_cast<char*>(bar) - t->shared;
  if (op == TMC_CPU_MBARRIER_ARRIVE_CLUSTER) {
    // On the barrier at the same offset in block `value` of the cluster.
    Block* p = PeerBlock(t, value, false, site);
    if (!p) return;
    if (p != &b) {
      Mbarrier& m = PeerMbarrier(t, *p, key, buffer, index, site);
      int32_t& clock = ClockOf(me);
      Release(m, b, me, clock);
      ++clock;  // what it does next is not ordered before the phase
      m.remote.push_back({t->linear_tid, site, b.rank, false});
      --m.pending;
      g_block = p;  // its waiters and its tma_loads
      CompleteIfDone(m, false);
      g_block = &b;
      return;
    }
    op = TMC_CPU_MBARRIER_ARRIVE;  // its own block's
  }
  // The barrier's word itself: an init writes it, arrivals update it
  // atomically, waits read it, so an init that nothing orders before the
  // other threads' uses (a missing sync) is a race.
  if (b.check_races)
    CheckRace(t->linear_tid, bar, buffer, index,
              op == TMC_CPU_MBARRIER_INIT ? GridAccess::Write
              : op == TMC_CPU_MBARRIER_WAIT ? GridAccess::Read
                                            : GridAccess::Atomic,
              false, site);
  if (op == TMC_CPU_MBARRIER_INIT) {
    Mbarrier& m = b.mbarriers[key];
    m = Mbarrier{};
    m.expected = m.pending = std::clamp<int32_t>(value, 1, (1 << 20) - 1);
    m.key = key;
    m.buffer = buffer;
    m.index = index;
    m.init_cluster_epoch = b.cluster_epoch;
    return;
  }
  Mbarrier& m = InitializedMbarrier(t, key, buffer, index, site);
  size_t threads = b.fibers.size();
  if (op != TMC_CPU_MBARRIER_WAIT) {
    if (op == TMC_CPU_MBARRIER_ARRIVE_EXPECT_TX) m.tx += value;
    JoinArrival(m, t->linear_tid);
    --m.pending;
    CompleteIfDone(m, false);
    return;
  }
  int32_t parity = value & 1;
  if (m.phase == parity) CompleteIfDone(m, true);  // its tma_loads land now, if that completes it
  if (m.phase == parity) {
    me.wait_bar = key;
    me.wait_parity = parity;
    Park(State::AtMbarrier, site);
  }
  // The phase completed: the arrivals' earlier accesses happened before
  // this thread's next ones (and the other blocks' before their releases).
  me.peer.Join(m.completed_released);
  m.remote_completed.clear();  // those copies and arrivals happened before this thread goes on
  if (m.completed_epoch == b.epoch) {
    if (me.known_epoch != b.epoch) {
      me.known.assign(threads, -1);
      me.known_epoch = b.epoch;
    }
    for (size_t u = 0; u < threads; ++u) me.known[u] = std::max(me.known[u], m.completed[u]);
  }
}

void tmc_cpu_fence_proxy_async(tmc_cpu_thread*) { ++tmc::runtime::Current().proxy_fences; }

void tmc_cpu_wgmma_sync(tmc_cpu_thread* t, int32_t op, int32_t pending, int32_t site) {
  using namespace tmc::runtime;
  MeetWarp(t, site);  // wgmma.fence / commit_group / wait_group are .sync.aligned
  CountWarpgroupOp(t, site);
  Fiber& me = Current();
  if (op == TMC_CPU_WGMMA_COMMIT) ++me.wgmma_groups;
  if (op == TMC_CPU_WGMMA_FENCE) {
    ++me.wgmma_fences;
    me.unfenced_registers.clear();
  }
  if (op == TMC_CPU_SETMAXNREG_DEC || op == TMC_CPU_SETMAXNREG_INC) {
    size_t wg = static_cast<size_t>(t->linear_tid / 128);
    g_block->warpgroup_registers[wg] = pending;
    if (op == TMC_CPU_SETMAXNREG_INC) g_block->warpgroup_inc_site[wg] = site;
    return;
  }
  if (op != TMC_CPU_WGMMA_WAIT) return;
  int32_t done_below = me.wgmma_groups - std::max(pending, 0);
  // A wgmma is one operation of the whole warpgroup: the wait that
  // completes its group in one thread completes it for all (each thread
  // issued only its share of the reads here). So the warpgroup's reads of
  // those groups end now, ordered before what this thread does next (an
  // elected thread releasing the stage for all, as CUTLASS's pipelines do).
  int32_t first = t->linear_tid / 128 * 128;
  int32_t last = std::min<int32_t>(first + 128, static_cast<int32_t>(g_block->fibers.size()));
  for (int32_t u = first; u < last; ++u)
    EndAsyncReads(t->linear_tid, g_block->fibers[static_cast<size_t>(u)].wgmma_reads, done_below);
  std::erase_if(me.wgmma_registers, [&](const Fiber::InFlightRegisters& r) { return r.group < done_below; });
}

void tmc_cpu_tma(tmc_cpu_thread* t, int32_t op, void* tile, const void* tensor, int32_t rank, const int64_t* geometry,
                 int32_t elem_bytes, int32_t swizzle, void* bar, int32_t tile_buffer, int64_t tile_base,
                 int32_t tensor_buffer, int32_t bar_buffer, int64_t bar_index, int64_t bar_extent, int32_t multicast,
                 int32_t site) {
  using namespace tmc::runtime;
  Block& b = *g_block;
  Fiber& me = Current();
  int32_t tid = t->linear_tid;
  const int64_t *dims = geometry, *box = geometry + rank, *origin = geometry + 2 * rank;
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d) count *= box[d];
  bool load = op == TMC_CPU_TMA_LOAD;
  // A multicast load lands in the blocks of the cluster whose rank bits
  // the mask sets (maybe not this one); the others are handled below.
  // (`multicast` is -1 for a plain load.)
  auto mask = static_cast<uint32_t>(multicast == -1 ? 0 : multicast);
  std::vector<Block*> peers;
  if (load) RequireMbarrierIndex(t, bar_buffer, bar_index, bar_extent, site);
  if (load && multicast == 0) {
    // No block receives the box: its bytes never reach a barrier.
    CpuFinding f{CpuFinding::Kind::ClusterEmptyMask};
    f.site = site;
    f.thread = tid;
    Record(f);
    b.aborted = true;
    Park(State::Done, site);  // never resumes
  }
  if (load && mask != 0) {
    for (int32_t r = 0; r < 32; ++r)
      if (mask >> r & 1)
        if (Block* p = PeerBlock(t, r, true, site); p && p != &b) peers.push_back(p);
  }
  bool here = !load || mask == 0 || ((mask >> b.rank) & 1);
  Mbarrier* m = nullptr;
  if (load && here) {
    int64_t key = static_cast<char*>(bar) - t->shared;
    if (b.check_races) CheckRace(tid, bar, bar_buffer, bar_index, GridAccess::Atomic, false, site);
    m = &InitializedMbarrier(t, key, bar_buffer, bar_index, site);
  }
  // Element k of the box (row-major) sits at tile byte k * e, swizzled on
  // the shared address as the hardware does (Swizzle<B, 4, 3> on bytes:
  // the 16-byte chunk XOR the 128-byte row modulo span / 16).
  int64_t tile_addr = static_cast<char*>(tile) - t->shared;
  auto shared_at = [&](int64_t k) {
    int64_t a = tile_addr + k * elem_bytes;
    if (swizzle > 0) a ^= ((a >> 7) & (swizzle / 16 - 1)) << 4;
    return t->shared + a;
  };
  TmaCopy copy;
  copy.elem_bytes = elem_bytes;
  copy.thread = tid;
  if (load) {
    copy.dst.reserve(static_cast<size_t>(count));
    copy.data.assign(static_cast<size_t>(count * elem_bytes), 0);
  }
  int64_t coord[8];
  for (int64_t k = 0; k < count; ++k) {
    // The element's position in the tensor, and whether it is inside.
    int64_t rest = k, linear = 0;
    bool inside = true;
    for (int32_t d = rank - 1; d >= 0; --d) {
      coord[d] = origin[d] + rest % box[d];
      rest /= box[d];
    }
    for (int32_t d = 0; d < rank; ++d) {
      inside = inside && coord[d] >= 0 && coord[d] < dims[d];
      linear = linear * dims[d] + coord[d];
    }
    char* shared = shared_at(k);
    int64_t tile_offset = (shared - t->shared - tile_base) / elem_bytes;
    const char* global = static_cast<const char*>(tensor) + (inside ? linear * elem_bytes : 0);
    if (load) {
      if (inside) {
        if (b.check_races) CheckRace(tid, global, tensor_buffer, linear, GridAccess::Read, true, site);
        std::memcpy(copy.data.data() + k * elem_bytes, global, static_cast<size_t>(elem_bytes));
      }
      // The copy may land at any moment until its phase completes: it
      // races with what others did to the tile in this interval, and with
      // everything that touches it before the wait.
      if (b.check_races && here) {
        CheckRace(tid, shared, tile_buffer, tile_offset, GridAccess::Write, false, site);
        Shadow& sh = b.shadow[reinterpret_cast<uintptr_t>(shared)];
        sh.generic_writer = -1;  // a write through the asynchronous proxy (CheckRace took it for a store)
        MarkTmaPending(sh, tid, site, -1);
      }
      copy.dst.emplace_back(shared, tile_offset);
      continue;
    }
    // A store reads the tile until the wait that completes its group, and
    // writes only the part inside the tensor.
    // (The whole box is read from the tile, the part outside the tensor too.)
    me.tma_store_last_group = me.tma_store_groups;
    me.tma_store_last_site = site;
    if (b.check_races) {
      CheckRace(tid, shared, tile_buffer, tile_offset, GridAccess::Read, false, site);
      me.tma_store_reads.push_back(WgmmaRead{shared, tile_buffer, site, me.tma_store_groups, tile_offset});
      Shadow& sh = b.shadow[reinterpret_cast<uintptr_t>(shared)];
      CheckProxyFence(sh, tid, tile_buffer, tile_offset, site, true);
      ++sh.async_reads;
      sh.async_reader = tid;
      sh.async_site = site;
      sh.async_tma_store = true;
      if (inside) CheckRace(tid, global, tensor_buffer, linear, GridAccess::Write, true, site);
    }
    if (inside) std::memcpy(const_cast<char*>(global), shared, static_cast<size_t>(elem_bytes));
  }
  if (!load) return;
  // The other blocks' copies: the same box at the same offsets of their
  // shared memory, completing on their barrier at this one's offset;
  // reading it there before that phase completes is a race too.
  int64_t key = static_cast<char*>(bar) - t->shared;
  for (Block* p : peers) {
    // (Its bytes complete there through the async proxy: no arrival, so
    // nothing of this block is released to that block's waiters.)
    Mbarrier& pm = PeerMbarrier(t, *p, key, bar_buffer, bar_index, site);
    TmaCopy theirs = copy;
    theirs.rank = b.rank;
    bool reported = false;
    for (auto& [addr, offset] : theirs.dst) {
      addr = p->shared.data() + (addr - t->shared);
      if (!p->check_races) continue;
      Shadow& sh = p->shadow[reinterpret_cast<uintptr_t>(addr)];
      // The copy may land there at once: that block's accesses to the
      // element must be ordered before this issue.
      if (!reported) reported = ReportUnorderedPeerAccess(me, *p, sh, site, tile_buffer, offset);
      MarkTmaPending(sh, tid, site, b.rank);
    }
    pm.inflight += count * elem_bytes;
    pm.copies.push_back(std::move(theirs));
    pm.remote.push_back({tid, site, b.rank, true});
    g_block = p;
    CompleteIfDone(pm, false);
    g_block = &b;
  }
  if (!here) return;
  // The box's bytes complete on the mbarrier (zero-filled ones too); the
  // issuing thread's accesses so far are ordered before the phase's
  // waiters, as an arrival's are.
  m->inflight += count * elem_bytes;
  JoinArrival(*m, tid);
  m->copies.push_back(std::move(copy));
  CompleteIfDone(*m, false);
}

void tmc_cpu_tma_store_sync(tmc_cpu_thread* t, int32_t op, int32_t pending) {
  using namespace tmc::runtime;
  Fiber& me = Current();
  if (op == TMC_CPU_TMA_STORE_COMMIT) {
    ++me.tma_store_groups;
    return;
  }
  int32_t done_below = me.tma_store_groups - std::max(pending, 0);
  me.tma_store_done_below = std::max(me.tma_store_done_below, done_below);
  EndAsyncReads(t->linear_tid, me.tma_store_reads, done_below);
}

void* tmc_cpu_index_fault(tmc_cpu_thread* t, int32_t buffer, int32_t rank, const int64_t* index, const int64_t* extent,
                          int32_t is_write, int32_t first_site) {
  using namespace tmc::runtime;
  CpuFinding f{CpuFinding::Kind::IndexOutOfBounds};
  f.buffer = buffer;
  f.thread = t->linear_tid;
  f.write = is_write != 0;
  f.rank = std::min(rank, CpuFinding::kMaxRank);
  for (int32_t k = 0; k < rank; ++k) {
    if (k < CpuFinding::kMaxRank) f.index[k] = index[k];
    if (f.dim < 0 && (index[k] < 0 || index[k] >= extent[k])) {
      f.dim = k;
      f.offset = index[k];
      f.extent = extent[k];
      f.site = first_site + k;
    }
  }
  Record(f);
  return g_scratch;
}

void tmc_cpu_cp_async(tmc_cpu_thread* t, void* dst, int64_t dst_offset, int64_t dst_extent, int32_t dst_buffer,
                      const void* src, int64_t src_offset, int64_t src_extent, int32_t src_buffer, int32_t elem_bytes,
                      int32_t bytes, int32_t src_bytes, int32_t site) {
  using namespace tmc::runtime;
  using K = CpuFinding::Kind;
  // The hardware needs both addresses aligned to the copy size: a shared
  // address (byte offset in the block's shared memory) and a global one
  // (tensor data is 16-byte aligned, so the byte offset in the tensor).
  int64_t dst_address = static_cast<char*>(dst) - t->shared;
  int64_t src_address = src_offset * elem_bytes;
  if (dst_address % bytes != 0)
    return RecordCpAsyncFault(K::CpAsyncMisaligned, t, site, dst_buffer, dst_offset, dst_extent, dst_address, bytes, true);
  if (src_address % bytes != 0)
    return RecordCpAsyncFault(K::CpAsyncMisaligned, t, site, src_buffer, src_offset, src_extent, src_address, bytes, false);
  // Every element of the copy is in bounds (extents are known when
  // accesses are checked; -1 otherwise).
  int32_t n = bytes / elem_bytes;
  // The zero-filling form reads only the first src_bytes (the elements they
  // touch); the rest of the destination becomes zero.
  int32_t src_n = (src_bytes + elem_bytes - 1) / elem_bytes;
  for (int32_t k = 0; k < n && dst_extent >= 0; ++k)
    if (dst_offset + k < 0 || dst_offset + k >= dst_extent)
      return RecordCpAsyncFault(K::CpAsyncOutOfBounds, t, site, dst_buffer, dst_offset + k, dst_extent, dst_address, bytes, true);
  for (int32_t k = 0; k < src_n && src_extent >= 0; ++k)
    if (src_offset + k < 0 || src_offset + k >= src_extent)
      return RecordCpAsyncFault(K::CpAsyncOutOfBounds, t, site, src_buffer, src_offset + k, src_extent, src_address, bytes, false);
  if (g_block->profile) {
    // The zero-filling form reads src_bytes (none: the lane reads nothing).
    if (src_bytes > 0)
      g_block->profile->Access(t->linear_tid, site, ProfileOp::CpAsyncRead, false, src_buffer, src_bytes, src_address);
    g_block->profile->Access(t->linear_tid, site, ProfileOp::CpAsyncWrite, true, dst_buffer, bytes, dst_address);
  }
  Fiber& f = Current();
  AsyncCopy c{static_cast<char*>(dst), {}, bytes, elem_bytes, f.committed, site, dst_buffer, dst_offset};
  std::memset(c.data, 0, sizeof c.data);
  if (src_bytes > 0) std::memcpy(c.data, src, static_cast<size_t>(src_bytes));
  if (g_block->check_races) {
    for (int32_t k = 0; k < src_n; ++k)
      CheckRace(t->linear_tid, static_cast<const char*>(src) + k * elem_bytes, src_buffer, src_offset + k,
                GridAccess::Read, true, site);
    // The copy may land at any moment until its wait: it races with what
    // others did to the destination in this interval, and everything that
    // touches it before the wait.
    for (int32_t k = 0; k < n; ++k) {
      const char* a = c.dst + k * elem_bytes;
      CheckRace(t->linear_tid, a, dst_buffer, dst_offset + k, GridAccess::Write, false, site);
      Shadow& s = g_block->shadow[reinterpret_cast<uintptr_t>(a)];
      s.pending = t->linear_tid;
      s.pending_site = site;
    }
  }
  f.copies.push_back(c);
}

void tmc_cpu_cp_async_commit(tmc_cpu_thread*) { ++tmc::runtime::Current().committed; }

void tmc_cpu_cp_async_wait(tmc_cpu_thread* t, int32_t pending_groups) {
  using namespace tmc::runtime;
  // Groups 0 .. committed - 1 are committed; all but the newest
  // `pending_groups` of them complete. Copies not yet committed stay in
  // flight, as on the hardware.
  Fiber& f = Current();
  int32_t done_below = f.committed - pending_groups;
  size_t kept = 0;
  for (size_t i = 0; i < f.copies.size(); ++i) {
    if (f.copies[i].group < done_below) Land(t->linear_tid, f.copies[i]);
    else f.copies[kept++] = f.copies[i];
  }
  f.copies.resize(kept);
}

void tmc_cpu_poll(tmc_cpu_thread* t, int32_t site, int32_t is_while) {
  using namespace tmc::runtime;
  Block& b = *g_block;
  bool stopped = b.stop->load(std::memory_order_relaxed);
  if (!stopped) {
    auto now = std::chrono::steady_clock::now();
    t->poll = kPollInterval;
    if (now < b.deadline) return;
    // Past the deadline. In a nest, the innermost loop runs out the count
    // most often, though it may be a `for` that ends; poll at every
    // back-edge now, and blame the first `while` that comes by, or the
    // loop at hand once a grace period has passed.
    t->poll = 1;
    auto grace = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(std::max(0.05, 0.1 * b.timeout_s)));
    if (!is_while && now < b.deadline + grace) return;
    // Say where this thread loops, and where the others wait.
    CpuFinding f{CpuFinding::Kind::Timeout};
    f.site = site;
    f.thread = t->linear_tid;
    for (size_t i = 0; i < b.fibers.size() && f.other_site < 0; ++i)
      if (b.fibers[i].state == State::AtBarrier) {
        f.other_site = b.fibers[i].site;
        f.other_thread = static_cast<int32_t>(i);
      }
    Record(f);
    b.stop->store(true);
  }
  // The launch is over (another block may have timed out): end quietly.
  b.aborted = true;
  Park(State::Done, site);
}

void tmc_cpu_int_fault(tmc_cpu_thread* t, int32_t kind, int32_t bits, int32_t site) {
  using tmc::runtime::CpuFinding;
  CpuFinding f{kind & 2 ? CpuFinding::Kind::DivideOverflow : CpuFinding::Kind::DivideByZero};
  f.site = site;
  f.thread = t->linear_tid;
  f.modulo = (kind & 1) != 0;
  f.bits = bits;
  tmc::runtime::Record(f);
}

void* tmc_cpu_access(tmc_cpu_thread* t, void* addr, int64_t offset, int64_t extent, int32_t bytes, int32_t buffer,
                     int32_t access, int32_t scope, int32_t site) {
  using namespace tmc::runtime;
  const bool operand = (access & TMC_CPU_OPERAND) != 0;  // an instruction's fragment, not the thread's access
  access &= ~TMC_CPU_OPERAND;
  if (offset < 0 || offset >= extent) {
    CpuFinding f{CpuFinding::Kind::OutOfBounds};
    f.site = site;
    f.buffer = buffer;
    f.offset = offset;
    f.extent = extent;
    f.thread = t->linear_tid;
    f.write = access != TMC_CPU_READ;
    Record(f);
    return g_scratch;
  }
  if (scope == TMC_CPU_REGISTER) {
    // A register a wgmma may still read or write.
    for (const Fiber::InFlightRegisters& r : Current().wgmma_registers)
      if (static_cast<const char*>(addr) >= r.begin && static_cast<const char*>(addr) < r.end) {
        CpuFinding f{CpuFinding::Kind::WgmmaRegisterInFlight};
        f.site = site;
        f.other_site = r.site;
        f.buffer = buffer;
        f.offset = offset;
        f.thread = t->linear_tid;
        f.write = access != TMC_CPU_READ;
        Record(f);
        break;
      }
    // After the thread's first wgmma_fence, its accesses until the next
    // one: a wgmma using one of these registers lacks the fence between.
    Fiber& me = Current();
    if (me.wgmma_fences > 0 && !operand) {
      if (me.unfenced_registers.size() >= me.compact_registers_at) {  // a long stretch: each register once
        std::sort(me.unfenced_registers.begin(), me.unfenced_registers.end(),
                  [](const Fiber::RegisterTouch& x, const Fiber::RegisterTouch& y) { return x.addr < y.addr; });
        me.unfenced_registers.erase(
            std::unique(me.unfenced_registers.begin(), me.unfenced_registers.end(),
                        [](const Fiber::RegisterTouch& x, const Fiber::RegisterTouch& y) { return x.addr == y.addr; }),
            me.unfenced_registers.end());
        me.compact_registers_at = std::max<size_t>(4096, 2 * me.unfenced_registers.size());
      }
      me.unfenced_registers.push_back(
          {static_cast<const char*>(addr), buffer, site, offset, access != TMC_CPU_READ});
    }
    return addr;  // registers are the thread's own: no race, no memory traffic
  }
  if (g_block->check_races)
    CheckRace(t->linear_tid, addr, buffer, offset,
              access == TMC_CPU_WRITE ? GridAccess::Write : access == TMC_CPU_ATOMIC ? GridAccess::Atomic : GridAccess::Read,
              scope == TMC_CPU_GLOBAL, site);
  // Registers are no memory traffic. Global addresses as byte offsets in
  // the tensor (its base is aligned on the GPU; the host copy's may not be).
  if (g_block->profile && scope != TMC_CPU_REGISTER) {
    bool shared = scope == TMC_CPU_SHARED;
    g_block->profile->Access(t->linear_tid, site,
                             access == TMC_CPU_WRITE ? ProfileOp::Write : access == TMC_CPU_ATOMIC ? ProfileOp::Atomic : ProfileOp::Read,
                             shared, buffer, bytes, shared ? static_cast<char*>(addr) - t->shared : offset * bytes);
  }
  return addr;
}

}  // extern "C"
