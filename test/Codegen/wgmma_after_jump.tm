// A wgmma call whose k16 steps are one inline asm, right after a break,
// continue or return in the same block (dead code the checker accepts):
// the chain is emitted into a fresh block, as every other statement after
// a jump, never after the jump's terminator (regression: the LLVM module
// failed to verify).
// REQUIRES: ptxas
// RUN: %tmc %s --arch=sm_90a --emit=ptx --verify-each | %ptxas-verify sm_90a
// RUN: %tmc %s --arch=sm_90a --emit=ptx | FileCheck %s
// The live call's two k16 steps, one asm; the dead ones are dropped.
// CHECK: .reg .pred p<2>;
// CHECK-NOT: .reg .pred p<2>;

import std.wgmma;  // wgmma_c

kernel after_jumps(A: f16[64, 32], B: f16[32, 64], C: f32[64, 64]) block(128) {
  shared sa: f16[64, 32] swizzle(2, 3, 3);
  shared sb: f16[32, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for (i, k) in repeat(16, 1) * spatial(4, 32) on threadIdx.x { sa[i, k] = A[i, k]; }
  for (k, j) in repeat(16, 1) * spatial(2, 64) on threadIdx.x { sb[k, j] = B[k, j]; }
  fence_proxy_async();
  sync;
  for n in range(2) {
    wgmma_fence();
    if (n > 0) {
      break;
      wgmma(acc, sa, sb);
    }
    if (n > 5) {
      continue;
      wgmma(acc, sa, sb);
    }
    wgmma(acc, sa, sb, n > 0);
    wgmma_commit();
    wgmma_wait(0);
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x { C[i, j] = acc[i, j]; }
  return;
  wgmma(acc, sa, sb);
}
