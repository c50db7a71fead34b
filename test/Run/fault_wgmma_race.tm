// A planted fault: the wgmma matmul without the barrier between staging
// the tiles and the warpgroup MMA. wgmma reads A and B in shared memory
// (through its descriptors) while other threads still write them: the
// race check reports the wgmma's read (checked at the wgmma_wait that ends
// it) with a note at the store.
// RUN: not %tmc run %s --arch=sm_90a --kernel mm_racy --shape M=64,N=64,K=64 --check-races 2>&1 | FileCheck %s
// wgmma reads its operands until the wgmma_wait that completes it: the
// next tile staged before that wait (a sync does not wait for wgmma) races
// with the reads: reported at the store, with a note at the wgmma.
// RUN: not %tmc run %s --arch=sm_90a --kernel mm_early_refill --shape M=64,N=64,K=128 --check-races 2>&1 | FileCheck %s --check-prefix=ASYNC
// ASYNC: error: write of 'sa' element {{[0-9]+}} in kernel 'mm_early_refill' by thread {{[0-9]+}} of block (0, 0, 0) while a wgmma may still read it (before the wgmma_wait that completes its group)
// ASYNC: note: the wgmma by thread {{[0-9]+}}, still reading
// ASYNC-NEXT: wgmma(acc, sa, sb, k0 > 0);
// CHECK: fault_wgmma_race.tm:44:5: error: data race on 'sa' element {{[0-9]+}} in kernel 'mm_racy': a read by thread {{[0-9]+}} and a write by thread {{[0-9]+}} of block (0, 0, 0) between the same barriers
// CHECK-NEXT: wgmma(acc, sa, sb, k0 > 0);
// CHECK: fault_wgmma_race.tm:35:7: note: the write by thread

import std.wgmma;

op mm(A: f16[M, K], B: f16[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

kernel mm_racy(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    implements mm
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for k0 in range(cdiv(K, 64)) {
    for (i, k) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gi = blockIdx.y * 64 + i;
      let gk = k0 * 64 + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;
    }
    for (k, j) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gk = k0 * 64 + k;
      let gj = blockIdx.x * 64 + j;
      sb[k, j] = (gk < K && gj < N) ? B[gk, gj] : 0.0;
    }
    fence_proxy_async();
    wgmma_fence();
    wgmma(acc, sa, sb, k0 > 0);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}

kernel mm_early_refill(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    implements mm
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for k0 in range(cdiv(K, 64)) {
    for (i, k) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gi = blockIdx.y * 64 + i;
      let gk = k0 * 64 + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;
    }
    for (k, j) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gk = k0 * 64 + k;
      let gj = blockIdx.x * 64 + j;
      sb[k, j] = (gk < K && gj < N) ? B[gk, gj] : 0.0;
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    wgmma(acc, sa, sb, k0 > 0);
    wgmma_commit();
    sync;  // not a wait: the next iteration's stores race with this wgmma
  }
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}
