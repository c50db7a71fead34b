// Functions take views of global tensors and register fragments (`by`),
// and a function without a result is called as a statement.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --kernel fragment_funcs --shape M=40,N=24,K=50 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel fragment_funcs --shape M=16,N=16,K=16 --seed 4 | FileCheck %s
// RUN: %tmc run %s --kernel view_funcs --shape R=50,C=7 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel shared_funcs --shape N=150 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel shared_funcs --shape N=64 --seed 3 | FileCheck %s
// RUN: %tmc %s --emit=ptx | %ptxas-verify --no-spills sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify --no-spills sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/k.cu && %nvcc -arch=sm_80 %t/k.cu -o %t/k.o
// CHECK: unwritten:  0 of
// CHECK: result:     PASS

import std.mma;

op matmul_h(A: f16[M, K], B: f16[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

// Fragments passed to functions: a 16 x 16 C tile and its zeroing.
func zero(acc: f32[16, 16] by repeat(1, 2) * mma_c) {
  for (i, j) in repeat(1, 2) * mma_c on lane_id { acc[i, j] = 0.0; }
}
func step(acc: f32[16, 16] by repeat(1, 2) * mma_c, a: f16[16, 16] by mma_a, b: f16[16, 16] by repeat(1, 2) * mma_b) {
  mma(acc, a, b, acc);
}


kernel fragment_funcs(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements matmul_h grid(cdiv(N, 16), cdiv(M, 16)) block(32) {
  shared sa: f16[2, 16, 24];
  shared sb: f16[2, 16, 24];
  register acc: f32[16, 16] by repeat(1, 2) * mma_c;
  register a: f16[16, 16] by mma_a;
  register b: f16[16, 16] by repeat(1, 2) * mma_b;
  zero(acc);
  for k0 in range(cdiv(K, 16)) {
    let st = k0 % 2;
    for (i, k) in repeat(16, 1) * spatial(2, 16) on lane_id {
      if (i < 16) {
      let gi = blockIdx.y * 16 + i;
      let gk = k0 * 16 + k;
      sa[st][i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;
      let gj = blockIdx.x * 16 + k;
      let gk2 = k0 * 16 + i;
      sb[st][i, k] = (gk2 < K && gj < N) ? B[gk2, gj] : 0.0;
      }
    }
    sync;
    ldmatrix(a, sa[st], 0, 0);
    ldmatrix(b, sb[st], 0, 0);
    step(acc, a, b);
  }
  for (i, j) in repeat(1, 2) * mma_c on lane_id {
    let gi = blockIdx.y * 16 + i;
    let gj = blockIdx.x * 16 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}

op rowsum(X: f32[R, C]) -> f32[R] { out[r] = sum(c < C) X[r, c]; }
func total(x: f32[C]) -> f32 {
  var s: f32 = 0.0;
  for c in range(C) { s += x[c]; }
  return s;
}
func put(y: f32[R], r: i32, v: f32) { y[r] = zz_identity(v); }
// Called before it is defined, and after it in alphabetical order: the
// CUDA C declares every function before the bodies.
func zz_identity(v: f32) -> f32 { return v; }
kernel view_funcs(X: f32[R, C], Y: f32[R]) implements rowsum grid(cdiv(R, 32)) block(32) {
  let r = blockIdx.x * 32 + threadIdx.x;
  if (r < R) { put(Y, r, total(X[r])); }
}

// Shared tensors pass to 'shared' parameters (here a view of a stage),
// where cp_async and the other shared-memory built-ins work as in kernels.
op twice(X: f32[N]) -> f32[N] { out[i] = X[i] * 2.0; }
func load_row(s: shared f32[64], X: f32[N], base: i32) {
  for c in repeat(2) * spatial(32) on lane_id {
    let g = base + c;
    cp_async(s[c], X[g], 4, g < N);
  }
  cp_async_commit();
  cp_async_wait(0);
}
kernel shared_funcs(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 64)) block(32) {
  shared s: f32[2, 64];
  load_row(s[1], X, blockIdx.x * 64);
  sync;
  for c in repeat(2) * spatial(32) on lane_id {
    let g = blockIdx.x * 64 + c;
    if (g < N) { Y[g] = s[1][c] * 2.0; }
  }
}
