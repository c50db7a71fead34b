// Thread-block clusters: `cluster(...)` runs a kernel's blocks in groups
// that wait for each other (cluster_sync), arrive on each other's
// mbarriers and receive multicast TMA copies. Checked on the CPU executor
// (which runs a cluster's blocks together) at shapes that do and do not
// divide the tiles, in PTX assembled by ptxas (.reqnctapercluster, so that
// a plain launch forms the clusters) and in CUDA C compiled by nvcc.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --arch=sm_90 --kernel cluster_matmul --shape M=40,N=72,K=52 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel cluster_matmul --shape M=64,N=64,K=64 --check-races --seed 3 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90 --kernel cluster_rotate --shape M=100,N=40 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90 --kernel cluster_rotate --shape M=256,N=64 --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: not %tmc run %s --arch=sm_90 --kernel pairs --shape N=48 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: %tmc run %s --arch=sm_90 --kernel pairs --shape N=64 --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90 --kernel arrive_after_sync --shape N=100 --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --arch=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --arch=sm_90 --emit=ptx | %ptxas-verify --no-spills sm_90
// RUN: %tmc %s --arch=sm_90a --emit=meta | FileCheck %s --check-prefix=META
// RUN: rm -rf %t && mkdir %t && %tmc %s --arch=sm_90a --emit=cuda -o %t/k.cu && %nvcc -gencode arch=compute_90a,code=sm_90a %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// GRID: error: the grid (3, 1, 1) is not a whole number of clusters of (2, 1, 1) blocks: dimension 0 must be a multiple of 2 for these shapes
// PTX-LABEL: .entry cluster_matmul(
// PTX: .reqnctapercluster 1, 2, 1
// PTX: mbarrier.init.shared::cta.b64
// PTX-NEXT: fence.proxy.async.shared::cta;
// PTX-NEXT: fence.mbarrier_init.release.cluster;
// PTX: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}], %rs{{[0-9]+}};
// PTX: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64
// PTX: mapa.shared::cluster.u32 remote_bar, %r{{[0-9]+}}, %r{{[0-9]+}};
// PTX-NEXT: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote_bar];
// PTX-LABEL: .entry cluster_rotate(
// PTX: .reqnctapercluster 4, 1, 1
// PTX-LABEL: .entry pairs(
// PTX: .reqnctapercluster 2, 1, 1
// META: "name": "cluster_matmul",
// META: "cluster": [1, 2, 1],
// META: "name": "cluster_rotate",
// META: "cluster": [4, 1, 1],
// CUDA: __global__ void __launch_bounds__(128) __cluster_dims__(1, 2, 1) cluster_matmul(
// CUDA: fence.mbarrier_init.release.cluster;
// CUDA: barrier.cluster.arrive;\n\tbarrier.cluster.wait;
// CUDA: .multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;
// CUDA: mapa.shared::cluster.u32 remote_bar, %0, %1;
// CUDA: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64

import std.nn;  // op matmul

op twice2d(X: f32[M, N]) -> f32[M, N] { out[i, j] = X[i, j] * 2.0; }
op plus1(X: f32[N]) -> f32[N] { out[i] = X[i] + 1.0; }

// A cluster of two blocks along M shares the B tile: each block loads half
// of it and multicasts the half to both; each loads its own A tile. Both
// blocks' `empty` barriers count the two blocks' releases of a stage, so
// that a producer overwrites a stage (in both blocks) only when both are
// done with it.
kernel cluster_matmul(A: f32[M, K] by tma, B: f32[K, N] by tma, C: f32[M, N]) implements matmul
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
  cluster_sync();  // both blocks' barriers exist before either block's copies reach them
  let cmap = repeat(4, 1) * spatial(4, 32);
  register acc: f32[16, 32] by cmap;
  for (i, j) in cmap on threadIdx.x { acc[i, j] = 0.0; }
  for kt in range(cdiv(K, 16)) {
    let s = kt % 2;
    if (threadIdx.x == 0) {
      if (kt >= 2) { mbarrier_wait(empty[s], (kt / 2 - 1) % 2); }
      mbarrier_arrive_expect_tx(full[s], (16 * 16 + 16 * 32) * 4);
      tma_load(As[s], A[blockIdx.y * 16, kt * 16], full[s]);
      tma_load(Bs[s, rank], B[kt * 16 + rank * 8, blockIdx.x * 32], full[s], 3);
    }
    mbarrier_wait(full[s], (kt / 2) % 2);
    for k in unroll(16) {
      for (i, j) in cmap on threadIdx.x { acc[i, j] += As[s, i, k] * Bs[s, k / 8, k % 8, j]; }
    }
    sync;  // the block is done with stage s
    if (threadIdx.x == 0) {
      mbarrier_arrive(empty[s], 0);
      mbarrier_arrive(empty[s], 1);
    }
  }
  for (i, j) in cmap on threadIdx.x {
    let gi = blockIdx.y * 16 + i;
    let gj = blockIdx.x * 32 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
  cluster_sync();  // no block exits while the other may still reach its barriers
}

// Four blocks along x share a 64-row tile: block r loads rows 16r.. and
// multicasts them to all four, then writes the rows its neighbour
// (r + 1) % 4 loaded. Each block's barrier expects the whole tile.
kernel cluster_rotate(X: f32[M, N] by tma, Y: f32[M, N]) implements twice2d
    grid(4 * cdiv(M, 64), cdiv(N, 32)) block(64) cluster(4, 1)
{
  shared tile: f32[4, 16, 32];
  shared bar: mbarrier[1];
  let rank = cluster_rank();
  let row0 = (blockIdx.x / 4) * 64;
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  cluster_sync();
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar[0], 64 * 32 * 4);
    tma_load(tile[rank], X[row0 + rank * 16, blockIdx.y * 32], bar[0], 15);
  }
  mbarrier_wait(bar[0], 0);
  let q = (rank + 1) % 4;
  for (r, c) in repeat(8, 1) * spatial(2, 32) on threadIdx.x {
    let i = row0 + q * 16 + r;
    let j = blockIdx.y * 32 + c;
    if (i < M && j < N) { Y[i, j] = tile[q, r, c] * 2.0; }
  }
  cluster_sync();
}

// Pairs of blocks meeting at cluster_sync, without mbarriers; the grid
// must be a whole number of clusters.
kernel pairs(X: f32[N], Y: f32[N]) implements plus1 grid(cdiv(N, 16)) block(16) cluster(2)
{
  shared s: f32[16];
  s[threadIdx.x] = X[blockIdx.x * 16 + threadIdx.x];
  cluster_sync();
  if (blockIdx.x * 16 + threadIdx.x < N) { Y[blockIdx.x * 16 + threadIdx.x] = s[threadIdx.x] + 1.0; }
}

// Block 1 passes a `sync`, then arrives on block 0's barrier, which block
// 0's thread 0 waits on before its own `sync`: valid on the GPU (one
// block's barrier is released while another block waits on an mbarrier).
// Threads that exited do not hold up a cluster_sync.
kernel arrive_after_sync(X: f32[N], Y: f32[N]) implements plus1 grid(2 * cdiv(N, 64)) block(32) cluster(2)
{
  shared bar: mbarrier[1];
  let rank = cluster_rank();
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) { mbarrier_wait(bar[0], 0); }
  sync;
  if (rank == 1 && threadIdx.x == 0) { mbarrier_arrive(bar[0], 0); }
  let i = blockIdx.x * 32 + threadIdx.x;
  if (i < N) { Y[i] = X[i] + 1.0; }
  if (threadIdx.x >= 16) { return; }
  cluster_sync();
}
