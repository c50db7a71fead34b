// wgmma, its fences and setmaxnreg are executed by the four warps of a
// warpgroup together. The lanes of each warp meet at them on the CPU
// executor (a divergent lane is reported); a warp of the warpgroup that
// executes one more or fewer times than another is reported at the end of
// the block, at the instruction.
// RUN: not %tmc run %s --arch=sm_90a --kernel first_warp_only --shape N=300 2>&1 | FileCheck %s --check-prefix=SETMAXNREG
// RUN: not %tmc run %s --arch=sm_90a --kernel half_fenced --shape N=300 2>&1 | FileCheck %s --check-prefix=FENCE
// RUN: %tmc run %s --arch=sm_90a --kernel whole --shape N=300 | FileCheck %s --check-prefix=PASS
// SETMAXNREG: fault_warpgroup.tm:[[@LINE+8]]:27: error: in kernel 'first_warp_only', block (0, 0, 0): warp 0 of warpgroup 0 executed this warpgroup instruction once but warp 1 never: wgmma, its fences and setmaxnreg are executed by all four warps of a warpgroup together
// FENCE: error: in kernel 'half_fenced', block (0, 0, 0): warp 0 of warpgroup 1 executed this warpgroup instruction once but warp 2 never
// PASS: result:     PASS

op copy1d(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel first_warp_only(X: f32[N], Y: f32[N]) implements copy1d grid(cdiv(N, 256)) block(256)
{
  if (threadIdx.x < 32) { setmaxnreg_dec(40); }
  let i = blockIdx.x * 256 + threadIdx.x;
  if (i < N) { Y[i] = X[i]; }
}

kernel half_fenced(X: f32[N], Y: f32[N]) implements copy1d grid(cdiv(N, 256)) block(256)
{
  if (threadIdx.x >= 128 && threadIdx.x < 192) { wgmma_fence(); }
  let i = blockIdx.x * 256 + threadIdx.x;
  if (i < N) { Y[i] = X[i]; }
}

kernel whole(X: f32[N], Y: f32[N]) implements copy1d grid(cdiv(N, 256)) block(256)
{
  if (threadIdx.x < 128) { setmaxnreg_dec(40); } else { setmaxnreg_inc(232); }
  let i = blockIdx.x * 256 + threadIdx.x;
  if (i < N) { Y[i] = X[i]; }
}
