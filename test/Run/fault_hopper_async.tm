// Planted faults of Hopper's asynchronous instructions that no race check
// sees, found by tmc run at their source line: a thread that ends while
// its tma_store may still read shared memory (never waited for), an
// mbarrier index past its array (not "used before init": the word would
// be anything), and a wgmma accumulator read before the wgmma_wait that
// completes the instruction.
// RUN: not %tmc run %s --arch=sm_90a --kernel store_unwaited --shape M=8,N=64 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: not %tmc run %s --arch=sm_90a --kernel bar_past_end --shape M=8,N=64 2>&1 | FileCheck %s --check-prefix=BAR
// RUN: not %tmc run %s --arch=sm_90a --kernel acc_early --shape M=64,N=64,K=64 --check-bounds 2>&1 | FileCheck %s --check-prefix=ACC
// STORE: fault_hopper_async.tm:29:5: error: thread 0 of block (0, 0, 0) of kernel 'store_unwaited' ends while its tma_store may still read shared memory
// BAR: fault_hopper_async.tm:38:3: error: out-of-bounds read of 'bar' in kernel 'bar_past_end': element 2 is outside [0, 2)
// ACC: fault_hopper_async.tm:59:67: error: read of 'acc' element {{[0-9]+}} in kernel 'acc_early' by thread 0 of block (0, 0, 0) while a wgmma may still use it
// ACC: fault_hopper_async.tm:57:3: note: the wgmma, still in flight

import std.wgmma;

op twice2d(X: f32[M, N]) -> f32[M, N] { out[i, j] = X[i, j] * 2.0; }

kernel store_unwaited(X: f32[M, N], Y: f32[M, N] by tma) implements twice2d grid(cdiv(N, 32), cdiv(M, 4)) block(128) {
  shared tile: f32[4, 32];
  let r = threadIdx.x / 32;
  let c = threadIdx.x % 32;
  let i = blockIdx.y * 4 + r;
  let j = blockIdx.x * 32 + c;
  tile[r, c] = i < M && j < N ? X[i, j] * 2.0 : 0.0;
  fence_proxy_async();
  sync;
  if (threadIdx.x == 0) {
    tma_store(Y[blockIdx.y * 4, blockIdx.x * 32], tile);
    tma_store_commit();  // but no tma_store_wait
  }
}

kernel bar_past_end(X: f32[M, N], Y: f32[M, N]) implements twice2d grid(cdiv(N, 32), cdiv(M, 4)) block(128) {
  shared bar: mbarrier[2];
  if (threadIdx.x < 2) { mbarrier_init(bar[threadIdx.x], 128); }
  sync;
  mbarrier_arrive(bar[blockIdx.x + 2]);
  let i = blockIdx.y * 4 + threadIdx.x / 32;
  let j = blockIdx.x * 32 + threadIdx.x % 32;
  if (i < M && j < N) { Y[i, j] = X[i, j] * 2.0; }
}

op mm(A: f16[M, K], B: f16[K, N]) -> f32[M, N] { out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]); }

kernel acc_early(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements mm where M == 64, N == 64, K == 64 grid(1) block(128) {
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
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }  // before the wait
  wgmma_wait(0);
}
