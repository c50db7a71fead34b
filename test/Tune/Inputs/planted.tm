// Kernels with planted faults for the tuner's tests.

import std.nn;  // op matmul

// The SIMT matmul of examples/ with a 256 x 256 tile among its candidates:
// 256 accumulators per thread, more than the 255 registers a thread may
// have: the register tensor stays in local memory (ptxas reports a stack
// frame, which is what spilling it would cost) and the tuner drops it.
kernel matmul_big<BM: int in [64, 256], BN: int in [64, 256], BK: int in [8]>
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
      C[gi, gj] = acc[i, j];
    }
  }
}

op add(X: f32[N], Y: f32[N]) -> f32[N] {
  out[i] = X[i] + Y[i];
}

// V = 2 adds 0.5 too much: a wrong candidate that the CPU check rejects.
// TILE = 512 is excluded by `where` for V = 2.
kernel add_planted<TILE: int in [256, 512, 1024], V: int in [1, 2]>
    (X: f32[N], Y: f32[N], Z: f32[N])
    implements add
    where TILE % 256 == 0, V == 1 || TILE != 512
    grid(cdiv(N, TILE)) block(256)
{
  for i in repeat(TILE / 256) * spatial(256) on threadIdx.x {
    let gi = blockIdx.x * TILE + i;
    if (gi < N) {
      Z[gi] = X[gi] + Y[gi] + f32(V - 1) * 0.5;
    }
  }
}
