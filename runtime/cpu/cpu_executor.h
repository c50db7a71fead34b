// The CPU executor: runs kernels compiled for the host (codegen/cpu/) with
// GPU semantics. Blocks run in parallel on the machine's cores; the threads
// of a block run as fibers on one core, switching at barriers and warp
// operations, so `sync` inside loops, shuffles and tensor-core operations
// behave as on the GPU. Optional checks find out-of-bounds accesses, data
// races between the threads of a block, and barriers not reached by all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/cpu/cpu_abi.h"
#include "runtime/cpu/profile.h"

namespace tmc::runtime {

struct CpuFinding {
  enum class Kind {
    OutOfBounds, IndexOutOfBounds, Race, BlockRace, BarrierDivergence, WarpDivergence, CpAsyncOutOfBounds,
    CpAsyncMisaligned,
    LdMatrixMisaligned,  // an ldmatrix row not 16-byte aligned (`address`: its shared-memory offset)
    DivideByZero,   // integer division or modulo (`modulo`) by zero
    DivideOverflow,  // MIN / -1 (or MIN % -1) of `bits`-bit integers
    Timeout,         // a thread still in the loop at `site` past the deadline (`other_site`: a barrier others wait at)
    // A wait on an mbarrier (`buffer`, element `offset`) whose phase can no
    // longer complete: every other thread is done or waiting too (`count`:
    // the arrivals still missing, `address`: the transaction bytes).
    MbarrierDeadlock,
    MbarrierUninitialized,  // an mbarrier used before mbarrier_init
    // A register of a wgmma's accumulator or A operand accessed while the
    // wgmma may still use it (before the wgmma_wait that completes its
    // group; `other_site`: the wgmma).
    WgmmaRegisterInFlight,
    // A wgmma (at `site`) using a register (`buffer`[`offset`]) that its
    // thread accessed (at `other_site`; a write when `write`) after its
    // latest wgmma_fence; `other_site` -1: the thread executed no
    // wgmma_fence before this wgmma at all.
    WgmmaUnfenced,
    // A thread that ended with a tma_store (at `site`) not completed by a
    // tma_store_wait: the block's shared memory may go while it reads it.
    TmaStoreUnfinished,
    // Thread-block clusters:
    // A block rank (`offset`; `write`: a bit of a multicast mask) outside
    // the cluster of `extent` blocks.
    ClusterRankOutside,
    // A multicast tma_load whose mask names no block.
    ClusterEmptyMask,
    // An arrival or multicast copy reaching block `other_block` of the
    // cluster after all its threads exited (its shared memory is gone).
    ClusterPeerExited,
    // ... that nothing orders before the exit of block `other_block` (its
    // mbarrier `buffer`[`offset`]): on the GPU it may come after.
    ClusterExitUnordered,
    // ... reaching mbarrier `buffer`[`offset`] of block `other_block`
    // with no cluster_sync since that block initialized it.
    ClusterMbarrierUnordered,
    // A multicast tma_load into block `other_block` while its thread
    // `other_thread` may still access the element (at `other_site`; a
    // write when `other_write`): nothing orders that access before the issue.
    ClusterCopyRace,
    // A wgmma or tma_store (at `site`, issued by `thread`) reading shared
    // element `buffer`[`offset`] whose latest write, by `other_thread` at
    // `other_site`, no fence_proxy_async of that thread followed.
    ProxyFenceMissing,
    // A warpgroup instruction (wgmma, its fences, setmaxnreg; at `site`)
    // that warp `thread` / 32 executed `address` times and warp
    // `other_thread` / 32 of the same warpgroup `extent` times.
    WarpgroupDivergence,
    // After every warpgroup's setmaxnreg the block would hold `address`
    // registers (`extent`: the SM's), so the increase at `site` (by the
    // warpgroup of `thread`, to `offset` registers) never completes.
    SetmaxnregOverBudget,
  };
  static constexpr int kMaxRank = 8;  // indices kept of an IndexOutOfBounds access
  // Why lanes of a warp diverged at a warp operation (WarpDivergence).
  enum class Why { OtherSite, AtBarrier, Returned, PartialWarp };
  Kind kind;
  int32_t site = -1;        // where (a site id of the compiled kernel)
  int32_t other_site = -1;  // races: the other access; divergence: where the other thread waits
  Why why = Why::OtherSite;
  int32_t warp_threads = 32;  // PartialWarp: the threads the warp has
  int32_t buffer = -1;
  int64_t offset = 0, extent = 0;
  int32_t thread = 0, other_thread = -1;  // linear thread ids in the block
  int32_t block[3] = {0, 0, 0};
  bool write = false, other_write = false;  // cp_async faults: write is the destination side
  bool other_async = false;  // races: the other access is a cp_async still in flight
  bool other_tma = false;    // ... or a tma_load whose mbarrier phase has not completed
  int32_t other_rank = -1;   // ... multicast by block `other_block` of the cluster (this rank)
  // Races: the other access is an asynchronous read still in flight, of a
  // wgmma (1) or of a tma_store (2).
  int32_t other_async_read = 0;
  bool atomic = false, other_atomic = false;  // races: the access is an atomic update (not a plain read)
  int32_t other_block[3] = {0, 0, 0};  // races between blocks: the other block
  int64_t linear_blocks[2] = {0, 0};   // races between blocks: both blocks in grid order
  bool same_cluster = false;           // ... of one thread-block cluster
  int64_t address = 0;       // cp_async faults: shared address or byte offset in the tensor
  int32_t bytes = 0;         // cp_async faults: the copy's size
  bool modulo = false;       // division faults: `%` rather than `/`
  int32_t bits = 0;          // division faults: the integers' width
  int64_t count = 1;  // how many times this finding (same kind and site) occurred
  // IndexOutOfBounds: the access's indices; `dim` is the first one outside
  // [0, extent) (`offset` is its index).
  int32_t rank = 0, dim = -1;
  int64_t index[kMaxRank] = {};
};

struct CpuLaunch {
  tmc_cpu_kernel_fn kernel = nullptr;
  const char* name = "";  // the kernel's, for fatal reports (a stack overflow)
  const uint64_t* args = nullptr;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t cluster[3] = {1, 1, 1};  // blocks per thread-block cluster (run together); divides the grid
  int64_t shared_bytes = 0;
  bool check_races = false;  // within blocks and, on global tensors, between blocks
  int workers = 0;           // OS threads for blocks; 0: one per core
  double timeout_s = 0;      // per block; past it, a looping thread is a hang (0: no limit)
  // tmc run --profile: the memory behaviour of every access (the kernel
  // must be compiled with access checks, which report each access), added
  // to *profile; null: none recorded.
  CpuProfile* profile = nullptr;
};

/// Runs the grid; returns the findings of the checking modes (and of
/// barrier and warp divergence, which are always detected), at most one
/// per kind and site, each with how often it occurred.
std::vector<CpuFinding> RunOnCpu(const CpuLaunch& launch);

}  // namespace tmc::runtime
