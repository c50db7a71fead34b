// std.hopper: kernels for Hopper (--arch=sm_90a). matmul_wgmma: f16 or bf16 inputs, f32
// accumulation, wgmma.mma_async m64nNk16 with both operands in shared
// memory. A block of two warpgroups (256 threads) computes a 128 x BN tile
// of C; warpgroup g owns rows 64g .. 64g + 63, a 64 x BN accumulator of
// std.wgmma fragments (BN / 2 registers per thread). Each k-step stages a
// 128 x 64 tile of A and a 64 x BN tile of B in a STAGES-deep pipeline of
// zero-filling cp_async copies; both tiles use the hardware's 128-byte
// swizzle (rows of 64 halves, swizzle(3, 3, 3)): A K-major as two 64-row
// halves, B MN-major as BN / 64 groups of 64 columns. The compiler builds
// wgmma's matrix descriptors from these layouts; the CPU executor (tmc
// run --arch=sm_90a) reads the tiles through the same descriptors.
// matmul_tma (below) computes the same with TMA copies, mbarriers and a
// producer/consumer split of the block.

import std.nn;     // op matmul_acc
import std.wgmma;  // wgmma_c

kernel matmul_wgmma<T: type in [f16, bf16] = f16, BN: int in [64, 128, 256] = 128, STAGES: int in [2, 3, 4] = 3>(
    A: T[M, K], B: T[K, N], C: f32[M, N])
    implements matmul_acc
    // Rows of A and B are whole 16-byte chunks (a launch condition).
    where K % 8 == 0, N % 8 == 0
    grid(cdiv(N, BN), cdiv(M, 128)) block(256)
{
  shared sa: T[STAGES, 2, 64, 64] swizzle(3, 3, 3);        // 16 KiB a stage
  shared sb: T[STAGES, BN / 64, 64, 64] swizzle(3, 3, 3);  // BN / 8 KiB a stage
  register acc: f32[64, BN] by repeat(1, BN / 8) * wgmma_c;
  let wg = threadIdx.x / 128;
  let kt_count = cdiv(K, 64);
  // Iteration kt loads k-tile kt + STAGES - 1 and multiplies k-tile kt.
  for kt in range(1 - STAGES, kt_count) {
    if (kt >= 0) { cp_async_wait(STAGES - 2); }  // k-tile kt has landed (this thread's copies)
    fence_proxy_async();  // ... visible to wgmma's (asynchronous) reads
    sync;  // ... everyone's; and the stage about to be refilled is no longer read
    if (kt >= 0) {
      wgmma_fence();
      wgmma(acc, sa[kt % STAGES, wg], sb[kt % STAGES], kt > 0);  // k-tile 0 overwrites acc
      wgmma_commit();
    }
    let ld = kt + STAGES - 1;
    if (ld < kt_count) {
      let st = ld % STAGES;
      // 128 rows of A, eight 16-byte chunks each: four chunks per thread.
      for (i, c) in repeat(4, 1) * spatial(32, 8) on threadIdx.x {
        let gi = blockIdx.y * 128 + i;
        let gk = ld * 64 + c * 8;
        cp_async(sa[st, i / 64, i % 64, c * 8], A[gi, gk], 16, gi < M ? (K - gk) * 2 : 0);
      }
      // 64 rows of B, BN / 8 chunks each.
      for (k, c) in repeat(BN / 32, 1) * spatial(2048 / BN, BN / 8) on threadIdx.x {
        let gk = ld * 64 + k;
        let gj = blockIdx.x * BN + c * 8;
        cp_async(sb[st, c / 8, k, (c % 8) * 8], B[gk, gj], 16, gk < K ? (N - gj) * 2 : 0);
      }
    }
    cp_async_commit();
    wgmma_wait(0);  // k-tile kt is multiplied: its stage may be refilled
  }
  for (i, j) in repeat(1, BN / 8) * wgmma_c on threadIdx.x % 128 {
    let gi = blockIdx.y * 128 + wg * 64 + i;
    let gj = blockIdx.x * BN + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}

// matmul_tma: the same product, fed by the Tensor Memory Accelerator,
// warp-specialized and persistent. A and B reach the kernel as TMA tensor
// maps (boxes of 64 x 64 with the 128-byte swizzle, the layout wgmma
// reads). A block of three warpgroups: one thread of warpgroup 0 (the
// producer) issues the copies of each k-tile into a STAGES-deep ring,
// announcing their bytes on the stage's `full` mbarrier; warpgroups 1 and
// 2 (the consumers, 64 rows of the 128 x BN tile each) wait on `full`,
// issue wgmma with one group left in flight, and release the stage read
// by the previous one on its `empty` mbarrier (256 arrivals), which the
// producer waits on before refilling it. The grid is at most SMS blocks
// (the GPU's SM count: 132 on H100 and H200), each taking tiles
// blockIdx.x, blockIdx.x + gridDim.x, ...: the producer goes on loading
// the next tile while the consumers store this one. A k-iteration counter
// `it` runs across tiles, so stage `it % STAGES` is in its use
// `it / STAGES` (the parity its barriers wait for). Edges need no guard:
// TMA zero-fills loaded boxes that cross the matrices' ends and clips
// stored ones. The producer warpgroup gives its registers to the
// consumers (setmaxnreg 40 / 232). The epilogue goes through shared
// memory: each consumer warpgroup writes 64 columns of its rows at a time
// into its tile of `cs` and one of its threads stores the tile with TMA,
// the warpgroup meeting at its own mbarrier (`epi`, 128 arrivals) before
// and after the writes. With CM = 2, blocks pair up in thread-block clusters on two tiles of
// one column of C (rows m0 and m0 + 128 of the same B columns): each
// block's producer loads its A tile and half of the B boxes, multicast to
// both blocks, so B is read from memory once per pair. A stage is then
// refilled only when both blocks' consumers released it (`empty` counts
// 256 arrivals of each block, which arrive on each other's); the blocks
// take the same sequence of tile pairs, so their phases stay in step.
kernel matmul_tma<T: type in [f16, bf16] = f16, BN: int in [64, 128, 256] = 128, STAGES: int in [2, 3, 4, 5] = 4,
                  SMS: int = 132, CM: int in [1, 2] = 1>(
    A: T[M, K] by tma, B: T[K, N] by tma, C: f32[M, N] by tma)
    implements matmul_acc
    // Rows of A, B and C are whole 16-byte pieces (TMA; a launch
    // condition); the stages and the epilogue tiles fit in shared memory.
    where K % 8 == 0, N % 8 == 0, (128 + BN) * 128 * STAGES + 32 * 1024 <= 224 * 1024, SMS >= CM
    grid(CM * min(SMS / CM, cdiv(cdiv(M, 128), CM) * cdiv(N, BN))) block(384) cluster(CM)
{
  shared sa: T[STAGES, 2, 64, 64] swizzle(3, 3, 3);
  shared sb: T[STAGES, BN / 64, 64, 64] swizzle(3, 3, 3);
  shared cs: f32[2, 64, 64];  // each consumer warpgroup's epilogue tile
  shared full: mbarrier[STAGES];
  shared empty: mbarrier[STAGES];
  shared epi: mbarrier[2];  // each consumer warpgroup's barrier (128 threads)
  if (threadIdx.x < STAGES) {
    mbarrier_init(full[threadIdx.x], 1);
    mbarrier_init(empty[threadIdx.x], 256 * CM);
  }
  if (threadIdx.x < 2) { mbarrier_init(epi[threadIdx.x], 128); }
  if (CM > 1) { cluster_sync(); } else { sync; }  // the other block's copies and arrivals come after its inits
  let rank = cluster_rank();
  let tiles_n = cdiv(N, BN);
  let groups = cdiv(cdiv(M, 128), CM) * tiles_n;  // CM tiles on one column of C each
  let kt_count = cdiv(K, 64);
  let wg = threadIdx.x / 128;
  if (wg == 0) {
    // The producer: one thread issues every copy (the others have nothing
    // to do); its warpgroup gives its registers to the consumers.
    setmaxnreg_dec(40);
    if (threadIdx.x == 0) {
      var it = 0;
      for group in range(blockIdx.x / CM, groups, gridDim.x / CM) {
        let m0 = ((group / tiles_n) * CM + rank) * 128;
        let n0 = (group % tiles_n) * BN;
        for kt in range(kt_count) {
          let st = it % STAGES;
          let use = it / STAGES;
          if (use > 0) { mbarrier_wait(empty[st], (use - 1) % 2); }  // its previous k-tile was read
          mbarrier_arrive_expect_tx(full[st], (128 + BN) * 64 * 2);  // the bytes of the copies below
          tma_load(sa[st, 0], A[m0, kt * 64], full[st]);
          tma_load(sa[st, 1], A[m0 + 64, kt * 64], full[st]);
          for g in range(BN / 64) {
            if (CM == 1) {
              tma_load(sb[st, g], B[kt * 64, n0 + g * 64], full[st]);
            } else if (g % CM == rank) {  // this block's share of B, to the whole cluster
              tma_load(sb[st, g], B[kt * 64, n0 + g * 64], full[st], (1 << CM) - 1);
            }
          }
          it += 1;
        }
      }
    }
  } else {
    // The consumers: warpgroup 1 + half computes rows 64 * half .. of the tile.
    setmaxnreg_inc(232);
    let half = wg - 1;
    register acc: f32[64, BN] by repeat(1, BN / 8) * wgmma_c;
    let lead = threadIdx.x % 128 == 0;  // issues the warpgroup's TMA stores
    var it = 0;
    var epi_uses = 0;
    for group in range(blockIdx.x / CM, groups, gridDim.x / CM) {
      let m0 = ((group / tiles_n) * CM + rank) * 128;
      let n0 = (group % tiles_n) * BN;
      for kt in range(kt_count) {
        let st = it % STAGES;
        mbarrier_wait(full[st], (it / STAGES) % 2);
        wgmma_fence();
        wgmma(acc, sa[st, half], sb[st], kt > 0);
        wgmma_commit();
        wgmma_wait(1);  // the previous k-tile's wgmma is done: release its stage
        if (kt > 0) {
          let prev = (it + STAGES - 1) % STAGES;
          if (CM == 1) { mbarrier_arrive(empty[prev]); } else { for r in range(CM) { mbarrier_arrive(empty[prev], r); } }
        }
        it += 1;
      }
      wgmma_wait(0);
      let last = (it + STAGES - 1) % STAGES;
      if (CM == 1) { mbarrier_arrive(empty[last]); } else { for r in range(CM) { mbarrier_arrive(empty[last], r); } }
      // The epilogue through shared memory: 64 columns of the warpgroup's
      // rows at a time into its tile of cs, stored by one thread with TMA
      // (clipped at C's edges), while the producer loads the next tile.
      for c in unroll(BN / 64) {
        if (lead) { tma_store_wait(0); }  // the previous store has read cs[half]
        mbarrier_arrive(epi[half]);
        mbarrier_wait(epi[half], epi_uses % 2);
        epi_uses += 1;
        for (i, j) in repeat(1, BN / 8) * wgmma_c on threadIdx.x % 128 {
          if (j / 64 == c) { cs[half, i, j % 64] = acc[i, j]; }
        }
        fence_proxy_async();  // the tile's writes, visible to the TMA unit
        mbarrier_arrive(epi[half]);
        mbarrier_wait(epi[half], epi_uses % 2);
        epi_uses += 1;
        if (lead) {
          tma_store(C[m0 + half * 64, n0 + c * 64], cs[half]);
          tma_store_commit();
        }
      }
    }
    if (lead) { tma_store_wait(0); }
  }
  if (CM > 1) { cluster_sync(); }  // no block exits while the other may still reach its barriers
}
