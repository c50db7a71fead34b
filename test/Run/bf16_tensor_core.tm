// The tensor-core matmul with bf16 inputs: mma.sync .bf16 on the GPU,
// emulated with bf16 inputs and f32 accumulation on the CPU.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --shape M=127,N=129,K=70 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --emit=ptx | %ptxas-verify --no-spills sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify --no-spills sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/k.cu && %nvcc -arch=sm_80 %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CUDA: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

import std.mma;  // mma_a, mma_b, mma_c

op matmul_bf16(A: bf16[M, K], B: bf16[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

kernel matmul_tensor_core_bf16(A: bf16[M, K], B: bf16[K, N], C: f32[M, N])
    implements matmul_bf16
    grid(cdiv(N, 32), cdiv(M, 64)) block(128)
{
  shared sa: bf16[64, 24];
  shared sb: bf16[16, 32];
  register a: bf16[16, 16] by mma_a;
  register b0: bf16[16, 8] by mma_b;
  register b1: bf16[16, 8] by mma_b;
  register b2: bf16[16, 8] by mma_b;
  register b3: bf16[16, 8] by mma_b;
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
