// Fragment operands and ldmatrix under the checking modes: a run-time tile
// index past the tensor is an out-of-bounds register access (and the
// instruction then touches the tensor's first registers, never past it);
// an ldmatrix row that is not 16-byte aligned is reported (the hardware
// faults on it). -D V picks the fault.
// RUN: not %tmc run %s --shape M=32,N=8,K=16 -D V=0 --check-bounds -w 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %tmc run %s --shape M=32,N=8,K=16 -D V=1 --check-bounds -w | FileCheck %s --check-prefix=GOOD
// RUN: not %tmc run %s --shape M=32,N=8,K=16 -D V=2 --arg col=4 -w 2>&1 | FileCheck %s --check-prefix=ALIGN
// TILE: error: out-of-bounds write of 'a' in kernel 'k': element 16 is outside [0, 16)
// TILE-NEXT: ldmatrix(tile(a, 16, 16, t, 0), sa, t * 16, V == 2 ? col : 0);
// GOOD: result:     PASS
// ALIGN: error: misaligned ldmatrix in kernel 'k': the row of lane 0 is at shared-memory address 8, not a multiple of 16 (thread 0 of block (0, 0, 0))

import std.mma;

op matmul_h(A: f16[M, K], B: f16[K, N], col: i32) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

kernel k<V: int = 1>(A: f16[M, K], B: f16[K, N], col: i32, C: f32[M, N]) implements matmul_h grid(1) block(32) {
  shared sa: f16[48, 24];
  shared sb: f16[16, 16];
  register acc: f32[32, 8] by repeat(2, 1) * mma_c;
  register a: f16[32, 16] by repeat(2, 1) * mma_a;
  register b: f16[16, 8] by mma_b;
  for (i, j) in repeat(2, 1) * mma_c on lane_id { acc[i, j] = 0.0; }
  for (i, k) in repeat(32, 1) * spatial(1, 32) on lane_id { if (k < 16) { sa[i, k] = A[i, k]; } }
  for (k, j) in repeat(16, 1) * spatial(2, 16) on lane_id { if (k < 16 && j < 8) { sb[k, j] = B[k, j]; } }
  sync;
  // Run-time tile indices (not unrolled); V = 0 loads one tile too many.
  for t in range(M / 16 + (V == 0 ? 1 : 0)) {
    ldmatrix(tile(a, 16, 16, t, 0), sa, t * 16, V == 2 ? col : 0);
  }
  ldmatrix(b, sb, 0, 0);
  for t in range(M / 16) {
    mma(tile(acc, 16, 8, t, 0), tile(a, 16, 16, t, 0), b, tile(acc, 16, 8, t, 0));
  }
  for (i, j) in repeat(2, 1) * mma_c on lane_id { C[i, j] = acc[i, j]; }
}
