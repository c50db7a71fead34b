// Shared memory that threads write (the generic proxy) and a wgmma or a
// tma_store then reads (the asynchronous proxy) needs fence_proxy_async()
// by each writer after its writes, before the barrier: without it the
// hardware may read the old contents. --check-races reports the read at
// the wgmma (tma_store) with a note at the unfenced write; a fence before
// the write does not count, and tiles a tma_load filled (the asynchronous
// proxy itself) need none.
// RUN: not %tmc run %s --arch=sm_90a --kernel unfenced --shape M=64,N=64,K=64 --check-races 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: not %tmc run %s --arch=sm_90a --kernel fenced_too_early --shape M=64,N=64,K=64 --check-races 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: %tmc run %s --arch=sm_90a --kernel fenced --shape M=64,N=64,K=64 --check-races | FileCheck %s --check-prefix=PASS
// RUN: not %tmc run %s --arch=sm_90a --kernel store_unfenced --shape M=8,N=64 --check-races 2>&1 | FileCheck %s --check-prefix=STORE
// A tile refilled by a tma_load before the previous one landed (a wait
// with the wrong parity) is a race with the copy in flight, not an
// unfenced generic write: the tma_load is the asynchronous proxy.
// RUN: not %tmc run %s --arch=sm_90a --kernel refill --shape M=64,N=64,K=128 --check-races 2>&1 | FileCheck %s --check-prefix=REFILL
// REFILL: error: write of 'sa' element 0 in kernel 'refill' by thread 0 of block (0, 0, 0) before the mbarrier phase that completes the tma_load into it
// REFILL-NOT: generic proxy
// Without --check-races the kernels run (the executor has one proxy).
// RUN: %tmc run %s --arch=sm_90a --kernel unfenced --shape M=64,N=64,K=64 | FileCheck %s --check-prefix=PASS
// WGMMA: fault_proxy_fence.tm:[[@LINE+23]]:3: error: wgmma in kernel 'unfenced' by thread {{[0-9]+}} of block (0, 0, 0) reads '{{sa|sb}}' element {{[0-9]+}}, written through the generic proxy with no fence_proxy_async after the write: the asynchronous proxy may read the old value
// WGMMA: fault_proxy_fence.tm:[[@LINE+17]]:5: note: the write, by thread {{[0-9]+}}; its thread must call fence_proxy_async() after it, before the barrier that orders it before the read
// EARLY: error: wgmma in kernel 'fenced_too_early'
// PASS: result:     PASS
// STORE: error: tma_store in kernel 'store_unfenced' by thread 0 of block (0, 0, 0) reads 'tile' element 0, written through the generic proxy
// STORE: note: the write, by thread 0;

import std.wgmma;

op mm(A: f16[M, K], B: f16[K, N]) -> f32[M, N] { out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]); }

kernel unfenced(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements mm where M == 64, N == 64, K == 64
    grid(1) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for (i, k) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
    sa[i, k] = A[i, k];
    sb[i, k] = B[i, k];
  }
  sync;
  wgmma_fence();
  wgmma(acc, sa, sb, false);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
}

kernel fenced_too_early(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements mm where M == 64, N == 64, K == 64
    grid(1) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  fence_proxy_async();
  for (i, k) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
    sa[i, k] = A[i, k];
    sb[i, k] = B[i, k];
  }
  sync;
  wgmma_fence();
  wgmma(acc, sa, sb, false);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
}

kernel fenced(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements mm where M == 64, N == 64, K == 64
    grid(1) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for (i, k) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
    sa[i, k] = A[i, k];
    sb[i, k] = B[i, k];
  }
  fence_proxy_async();
  sync;
  wgmma_fence();
  wgmma(acc, sa, sb, false);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
}

op twice2d(X: f32[M, N]) -> f32[M, N] { out[i, j] = X[i, j] * 2.0; }

kernel store_unfenced(X: f32[M, N], Y: f32[M, N] by tma) implements twice2d grid(cdiv(N, 32), cdiv(M, 4)) block(128) {
  shared tile: f32[4, 32];
  let r = threadIdx.x / 32;
  let c = threadIdx.x % 32;
  let i = blockIdx.y * 4 + r;
  let j = blockIdx.x * 32 + c;
  tile[r, c] = i < M && j < N ? X[i, j] * 2.0 : 0.0;
  sync;
  if (threadIdx.x == 0) {
    tma_store(Y[blockIdx.y * 4, blockIdx.x * 32], tile);
    tma_store_commit();
    tma_store_wait(0);
  }
}

kernel refill(A: f16[M, K] by tma, B: f16[K, N] by tma, C: f32[M, N]) implements mm
    where K == 128, N == 64, M == 64
    grid(1) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  shared full: mbarrier[2];
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  if (threadIdx.x < 2) { mbarrier_init(full[threadIdx.x], 1); }
  sync;
  for kt in range(2) {
    if (threadIdx.x == 0) {
      mbarrier_arrive_expect_tx(full[kt], 2 * 64 * 64 * 2);
      tma_load(sa, A[0, kt * 64], full[kt]);
      tma_load(sb, B[kt * 64, 0], full[kt]);
    }
    mbarrier_wait(full[kt], 1);  // wrong parity: returns at once on a fresh barrier
    wgmma_fence();
    wgmma(acc, sa, sb, kt > 0);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
}
