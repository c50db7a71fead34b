// Tensor-core matmul: f16 inputs, f32 accumulation, mma.sync m16n8k16.
// A block of 4 warps computes a 64 x 32 tile of C; warp w owns rows
// 16w .. 16w+15 and all 32 columns: a 16 x 32 fragment tile made of four
// 16 x 8 mma tiles, held in one register tensor. Each step of the k-loop
// stages a 64 x 16 tile of A and a 16 x 32 tile of B in shared memory;
// ldmatrix loads the A fragment (x4) and the four B fragments (x4.trans:
// B is row-major K x N), and one mma call does the four mma instructions.
// Padded rows (24 and 40 halves) keep ldmatrix rows 16-byte aligned and
// spread them over the banks. The fragment tensors are distributed by the
// hardware layouts of std.mma, which the compiler checks.

import std.nn;   // op matmul_f16
import std.mma;  // mma_a, mma_b, mma_c

kernel matmul_tensor_core(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    implements matmul_f16
    grid(cdiv(N, 32), cdiv(M, 64)) block(128)
{
  shared sa: f16[64, 24];
  shared sb: f16[16, 40];
  register a: f16[16, 16] by mma_a;
  register b: f16[16, 32] by repeat(1, 4) * mma_b;
  register c: f32[16, 32] by repeat(1, 4) * mma_c;
  for (i, j) in repeat(1, 4) * mma_c on lane_id { c[i, j] = 0.0; }
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
    ldmatrix(b, sb, 0, 0);
    mma(c, a, b, c);
    sync;
  }
  for (i, j) in repeat(1, 4) * mma_c on lane_id {
    let gi = blockIdx.y * 64 + warp_row + i;
    let gj = blockIdx.x * 32 + j;
    if (gi < M && gj < N) { C[gi, gj] = c[i, j]; }
  }
}
