// Planted cluster faults, each found by tmc run at its source line (the
// kernel of test/Run/cluster.tm with the bug chosen by -D BUG=n):
//  1. no cluster_sync between the mbarrier inits and the other block's
//     first multicast copy into them;
//  2. no cluster_sync at the end: a block exits while the other still
//     arrives on its `empty` barrier;
//  3. a multicast mask naming a block outside the cluster (a run-time
//     value: constants are compile-time errors, test/Frontend/Sema);
//  4. half of a block at a cluster_sync, the other half at a `sync`
//     (threads that exited would not count: barrier.cluster waits for
//     the threads that have not exited);
//  5. no wait on `empty`: a multicast copy overwrites the other block's
//     stage while that block may still read it (--check-races);
//  6. an arrival on the mbarrier of a rank outside the cluster;
//  7. a multicast mask that is 0 at run time (no block receives the box);
//  8. block 0 never releases block 1's stages: both blocks wait forever
//     (the note points at the other block's stuck producer);
//  9. block 1 reads a stage before waiting for it, while block 0's
//     multicast half is still in flight (the note names block 0);
// 10. every block writes C[0, 0]: a race between the blocks of one
//     cluster, noted as such (cluster_sync's order of global memory is
//     not modeled).
// Without the final cluster_sync (2), the last arrivals on the other
// block's `empty` barrier are also reported in whichever order the blocks
// ran: nothing orders them before that block's exit.
// RUN: %tmc run %s --arch=sm_90 -D BUG=0 --shape M=40,N=72,K=52 --check-races | FileCheck %s --check-prefix=OK
// RUN: not %tmc run %s --arch=sm_90 -D BUG=1 --shape M=40,N=72,K=52 2>&1 | FileCheck %s --check-prefix=INIT
// RUN: not %tmc run %s --arch=sm_90 -D BUG=2 --shape M=40,N=72,K=52 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not %tmc run %s --arch=sm_90 -D BUG=3 --shape M=40,N=72,K=52 2>&1 | FileCheck %s --check-prefix=MASK
// RUN: not %tmc run %s --arch=sm_90 -D BUG=4 --shape M=40,N=72,K=52 2>&1 | FileCheck %s --check-prefix=DIVERGE
// RUN: not %tmc run %s --arch=sm_90 -D BUG=5 --shape M=40,N=72,K=52 --check-races 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not %tmc run %s --arch=sm_90 -D BUG=6 --shape M=40,N=72,K=52 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not %tmc run %s --arch=sm_90 -D BUG=7 --shape M=40,N=72,K=52 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not %tmc run %s --arch=sm_90 -D BUG=8 --shape M=40,N=72,K=52 2>&1 | FileCheck %s --check-prefix=STUCK
// RUN: not %tmc run %s --arch=sm_90 -D BUG=9 --shape M=40,N=72,K=52 --check-races 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not %tmc run %s --arch=sm_90 -D BUG=10 --shape M=40,N=32,K=52 --check-races 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: not %tmc %s --arch=sm_80 2>&1 | FileCheck %s --check-prefix=ARCH
// OK: result:     PASS
// INIT: fault_cluster.tm:86:7: error: mbarrier 'full'[0] of block (0, 1, 0) is used by thread 0 of block (0, 0, 0) in kernel 'faulty' with no cluster_sync after its mbarrier_init: the other blocks of a cluster see an init only after a cluster_sync
// EXIT: fault_cluster.tm:97:7: error: an mbarrier_arrive in kernel 'faulty' by thread 0 of block (0, 1, 0) reaches block (0, 0, 0) of its cluster after all its threads exited: a block's shared memory ends with it, so the blocks of a cluster must not exit while the others may still use it (end the kernel with cluster_sync)
// MASK: fault_cluster.tm:86:7: error: a multicast tma_load in kernel 'faulty' by thread 0 of block (0, 0, 0) names block rank 2, outside its cluster of 2 blocks
// DIVERGE: fault_cluster.tm:108:54: error: barrier divergence in kernel 'faulty': thread 64 of block (0, 0, 0) waits here, but thread 0 waits at another barrier
// DIVERGE: note: while thread 0 waits here
// DIVERGE-NEXT: if (threadIdx.x < 64) { cluster_sync(); } else { sync; }
// RACE: fault_cluster.tm:86:7: error: multicast tma_load by thread 0 of block (0, 0, 0) in kernel 'faulty' into 'Bs' element 0 of block (0, 1, 0), which its thread 0 may still read: nothing orders that access before the copy (wait on an mbarrier that block arrives on after it, or cluster_sync)
// RACE: fault_cluster.tm:93:70: note: the read by thread 0 of block (0, 1, 0)
// RANK: fault_cluster.tm:98:36: error: an mbarrier_arrive in kernel 'faulty' by thread 0 of block (0, 0, 0) names block rank 52, outside its cluster of 2 blocks
// EXIT: fault_cluster.tm:97:7: error: an mbarrier_arrive in kernel 'faulty' by thread 0 of block (0, 1, 0) reaches mbarrier 'empty'[0] of block (0, 0, 0), but nothing orders it before that block's exit (no thread of it waits for the phase it completes, no cluster_sync follows): on the GPU the block may be gone when it lands
// EMPTY: fault_cluster.tm:86:7: error: a multicast tma_load in kernel 'faulty' by thread 0 of block (0, 0, 0) has an empty mask: it copies to no block, so its bytes never reach an mbarrier
// STUCK: error: kernel 'faulty' deadlocks: thread 0 of block (0, 0, 0) waits on mbarrier 'full'[0] for its phase of parity 1 to complete, but no thread is left to complete it (0 arrivals and 1024 transaction bytes missing)
// STUCK: note: while thread 0 of block (0, 1, 0) of the cluster waits here
// STUCK-NEXT: if (kt >= 2 && BUG != 5) { mbarrier_wait(empty[s], (kt / 2 - 1) % 2); }
// EARLY: error: read of 'Bs' element {{[0-9]+}} in kernel 'faulty' by thread {{[0-9]+}} of block (0, 1, 0) before the mbarrier phase that completes the tma_load into it
// EARLY: note: the multicast tma_load by thread 0 of block (0, 0, 0), still in flight
// GLOBAL: error: data race on 'C' element 0 in kernel 'faulty' between blocks
// GLOBAL: note: blocks (0, 1, 0) and (0, 0, 0) are in one cluster: the order that cluster_sync gives their global-memory accesses is not modeled, so if a cluster_sync separates these two, this report is wrong
// ARCH: error: kernel 'faulty' has a thread-block cluster ('cluster(...)' of more than one block), which needs --arch=sm_90 or sm_90a; this compilation targets sm_80

import std.nn;  // op matmul

kernel faulty<BUG: int in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]>(A: f32[M, K] by tma, B: f32[K, N] by tma, C: f32[M, N]) implements matmul
    grid(cdiv(N, 32), 2 * cdiv(M, 32)) block(128) cluster(1, 2)
{
  shared As: f32[2, 16, 16];
  shared Bs: f32[2, 2, 8, 32];
  shared full: mbarrier[2];
  shared empty: mbarrier[2];
  let rank = cluster_rank();
  if (threadIdx.x == 0) {
    for s in range(2) {
      mbarrier_init(full[s], 1);
      mbarrier_init(empty[s], 2);
    }
  }
  if (BUG != 1) { cluster_sync(); }
  let cmap = repeat(4, 1) * spatial(4, 32);
  register acc: f32[16, 32] by cmap;
  for (i, j) in cmap on threadIdx.x { acc[i, j] = 0.0; }
  for kt in range(cdiv(K, 16)) {
    let s = kt % 2;
    if (threadIdx.x == 0) {
      if (kt >= 2 && BUG != 5) { mbarrier_wait(empty[s], (kt / 2 - 1) % 2); }
      mbarrier_arrive_expect_tx(full[s], (16 * 16 + 16 * 32) * 4);
      tma_load(As[s], A[blockIdx.y * 16, kt * 16], full[s]);
      let mask = BUG == 3 ? 3 + 4 * (K % 2 + 1) : BUG == 7 ? 3 * (K / 1000) : 3;
      tma_load(Bs[s, rank], B[kt * 16 + rank * 8, blockIdx.x * 32], full[s], mask);
    }
    if (BUG == 9 && rank == 1) {
      for (i, j) in cmap on threadIdx.x { acc[i, j] += Bs[s, 0, 0, j]; }
    }
    mbarrier_wait(full[s], (kt / 2) % 2);
    for k in unroll(16) {
      for (i, j) in cmap on threadIdx.x { acc[i, j] += As[s, i, k] * Bs[s, k / 8, k % 8, j]; }
    }
    sync;
    if (threadIdx.x == 0) {
      mbarrier_arrive(empty[s], 0);
      if (BUG != 8 || rank == 1) { mbarrier_arrive(empty[s], BUG == 6 ? K : 1); }
    }
  }
  for (i, j) in cmap on threadIdx.x {
    let gi = blockIdx.y * 16 + i;
    let gj = blockIdx.x * 32 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
  if (BUG == 10 && threadIdx.x == 0) { C[0, 0] = 1.0; }
  if (BUG == 4) {
    if (threadIdx.x < 64) { cluster_sync(); } else { sync; }
  } else if (BUG != 2) {
    cluster_sync();
  }
}
