// split-tails: a guarded tile becomes an unguarded fast path when its last
// element is in bounds, and the guarded loop otherwise.
// RUN: %tmc %s --emit=ir --print-after=split-tails -o /dev/null 2>&1 | FileCheck %s

kernel copy4(X: f32[N], Y: f32[N]) grid(cdiv(N, 1024)) block(256) {
  for i in spatial(256) * repeat(4) on threadIdx.x {
    let g = blockIdx.x * 1024 + i;
    if (g < N) { Y[g] = X[g]; }
  }
}
// CHECK: if (((blockIdx.x * 1024) + ((w * 4) + 3)) < N) {
// CHECK-NEXT: for r0 in [0, 4) unroll {
// CHECK-NEXT: let i: i32 = ((w * 4) + r0)
// CHECK-NEXT: let g: i32 = ((blockIdx.x * 1024) + i)
// CHECK-NEXT: Y[g] = X[g]
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: for r0 in [0, 4) unroll {
// CHECK: if (g < N) {

// A guard that does not grow with the counter is left alone.
kernel reversed(X: f32[N], Y: f32[N]) grid(cdiv(N, 1024)) block(256) {
  for i in spatial(256) * repeat(4) on threadIdx.x {
    let g = blockIdx.x * 1024 + 3 - i;
    if (g < N) { Y[g] = X[g]; }
  }
}
// CHECK-LABEL: kernel reversed
// CHECK-NOT: else
