// Shared tensors with gaps in their layout are allocated up to their largest
// offset: a tile staged through strided(65, 1) and swizzle shared memory is
// copied exactly, with every access in bounds (once strided shared tensors
// were sized by the product of their dimensions and wrote past the end).
// RUN: %tmc run %s --kernel stage_strided --shape R=40 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel stage_swizzle --shape R=40 --check-bounds --check-races | FileCheck %s
// RUN: %tmc %s --emit=ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas-verify sm_80 < %t.ptx %}
// RUN: %tmc %s --emit=cuda -o %t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_80 %t.cu -o %t.o %}
// CHECK: unwritten:  0 of 2560
// CHECK: result:     PASS

op copy(X: f32[R, 64]) -> f32[R, 64] { out[r, c] = X[r, c]; }

kernel stage_strided(X: f32[R, 64], Y: f32[R, 64]) implements copy grid(cdiv(R, 8)) block(64) {
  shared tile: f32[8, 64] strided(65, 1);   // a padded row: 7 * 65 + 64 elements
  let c = threadIdx.x;
  for r in range(8) {
    let g = blockIdx.x * 8 + r;
    if (g < R) { tile[r, c] = X[g, c]; }
  }
  sync;
  for r in range(8) {
    let g = blockIdx.x * 8 + r;
    if (g < R) { Y[g, c] = tile[r, c]; }
  }
}

kernel stage_swizzle(X: f32[R, 64], Y: f32[R, 64]) implements copy grid(cdiv(R, 8)) block(64) {
  shared tile: f32[8, 63] swizzle(2, 2, 4);  // 504 elements; offset 511 in the partial last block of 16
  let c = threadIdx.x;
  for r in range(8) {
    let g = blockIdx.x * 8 + r;
    if (g < R && c < 63) { tile[r, c] = X[g, c]; }
  }
  sync;
  for r in range(8) {
    let g = blockIdx.x * 8 + r;
    if (g < R) { Y[g, c] = c < 63 ? tile[r, c] : X[g, c]; }
  }
}
