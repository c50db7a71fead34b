// Tensor-core matmul: f16 inputs, f32 accumulation, mma.sync m16n8k16.
// A block of 4 warps computes a 64 x 32 tile of C; warp w owns rows
// 16w .. 16w+15 and all 32 columns, as four 16 x 8 mma tiles. Each step
// of the k-loop stages a 64 x 16 tile of A and a 16 x 32 tile of B in
// shared memory; the A fragment is loaded with ldmatrix (a padded row of
// 24 halves keeps each row 16-byte aligned and spreads rows over banks),
// the B fragments element by element. The fragment tensors are distributed
// by the hardware layouts of std.mma, which the compiler checks.

import std.nn;   // op matmul_f16
import std.mma;  // mma_a, mma_b, mma_c

kernel matmul_tensor_core(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    implements matmul_f16
    grid(cdiv(N, 32), cdiv(M, 64)) block(128)
{
  shared sa: f16[64, 24];
  shared sb: f16[16, 32];
  register a: f16[16, 16] by mma_a;
  register b0: f16[16, 8] by mma_b;
  register b1: f16[16, 8] by mma_b;
  register b2: f16[16, 8] by mma_b;
  register b3: f16[16, 8] by mma_b;
  register c0: f32[16, 8] by mma_c;
  register c1: f32[16, 8] by mma_c;
  register c2: f32[16, 8] by mma_c;
  register c3: f32[16, 8] by mma_c;
  for (i, j) in mma_c on lane_id {
    c0[i, j] = 0.0;
    c1[i, j] = 0.0;
    c2[i, j] = 0.0;
    c3[i, j] = 0.0;
  }
  let warp_row = warp_id * 16;
  for k0 in range(cdiv(K, 16)) {
    // 64 x 16 halves of A: eight per thread; out of range reads as zero.
    for (i, k) in repeat(8, 1) * spatial(8, 16) on threadIdx.x {
      let gi = blockIdx.y * 64 + i;
      let gk = k0 * 16 + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;
    }
    // 16 x 32 halves of B: four per thread.
    for (k, j) in repeat(4, 1) * spatial(4, 32) on threadIdx.x {
      let gk = k0 * 16 + k;
      let gj = blockIdx.x * 32 + j;
      sb[k, j] = (gk < K && gj < N) ? B[gk, gj] : 0.0;
    }
    sync;
    ldmatrix(a, sa, warp_row, 0);
    for (k, n) in mma_b on lane_id {
      b0[k, n] = sb[k, n];
      b1[k, n] = sb[k, n + 8];
      b2[k, n] = sb[k, n + 16];
      b3[k, n] = sb[k, n + 24];
    }
    mma(c0, a, b0, c0);
    mma(c1, a, b1, c1);
    mma(c2, a, b2, c2);
    mma(c3, a, b3, c3);
    sync;
  }
  for (i, j) in mma_c on lane_id {
    let gi = blockIdx.y * 64 + warp_row + i;
    let gj = blockIdx.x * 32 + j;
    if (gi < M) {
      if (gj < N) { C[gi, gj] = c0[i, j]; }
      if (gj + 8 < N) { C[gi, gj + 8] = c1[i, j]; }
      if (gj + 16 < N) { C[gi, gj + 16] = c2[i, j]; }
      if (gj + 24 < N) { C[gi, gj + 24] = c3[i, j]; }
    }
  }
}
