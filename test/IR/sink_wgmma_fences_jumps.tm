// sink-wgmma-fences does not step over a break, continue or return: a
// break between the fence and the if leaves both where they are, so the
// path that breaks keeps its fence, which the wgmma after the loop relies
// on (tmc run's fence check would report it otherwise). (ptxas inserts an
// arrive for that wgmma, whose fence is in another block: not
// --wgmma-clean.)
// RUN: %tmc %s -I %stdlib --emit=ir --arch=sm_90a | FileCheck %s
// RUN: %tmc run %s -I %stdlib --arch=sm_90a --kernel fenced_then_break --shape M=64,N=64,K=128 --check-bounds | FileCheck %s --check-prefix=RESULT
// RESULT: result: PASS

import std.nn;
import std.wgmma;

// The K-steps but the last in the loop, the last after it.
kernel fenced_then_break(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements matmul_acc
    where M == 64, N == 64, K == 128
    grid(1) block(128)
{
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register ra: f16[64, 64] by repeat(1, 4) * wgmma_a;
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { acc[i, j] = 0.0; }
  for kt in range(3) {
    if (kt < 2) {
      for (k, j) in repeat(32, 1) * spatial(2, 64) on threadIdx.x { sb[k, j] = B[kt * 64 + k, j]; }
      for (i, k) in repeat(1, 4) * wgmma_a on threadIdx.x { ra[i, k] = A[i, kt * 64 + k]; }
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    if (kt == 1) { break; }
    if (kt == 0) { wgmma(acc, ra, sb); } else { wgmma(acc, ra, sb, true); }
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  wgmma(acc, ra, sb);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
}
// CHECK-LABEL: kernel fenced_then_break(
// CHECK: wgmma_fence()
// CHECK-NEXT: if (kt == 1) {
