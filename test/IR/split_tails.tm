// split-tails: a guarded tile becomes an unguarded fast path when its last
// element is in bounds, and the guarded loop otherwise.
// RUN: %tmc %s --emit=ir --print-after=split-tails -o /dev/null 2>&1 | FileCheck %s
// RUN: %tmc %s --emit=ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas-verify sm_80 < %t.ptx %}
// RUN: %tmc %s --emit=cuda -o %t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_80 %t.cu -o %t.o %}

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

// A bound that uses a let of the loop body must not be hoisted above the
// loop that defines it: with col_repeat, `j` is set by the outer repeat
// loop and is invariant in the inner one, so `N - j` looked invariant and
// was copied out as it was (`variable j has no value`, exit 2; the CUDA C
// did not compile). Both sides of the hoisted guard are inlined.
kernel col_repeat_bound(X: f32[M, N], Y: f32[M, N]) grid(cdiv(M, 8)) block(32) {
  for (i, j) in col_repeat(2, 2) * spatial(4, 8) on threadIdx.x {
    let r = blockIdx.x * 8 + i;
    if (r < N - j) { Y[r, j] = X[r, j]; }
  }
}
// CHECK-LABEL: kernel col_repeat_bound
// CHECK: for r0 in [0, 2) unroll {
// CHECK-NEXT: if (((blockIdx.x * 8) + ((1 * 4) + (w / 8))) < (N - ((r0 * 8) + (w % 8)))) {
// CHECK-NEXT: for r1 in [0, 2) unroll {
// CHECK-NEXT: let i: i32 = ((r1 * 4) + (w / 8))
// CHECK-NEXT: let j: i32 = ((r0 * 8) + (w % 8))
