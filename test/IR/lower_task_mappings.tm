// lower-task-mappings: spatial parts become div/mod of the worker, repeat
// parts loops (marked for unrolling), with a guard for surplus workers.
// RUN: %tmc %s --emit=ir --print-after=lower-task-mappings -o /dev/null 2>&1 | FileCheck %s

kernel k(X: f32[8, 16], Y: f32[8, 16]) block(64) {
  for (i, j) in spatial(4, 8) * repeat(2, 2) on threadIdx.x {
    Y[i, j] = X[i, j];
  }
}
// CHECK: IR after lower-task-mappings
// CHECK: let w: i32 = threadIdx.x
// CHECK-NEXT: if (w < 32) {
// CHECK-NEXT: for r0 in [0, 2) unroll {
// CHECK-NEXT: for r1 in [0, 2) unroll {
// CHECK-NEXT: let i: i32 = (((w / 8) * 2) + r0)
// CHECK-NEXT: let j: i32 = (((w % 8) * 2) + r1)
// CHECK-NEXT: Y[i, j] = X[i, j]
// CHECK-NOT: for (
