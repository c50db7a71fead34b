// sink-wgmma-fences: a wgmma_fence before an if that issues wgmmas and the
// wgmma_commit after it move into each branch, so that ptxas sees each
// wgmma with its fence and commit in one basic block; otherwise it
// serializes them with a warpgroup arrive of its own (C7519, which
// --wgmma-clean fails on). Both kernels also run on the CPU executor, at
// shapes that divide no tile.
// REQUIRES: ptxas
// RUN: %tmc %s -I %stdlib --emit=ir --arch=sm_90a | FileCheck %s
// RUN: %tmc %s -I %stdlib --emit=ptx --arch=sm_90a | %ptxas-verify --no-spills --wgmma-clean sm_90a
// The pass by name, and its effect alone.
// RUN: %tmc %s -I %stdlib --emit=ir --arch=sm_90a --kernel first_step --print-after=sink-wgmma-fences -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: %tmc run %s -I %stdlib --arch=sm_90a --kernel first_step --shape M=70,N=72,K=100 --check-races | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s -I %stdlib --arch=sm_90a --kernel nested --shape M=64,N=40,K=70 --check-races | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s -I %stdlib --arch=sm_90a --kernel with_lets --shape M=70,N=40,K=130 --check-races | FileCheck %s --check-prefix=RESULT
// RESULT: (0 of {{[0-9]+}} compared elements outside
// RESULT: result: PASS

import std.nn;
import std.wgmma;

// The first k-step sets the accumulator, the others add to it: one wgmma
// call site per branch, A from registers.
kernel first_step(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements matmul_acc
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register ra: f16[64, 64] by repeat(1, 4) * wgmma_a;
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  let m0 = blockIdx.y * 64;
  let n0 = blockIdx.x * 64;
  for kt in range(cdiv(K, 64)) {
    for (k, j) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gk = kt * 64 + k;
      let gj = n0 + j;
      sb[k, j] = (gk < K && gj < N) ? B[gk, gj] : f16(0.0);
    }
    for (i, k) in repeat(1, 4) * wgmma_a on threadIdx.x {
      let gi = m0 + i;
      let gk = kt * 64 + k;
      ra[i, k] = (gi < M && gk < K) ? A[gi, gk] : f16(0.0);
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    if (kt == 0) { wgmma(acc, ra, sb, false); } else { wgmma(acc, ra, sb); }
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x {
    let gi = m0 + i;
    let gj = n0 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}
// CHECK-LABEL: kernel first_step(
// CHECK: if (kt == 0) {
// CHECK-NEXT: wgmma_fence()
// CHECK: wgmma.m64nNk16(acc, ra, {{.*}}, false,
// CHECK: wgmma_commit()
// CHECK-NEXT: } else {
// CHECK-NEXT: wgmma_fence()
// CHECK: wgmma.m64nNk16(acc, ra,
// CHECK: wgmma_commit()
// CHECK-NEXT: }
// CHECK-NEXT: wgmma_wait(0)
// AFTER: IR after sink-wgmma-fences
// AFTER: if (kt == 0) {
// AFTER-NEXT: wgmma_fence()

// An if in a branch, and a branch without wgmma (no else): each path has
// its fence and commit; the one that issues nothing commits an empty group.
kernel nested(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements matmul_acc
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  let m0 = blockIdx.y * 64;
  let n0 = blockIdx.x * 64;
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { acc[i, j] = 0.0; }
  for kt in range(cdiv(K, 64)) {
    for (r, c) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gr = m0 + r;
      let gk = kt * 64 + c;
      sa[r, c] = (gr < M && gk < K) ? A[gr, gk] : f16(0.0);
      let bk = kt * 64 + r;
      let gj = n0 + c;
      sb[r, c] = (bk < K && gj < N) ? B[bk, gj] : f16(0.0);
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    if (m0 < M) {
      if (kt % 2 == 0) { wgmma(acc, sa, sb); } else { wgmma(acc, sa, sb, true); }
    }
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x {
    let gi = m0 + i;
    let gj = n0 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}
// CHECK-LABEL: kernel nested(
// CHECK: if (m0 < M) {
// CHECK-NEXT: if ((kt % 2) == 0) {
// CHECK-NEXT: wgmma_fence()
// CHECK: wgmma_commit()
// CHECK-NEXT: } else {
// CHECK-NEXT: wgmma_fence()
// CHECK: wgmma_commit()
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: wgmma_fence()
// CHECK-NEXT: wgmma_commit()
// CHECK-NEXT: }
// CHECK-NEXT: wgmma_wait(0)

// Statements without wgmma built-ins between the fence and the if (the
// let its condition reads) stay before it, and those between the if and
// the commit (a store by one thread) after it.
kernel with_lets(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements matmul_acc
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  shared steps: i32[1];
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  let m0 = blockIdx.y * 64;
  let n0 = blockIdx.x * 64;
  for kt in range(cdiv(K, 64)) {
    for (r, c) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gr = m0 + r;
      let gk = kt * 64 + c;
      sa[r, c] = (gr < M && gk < K) ? A[gr, gk] : f16(0.0);
      let bk = kt * 64 + r;
      let gj = n0 + c;
      sb[r, c] = (bk < K && gj < N) ? B[bk, gj] : f16(0.0);
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    let first = kt * 64 < 64;
    if (first) { wgmma(acc, sa, sb, false); } else { wgmma(acc, sa, sb); }
    if (threadIdx.x == 0) { steps[0] = kt; }
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x {
    let gi = m0 + i;
    let gj = n0 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j] + f32(steps[0] - steps[0]); }
  }
}
// CHECK-LABEL: kernel with_lets(
// CHECK: let first: bool =
// CHECK-NEXT: if first {
// CHECK-NEXT: wgmma_fence()
// CHECK: wgmma_commit()
// CHECK-NEXT: } else {
// CHECK-NEXT: wgmma_fence()
// CHECK: wgmma_commit()
// CHECK-NEXT: }
// CHECK-NEXT: if (threadIdx.x == 0) {
// CHECK: wgmma_wait(0)

