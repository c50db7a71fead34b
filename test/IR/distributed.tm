// Distributed register tensors become per-thread arrays indexed by the
// task's slot, a constant after unrolling.
// RUN: %tmc %s --emit=ir | FileCheck %s

kernel k(Y: f32[64, 64]) block(256) {
  let m = spatial(16, 16) * repeat(4, 4);
  register acc: f32[64, 64] by m;
  for (i, j) in m on threadIdx.x { acc[i, j] = 1.0; }
  for (i, j) in m on threadIdx.x { Y[i, j] = acc[i, j] * 2.0; }
}
// CHECK: alloc acc: register f32[16]
// CHECK: acc[0] = 1.0
// CHECK: acc[15] = 1.0
// CHECK: = (acc[0] * 2.0)
// CHECK: = (acc[15] * 2.0)
