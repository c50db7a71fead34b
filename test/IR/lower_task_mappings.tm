// lower-task-mappings: spatial parts become div/mod of the worker, repeat
// parts loops (marked for unrolling), with a guard for surplus workers.
// RUN: %tmc %s --emit=ir --print-after=lower-task-mappings -o /dev/null 2>&1 | FileCheck %s

kernel k(X: f32[8, 16], Y: f32[8, 16]) block(64) {
  for (i, j) in spatial(4, 8) * repeat(2, 2) on threadIdx.x {
    Y[i, j] = X[i, j];
  }
}
// CHECK-LABEL: IR after lower-task-mappings
// CHECK: let w: i32 = threadIdx.x
// CHECK-NEXT: if (w < 32) {
// CHECK-NEXT: for r0 in [0, 2) unroll {
// CHECK-NEXT: for r1 in [0, 2) unroll {
// CHECK-NEXT: let i: i32 = (((w / 8) * 2) + r0)
// CHECK-NEXT: let j: i32 = (((w % 8) * 2) + r1)
// CHECK-NEXT: Y[i, j] = X[i, j]
// CHECK-NOT: for (

// A coordinate the body does not read gets no let: the register tensor
// indexed by the task takes its slot, and only j (read by the store's
// column) is bound.
kernel partial(Y: f32[4, 32]) block(32) {
  register acc: f32[4, 32] by repeat(4, 1) * spatial(1, 32);
  for (i, j) in repeat(4, 1) * spatial(1, 32) on threadIdx.x { acc[i, j] = 1.0; }
  for (i, j) in repeat(4, 1) * spatial(1, 32) on threadIdx.x { Y[0, j] = acc[i, j]; }
}
// CHECK-LABEL: IR after lower-task-mappings
// CHECK: for r0 in [0, 4) unroll {
// CHECK-NOT: let
// CHECK: acc[r0] = 1.0
// CHECK: for r0 in [0, 4) unroll {
// CHECK-NOT: let i
// CHECK: let j: i32 = (w % 32)
// CHECK-NEXT: Y[0, j] = acc[r0]
