// One elected consumer thread releases each pipeline stage for its whole
// warpgroup after wgmma_wait (CUTLASS's PipelineTmaAsync: the `empty`
// barrier counts one arrival per consumer warpgroup). A wgmma is one
// operation of the warpgroup, so the wait that completes its group in the
// elected thread completes the other threads' shares too: no race with
// the producer's next tma_load into the stage. Released before the wait,
// it is one.
// REQUIRES: ptxas
// RUN: %tmc run %s --arch=sm_90a --shape M=100,N=200,K=600 --check-races | FileCheck %s --check-prefix=PASS
// RUN: not %tmc run %s --arch=sm_90a --shape M=100,N=200,K=600 --check-races -D EARLY=true 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: %tmc %s --arch=sm_90a --emit=ptx | %ptxas-verify --no-spills --wgmma-clean sm_90a
// PASS: result:     PASS
// RACE: error: write of 'sa' element 0 in kernel 'mm_ws_n96' by thread 0 of block (0, 0, 0) while a wgmma may still read it (before the wgmma_wait that completes its group)

import std.nn;
import std.wgmma;

kernel mm_ws_n96<STAGES: int in [2, 3, 4] = 4, EARLY: bool = false>(A: bf16[M, K] by tma, B: bf16[K, N] by tma, C: bf16[M, N] by tma)
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
    mbarrier_init(empty[threadIdx.x], 1);  // one arrival per consumer warpgroup
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
        mbarrier_arrive_expect_tx(full[st], (64 * 32 + 32 * 96) * 2);
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
      if (EARLY && t == 0) { mbarrier_arrive(empty[st]); }  // the wgmma may still read the stage
      wgmma_wait(0);
      if (!EARLY && t == 0) { mbarrier_arrive(empty[st]); }  // one elected thread releases the stage for its warpgroup
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
