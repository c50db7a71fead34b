// std.matmul: matrix products on tensor cores (f16 and bf16 inputs, f32
// accumulation). 2 x WN warps each own a BM/2 x BN/WN fragment tile of the
// BM x BN block tile; a STAGES-deep pipeline of zero-filling cp_async
// copies stages BM x 16 tiles of A and 16 x BN tiles of B in shared
// memory, laid out so that ldmatrix and the copies are free of bank
// conflicts (an 8 x 8 matrix's eight 16-byte rows must fall in distinct
// bank groups): A's tile is swizzled, its two 16-byte chunks per row
// swapping every 4 rows (swizzle(1, 3, 3): bit 6 of the offset, row bit 2,
// flips bit 3, the chunk), which saves the 8 elements of padding per row
// that BM rows would cost; B's 16 rows are padded by 8 elements (256
// bytes a stage; swizzling both costs ptxas more registers than it
// has for the 64 x 64 warp tiles with 4 stages). ldmatrix x4 loads A,
// x4.trans loads B from its row-major K x N tile. Rows of A and B must be 16-byte aligned (K and N multiples
// of 8) for the 16-byte copies; M, N and K need not divide the tiles.
// The same main loop serves three kernels: f32 results written from the
// fragments (matmul_tc), T results through a shared tile as 16-byte rows
// (matmul_tc_t), and batches (bmm_tc, a block's batch is blockIdx.z).

import std.mma;  // mma_a, mma_b, mma_c
import std.nn;   // ops matmul, matmul_acc

op bmm_acc<T>(A: T[BS, M, K], B: T[BS, K, N]) -> f32[BS, M, N] {
  out[b, i, j] = sum(k < K) f32(A[b, i, k]) * f32(B[b, k, j]);
}

kernel matmul_tc<T: type in [f16, bf16], BM: int in [64, 128] = 128, BN: int in [64, 128, 256] = 128,
                 WN: int in [2, 4] = 2, STAGES: int in [2, 3, 4] = 3>(A: T[M, K], B: T[K, N], C: f32[M, N])
    implements matmul_acc
    // Each copy round covers the tile (2 * BM and 2 * BN chunks of 16
    // bytes for 64 * WN threads); a warp's accumulators fit in 128
    // registers (a 64 x 64 fragment tile); rows of A and B are whole
    // 16-byte chunks (a launch condition: the runtime refuses others).
    where 32 * WN <= BM, 32 * WN <= BN, BM * BN <= 8192 * WN, K % 8 == 0, N % 8 == 0
    grid(cdiv(N, BN), cdiv(M, BM)) block(64 * WN)
{
  shared sa: T[STAGES, BM, 16] swizzle(1, 3, 3);
  shared sb: T[STAGES, 16, BN + 8];
  register acc: f32[BM / 2, BN / WN] by repeat(BM / 32, BN / (8 * WN)) * mma_c;
  register a: T[BM / 2, 16] by repeat(BM / 32, 1) * mma_a;
  register b: T[16, BN / WN] by repeat(1, BN / (8 * WN)) * mma_b;
  for (i, j) in repeat(BM / 32, BN / (8 * WN)) * mma_c on lane_id { acc[i, j] = 0.0; }
  let wm = (warp_id / WN) * (BM / 2);
  let wn = (warp_id % WN) * (BN / WN);
  let kt_count = cdiv(K, 16);
  // Iteration kt loads k-tile kt + STAGES - 1 and computes k-tile kt.
  for kt in range(1 - STAGES, kt_count) {
    if (kt >= 0) { cp_async_wait(STAGES - 2); }  // k-tile kt has landed (this thread's copies)
    sync;  // ... everyone's; and the stage about to be refilled is no longer read
    let ld = kt + STAGES - 1;
    if (ld < kt_count) {
      let st = ld % STAGES;
      // Eight neighbouring lanes copy one 16-byte column chunk of eight rows.
      for (i, c) in repeat(BM / (32 * WN), 1) * spatial(4 * WN, 2) * spatial(8, 1) on threadIdx.x {
        let gi = blockIdx.y * BM + i;
        let gk = ld * 16 + c * 8;
        cp_async(sa[st][i, c * 8], A[gi, gk], 16, gi < M ? (K - gk) * 2 : 0);
      }
      for (k, c) in repeat(BN / (32 * WN), 1) * spatial(512 * WN / BN, BN / 8) on threadIdx.x {
        let gk = ld * 16 + k;
        let gj = blockIdx.x * BN + c * 8;
        cp_async(sb[st][k, c * 8], B[gk, gj], 16, gk < K ? (N - gj) * 2 : 0);
      }
    }
    cp_async_commit();
    if (kt >= 0) {
      ldmatrix(a, sa[kt % STAGES], wm, 0);
      ldmatrix(b, sb[kt % STAGES], 0, wn);
      mma(acc, a, b, acc);
    }
  }
  for (i, j) in repeat(BM / 32, BN / (8 * WN)) * mma_c on lane_id {
    let gi = blockIdx.y * BM + wm + i;
    let gj = blockIdx.x * BN + wn + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}

// T results: the accumulators, rounded to T, go through a shared BM x BN
// tile (rows padded by 8 elements: the fragment writes are free of bank
// conflicts), from which each thread writes 8 consecutive elements of a
// row of C as one 16-byte store.
kernel matmul_tc_t<T: type in [f16, bf16], BM: int in [64, 128] = 128, BN: int in [64, 128, 256] = 128,
                 WN: int in [2, 4] = 2, STAGES: int in [2, 3, 4] = 3>(A: T[M, K], B: T[K, N], C: T[M, N])
    implements matmul
    // Each copy round covers the tile (2 * BM and 2 * BN chunks of 16
    // bytes for 64 * WN threads); a warp's accumulators fit in 128
    // registers (a 64 x 64 fragment tile); rows of A and B are whole
    // 16-byte chunks (a launch condition: the runtime refuses others).
    where 32 * WN <= BM, 32 * WN <= BN, BM * BN <= 8192 * WN, K % 8 == 0, N % 8 == 0
    grid(cdiv(N, BN), cdiv(M, BM)) block(64 * WN)
{
  shared so: T[BM, BN + 8];
  shared sa: T[STAGES, BM, 16] swizzle(1, 3, 3);
  shared sb: T[STAGES, 16, BN + 8];
  register acc: f32[BM / 2, BN / WN] by repeat(BM / 32, BN / (8 * WN)) * mma_c;
  register a: T[BM / 2, 16] by repeat(BM / 32, 1) * mma_a;
  register b: T[16, BN / WN] by repeat(1, BN / (8 * WN)) * mma_b;
  for (i, j) in repeat(BM / 32, BN / (8 * WN)) * mma_c on lane_id { acc[i, j] = 0.0; }
  let wm = (warp_id / WN) * (BM / 2);
  let wn = (warp_id % WN) * (BN / WN);
  let kt_count = cdiv(K, 16);
  // Iteration kt loads k-tile kt + STAGES - 1 and computes k-tile kt.
  for kt in range(1 - STAGES, kt_count) {
    if (kt >= 0) { cp_async_wait(STAGES - 2); }  // k-tile kt has landed (this thread's copies)
    sync;  // ... everyone's; and the stage about to be refilled is no longer read
    let ld = kt + STAGES - 1;
    if (ld < kt_count) {
      let st = ld % STAGES;
      // Eight neighbouring lanes copy one 16-byte column chunk of eight rows.
      for (i, c) in repeat(BM / (32 * WN), 1) * spatial(4 * WN, 2) * spatial(8, 1) on threadIdx.x {
        let gi = blockIdx.y * BM + i;
        let gk = ld * 16 + c * 8;
        cp_async(sa[st][i, c * 8], A[gi, gk], 16, gi < M ? (K - gk) * 2 : 0);
      }
      for (k, c) in repeat(BN / (32 * WN), 1) * spatial(512 * WN / BN, BN / 8) on threadIdx.x {
        let gk = ld * 16 + k;
        let gj = blockIdx.x * BN + c * 8;
        cp_async(sb[st][k, c * 8], B[gk, gj], 16, gk < K ? (N - gj) * 2 : 0);
      }
    }
    cp_async_commit();
    if (kt >= 0) {
      ldmatrix(a, sa[kt % STAGES], wm, 0);
      ldmatrix(b, sb[kt % STAGES], 0, wn);
      mma(acc, a, b, acc);
    }
  }
  for (i, j) in repeat(BM / 32, BN / (8 * WN)) * mma_c on lane_id { so[wm + i, wn + j] = T(acc[i, j]); }
  sync;
  for (i, j) in repeat(BM * BN / (512 * WN), 1) * spatial(512 * WN / BN, BN / 8) * repeat(1, 8) on threadIdx.x {
    let gi = blockIdx.y * BM + i;
    let gj = blockIdx.x * BN + j;
    if (gi < M && gj < N) { C[gi, gj] = so[i, j]; }
  }
}

// Batches: block z multiplies A[z] by B[z] (views of the batch's matrices).
kernel bmm_tc<T: type in [f16, bf16], BM: int in [64, 128] = 128, BN: int in [64, 128, 256] = 128,
                 WN: int in [2, 4] = 2, STAGES: int in [2, 3, 4] = 3>(A: T[BS, M, K], B: T[BS, K, N], C: f32[BS, M, N])
    implements bmm_acc
    // Each copy round covers the tile (2 * BM and 2 * BN chunks of 16
    // bytes for 64 * WN threads); a warp's accumulators fit in 128
    // registers (a 64 x 64 fragment tile); rows of A and B are whole
    // 16-byte chunks (a launch condition: the runtime refuses others).
    where 32 * WN <= BM, 32 * WN <= BN, BM * BN <= 8192 * WN, K % 8 == 0, N % 8 == 0
    grid(cdiv(N, BN), cdiv(M, BM), BS) block(64 * WN)
{
  let Az = A[blockIdx.z];
  let Bz = B[blockIdx.z];
  let Cz = C[blockIdx.z];
  shared sa: T[STAGES, BM, 16] swizzle(1, 3, 3);
  shared sb: T[STAGES, 16, BN + 8];
  register acc: f32[BM / 2, BN / WN] by repeat(BM / 32, BN / (8 * WN)) * mma_c;
  register a: T[BM / 2, 16] by repeat(BM / 32, 1) * mma_a;
  register b: T[16, BN / WN] by repeat(1, BN / (8 * WN)) * mma_b;
  for (i, j) in repeat(BM / 32, BN / (8 * WN)) * mma_c on lane_id { acc[i, j] = 0.0; }
  let wm = (warp_id / WN) * (BM / 2);
  let wn = (warp_id % WN) * (BN / WN);
  let kt_count = cdiv(K, 16);
  // Iteration kt loads k-tile kt + STAGES - 1 and computes k-tile kt.
  for kt in range(1 - STAGES, kt_count) {
    if (kt >= 0) { cp_async_wait(STAGES - 2); }  // k-tile kt has landed (this thread's copies)
    sync;  // ... everyone's; and the stage about to be refilled is no longer read
    let ld = kt + STAGES - 1;
    if (ld < kt_count) {
      let st = ld % STAGES;
      // Eight neighbouring lanes copy one 16-byte column chunk of eight rows.
      for (i, c) in repeat(BM / (32 * WN), 1) * spatial(4 * WN, 2) * spatial(8, 1) on threadIdx.x {
        let gi = blockIdx.y * BM + i;
        let gk = ld * 16 + c * 8;
        cp_async(sa[st][i, c * 8], Az[gi, gk], 16, gi < M ? (K - gk) * 2 : 0);
      }
      for (k, c) in repeat(BN / (32 * WN), 1) * spatial(512 * WN / BN, BN / 8) on threadIdx.x {
        let gk = ld * 16 + k;
        let gj = blockIdx.x * BN + c * 8;
        cp_async(sb[st][k, c * 8], Bz[gk, gj], 16, gk < K ? (N - gj) * 2 : 0);
      }
    }
    cp_async_commit();
    if (kt >= 0) {
      ldmatrix(a, sa[kt % STAGES], wm, 0);
      ldmatrix(b, sb[kt % STAGES], 0, wn);
      mma(acc, a, b, acc);
    }
  }
  for (i, j) in repeat(BM / 32, BN / (8 * WN)) * mma_c on lane_id {
    let gi = blockIdx.y * BM + wm + i;
    let gj = blockIdx.x * BN + wn + j;
    if (gi < M && gj < N) { Cz[gi, gj] = acc[i, j]; }
  }
}

// SIMT f32: 256 threads as spatial(16, 16), each a (BM/16) x (BN/16)
// register tile; A and B staged in shared memory BK columns at a time
// (the example examples/matmul_simt.tm, explained there).
kernel matmul_simt<BM: int in [64, 128], BN: int in [64, 128], BK: int in [8, 16]>
    (A: f32[M, K], B: f32[K, N], C: f32[M, N])
    implements matmul
    where BM * BK % 256 == 0, BK * BN % 256 == 0
    grid(cdiv(N, BN), cdiv(M, BM)) block(256)
{
  shared sa: f32[BM, BK];
  shared sb: f32[BK, BN];
  let cmap = spatial(16, 16) * repeat(BM / 16, BN / 16);
  register acc: f32[BM, BN] by cmap;
  for (i, j) in cmap on threadIdx.x {
    acc[i, j] = 0.0;
  }
  for k0 in range(cdiv(K, BK)) {
    // Stage the A and B tiles; out-of-range elements read as zero.
    for (i, k) in repeat(BM * BK / 256, 1) * spatial(256 / BK, BK) on threadIdx.x {
      let gi = blockIdx.y * BM + i;
      let gk = k0 * BK + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;
    }
    for (k, j) in repeat(BK * BN / 256, 1) * spatial(256 / BN, BN) on threadIdx.x {
      let gk = k0 * BK + k;
      let gj = blockIdx.x * BN + j;
      sb[k, j] = (gk < K && gj < N) ? B[gk, gj] : 0.0;
    }
    sync;
    // k outermost: each step is an outer product of a column of sa and a
    // row of sb, so only BM/16 + BN/16 loaded values are live at a time.
    for k in unroll(BK) {
      for (i, j) in cmap on threadIdx.x {
        acc[i, j] += sa[i, k] * sb[k, j];
      }
    }
    sync;
  }
  for (i, j) in cmap on threadIdx.x {
    let gi = blockIdx.y * BM + i;
    let gj = blockIdx.x * BN + j;
    if (gi < M && gj < N) {
      C[gi, gj] = acc[i, j];  // the epilogue fusion point
    }
  }
}
