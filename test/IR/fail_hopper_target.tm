// Hopper's warpgroup instructions need --arch=sm_90a: elsewhere the first
// one of each kernel is a located error (not a ptxas failure). wgmma is
// issued by whole warpgroups: a block of other than a multiple of 128
// threads cannot run it.
// RUN: not %tmc %s -I %stdlib 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not %tmc %s -I %stdlib --arch=sm_90 --emit=ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not %tmc %s -I %stdlib --arch=sm_90a 2>&1 | FileCheck %s --check-prefix=SM90A
// SM80: fail_hopper_target.tm:23:3: error: 'wgmma_fence' needs --arch=sm_90a (one of Hopper's asynchronous instructions); this compilation targets sm_80
// SM80-NOT: needs --arch
// SM80: fail_hopper_target.tm:34:3: error: 'wgmma' needs --arch=sm_90a
// SM90: error: 'wgmma_fence' needs --arch=sm_90a {{.*}} targets sm_90
// SM90A-NOT: needs --arch
// SM90A: fail_hopper_target.tm:34:3: error: 'wgmma' is issued by whole warpgroups of 128 threads, but kernel 'three_warps' has blocks of 96 threads
// SM90A-NEXT: wgmma(acc, sa, sb, false);
// SM90A-NEXT: ^~~~~~~~~~~~~~~~~~~~~~~~~

import std.wgmma;

kernel whole(X: f32[N]) grid(1) block(128) {
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  wgmma_fence();
  wgmma(acc, sa, sb, false);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { if (i * 64 + j < N) { X[i * 64 + j] = acc[i, j]; } }
}

kernel three_warps(X: f32[N]) grid(1) block(96) {
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  wgmma(acc, sa, sb, false);
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { if (i * 64 + j < N) { X[i * 64 + j] = acc[i, j]; } }
}
