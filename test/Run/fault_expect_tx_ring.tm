// A deadlock in a multi-stage ring is reported at its cause: an
// expect_tx that announces fewer (or more) bytes than the tma_loads bring
// keeps a `full` phase from completing; the producer then waits on an
// `empty` barrier the stuck consumers never arrive on. The report names
// the consumer's wait on `full` and the bytes, not the producer's wait.
// RUN: not %tmc run %s --arch=sm_90a --shape M=100,N=200,K=600 2>&1 | FileCheck %s
// RUN: not %tmc run %s --arch=sm_90a --shape M=100,N=200,K=600 -D BYTES=25600 2>&1 | FileCheck %s --check-prefix=MORE
// CHECK: error: kernel 'mm_ws_n96' deadlocks: thread 128 of block (0, 0, 0) waits on mbarrier 'full'[0] for its phase of parity 0 to complete, but its tma_loads brought 5120 transaction bytes more than mbarrier_arrive_expect_tx announced
// MORE: error: kernel 'mm_ws_n96' deadlocks: thread 128 of block (0, 0, 0) waits on mbarrier 'full'[0] for its phase of parity 0 to complete, but no thread is left to complete it (0 arrivals and 15360 transaction bytes missing)

import std.nn;
import std.wgmma;

kernel mm_ws_n96<STAGES: int in [2, 3, 4] = 4, BYTES: int = 5120>(A: bf16[M, K] by tma, B: bf16[K, N] by tma, C: bf16[M, N] by tma)
    implements matmul
    where K % 8 == 0, N % 8 == 0
    grid(cdiv(N, 96), cdiv(M, 64)) block(256)
{
  shared sa: bf16[STAGES, 64, 32] swizzle(2, 3, 3);
  shared sb: bf16[STAGES, 6, 32, 16] swizzle(1, 3, 3);
  shared cs: bf16[64, 96];
  shared full: mbarrier[STAGES];
  shared empty: mbarrier[STAGES];
  if (threadIdx.x < STAGES) {
    mbarrier_init(full[threadIdx.x], 1);
    mbarrier_init(empty[threadIdx.x], 128);
  }
  sync;
  let m0 = blockIdx.y * 64;
  let n0 = blockIdx.x * 96;
  let kts = cdiv(K, 32);
  if (threadIdx.x < 128) {
    setmaxnreg_dec(40);
    if (threadIdx.x == 0) {
      for kt in range(kts) {
        let st = kt % STAGES;
        let use = kt / STAGES;
        if (use > 0) { mbarrier_wait(empty[st], (use - 1) % 2); }
        mbarrier_arrive_expect_tx(full[st], BYTES);  // A and B bring (64 * 32 + 6 * 32 * 16) * 2 = 10240
        tma_load(sa[st], A[m0, kt * 32], full[st]);
        for g in range(6) { tma_load(sb[st, g], B[kt * 32, n0 + g * 16], full[st]); }
      }
    }
  } else {
    setmaxnreg_inc(232);
    let t = threadIdx.x - 128;
    register acc: f32[64, 96] by repeat(1, 12) * wgmma_c;
    for kt in range(kts) {
      let st = kt % STAGES;
      mbarrier_wait(full[st], (kt / STAGES) % 2);
      wgmma_fence();
      wgmma(acc, sa[st], sb[st], kt > 0);
      wgmma_commit();
      wgmma_wait(0);
      mbarrier_arrive(empty[st]);
    }
    for (i, j) in repeat(1, 12) * wgmma_c on t { cs[i, j] = bf16(acc[i, j]); }
    fence_proxy_async();
  }
  sync;
  if (threadIdx.x == 128) {
    tma_store(C[m0, n0], cs);
    tma_store_commit();
    tma_store_wait(0);
  }
}
