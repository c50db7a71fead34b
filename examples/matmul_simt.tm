// SIMT f32 matrix multiplication. Each block computes a BM x BN tile of C
// with 256 threads arranged as spatial(16, 16); each thread accumulates a
// (BM/16) x (BN/16) sub-tile in registers (the distributed tensor `acc`).
// A and B tiles are staged through shared memory, BK columns at a time.

import std.nn;  // op matmul

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
