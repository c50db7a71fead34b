// wgmma_fence() orders a thread's accesses to a wgmma's registers (its
// accumulator, and A when in registers) before the wgmma: the PTX ISA asks
// for one before a warpgroup's first wgmma and between such accesses and
// any wgmma that uses those registers (ptxas otherwise inserts its own
// arrive, C7519, and serializes). tmc run reports a wgmma with no fence
// before it at all, and, in the checking modes, one using a register the
// thread accessed after its latest fence, with a note at the access.
// RUN: not %tmc run %s --arch=sm_90a --kernel never_fenced --shape M=64,N=64,K=64 2>&1 | FileCheck %s --check-prefix=NEVER
// RUN: not %tmc run %s --arch=sm_90a --kernel fenced_once --shape M=64,N=64,K=150 --check-bounds 2>&1 | FileCheck %s --check-prefix=ONCE
// RUN: %tmc run %s --arch=sm_90a --kernel fenced_each_step --shape M=70,N=40,K=150 --check-races --check-bounds | FileCheck %s --check-prefix=PASS
// NEVER: fault_wgmma_fence.tm:[[@LINE+22]]:3: error: wgmma in kernel 'never_fenced' by thread 0 of block (0, 0, 0) with no wgmma_fence() before it: a warpgroup's first wgmma needs one
// ONCE: fault_wgmma_fence.tm:[[@LINE+42]]:5: error: wgmma in kernel 'fenced_once' by thread 0 of block (0, 0, 0) uses 'a' element {{[0-9]+}}, which the thread wrote after its latest wgmma_fence: a wgmma_fence() must come between
// ONCE: fault_wgmma_fence.tm:[[@LINE+37]]:59: note: the write, with no wgmma_fence() after it before the wgmma
// PASS: result:     PASS

import std.wgmma;

op mm(A: f16[M, K], B: f16[K, N]) -> f32[M, N] { out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]); }

// Shared operands, no fence at all.
kernel never_fenced(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements mm where M == 64, N == 64, K == 64
    grid(1) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for (r, c) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
    sa[r, c] = A[r, c];
    sb[r, c] = B[r, c];
  }
  fence_proxy_async();
  sync;
  wgmma(acc, sa, sb, false);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
}

// A in registers, rewritten every k-step, but fenced only once, before the
// loop: the second step's wgmma reads registers written since.
kernel fenced_once(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements mm where M == 64, N == 64
    grid(1) block(128)
{
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register a: f16[64, 64] by repeat(1, 4) * wgmma_a;
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  wgmma_fence();
  for kt in range(cdiv(K, 64)) {
    let k0 = kt * 64;
    for (i, k) in repeat(1, 4) * wgmma_a on threadIdx.x { a[i, k] = k0 + k < K ? A[i, k0 + k] : f16(0.0); }
    for (k, j) in repeat(32, 1) * spatial(2, 64) on threadIdx.x { sb[k, j] = k0 + k < K ? B[k0 + k, j] : f16(0.0); }
    fence_proxy_async();
    sync;
    wgmma(acc, a, sb, kt > 0);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
}

// The same with a fence in each step, after the registers are written; the
// epilogue reads the accumulator after the last wgmma, which needs none.
kernel fenced_each_step(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements mm
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register a: f16[64, 64] by repeat(1, 4) * wgmma_a;
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  let m0 = blockIdx.y * 64;
  let n0 = blockIdx.x * 64;
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { acc[i, j] = 0.0; }
  for kt in range(cdiv(K, 64)) {
    let k0 = kt * 64;
    for (i, k) in repeat(1, 4) * wgmma_a on threadIdx.x {
      a[i, k] = m0 + i < M && k0 + k < K ? A[m0 + i, k0 + k] : f16(0.0);
    }
    for (k, j) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      sb[k, j] = k0 + k < K && n0 + j < N ? B[k0 + k, n0 + j] : f16(0.0);
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    wgmma(acc, a, sb);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x {
    if (m0 + i < M && n0 + j < N) { C[m0 + i, n0 + j] = acc[i, j]; }
  }
}
