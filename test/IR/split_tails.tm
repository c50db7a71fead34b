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

// Other spellings of the same guards: a negated disjunction (De Morgan)
// and comparisons written bound first. Each split like `gi < M && gj < N`
// (they kept every per-element guard, and their accesses scalar).
kernel spelled_not(X: f32[M, N], Y: f32[M, N]) grid(cdiv(N, 16), cdiv(M, 8)) block(32) {
  for (i, j) in spatial(4, 8) * repeat(2, 2) on threadIdx.x {
    let gi = blockIdx.y * 8 + i;
    let gj = blockIdx.x * 16 + j;
    if (!(gi >= M || gj >= N)) { Y[gi, gj] = X[gi, gj]; }
  }
}
// CHECK-LABEL: kernel spelled_not
// CHECK: if (((((blockIdx.y * 8) + (((w / 8) * 2) + 1)) < M) && (((blockIdx.x * 16) + (((w % 8) * 2) + 1)) < N)) && ((N % 2) == 0)) {
// CHECK-NOT: if (
// CHECK: } else {
// CHECK: if (!((gi >= M) || (gj >= N))) {

kernel spelled_mirrored(X: f32[M, N], Y: f32[M, N]) grid(cdiv(N, 16), cdiv(M, 8)) block(32) {
  for (i, j) in spatial(4, 8) * repeat(2, 2) on threadIdx.x {
    let gi = blockIdx.y * 8 + i;
    let gj = blockIdx.x * 16 + j;
    if (M > gi && N >= gj + 1) { Y[gi, gj] = X[gi, gj]; }
  }
}
// CHECK-LABEL: kernel spelled_mirrored
// CHECK: if (((((blockIdx.y * 8) + (((w / 8) * 2) + 1)) < M) && ((((blockIdx.x * 16) + (((w % 8) * 2) + 1)) + 1) <= N)) && ((N % 2) == 0)) {
// CHECK-NOT: if (
// CHECK: } else {
// CHECK: if ((M > gi) && (N >= (gj + 1))) {

// An invariant term stays as written, negation and all (a negated float
// comparison is not its opposite for a NaN); the negated bound is split.
kernel float_negated(X: f32[N], Y: f32[N], lim: f32) grid(cdiv(N, 1024)) block(256) {
  for i in spatial(256) * repeat(4) on threadIdx.x {
    let g = blockIdx.x * 1024 + i;
    if (!(X[0] >= lim) && !(g >= N)) { Y[g] = X[g]; }
  }
}
// CHECK-LABEL: kernel float_negated
// CHECK: if ((!(X[0] >= lim)) && (((blockIdx.x * 1024) + ((w * 4) + 3)) < N)) {
// CHECK: } else {
// CHECK: if ((!(X[0] >= lim)) && (!(g >= N))) {

// A nest of unrolled loops is split once, at its outermost loop: the
// condition takes every counter at its last value, and the guarded copy
// is the nest as it was (one branch per thread's tile, not one per pair).
kernel nest_pairs(X: f32[M, N], Y: f32[M, N]) grid(cdiv(N, 16), cdiv(M, 8)) block(32) {
  for (i, j) in spatial(4, 8) * repeat(2, 2) on threadIdx.x {
    let gi = blockIdx.y * 8 + i;
    let gj = blockIdx.x * 16 + j;
    if (gi < M && gj < N) { Y[gi, gj] = X[gi, gj]; }
  }
}
// CHECK-LABEL: kernel nest_pairs
// CHECK: if (((((blockIdx.y * 8) + (((w / 8) * 2) + 1)) < M) && (((blockIdx.x * 16) + (((w % 8) * 2) + 1)) < N)) && ((N % 2) == 0)) {
// CHECK-NEXT: for r0 in [0, 2) unroll {
// CHECK-NEXT: for r1 in [0, 2) unroll {
// CHECK-NOT: if
// CHECK: Y[gi, gj] = X[gi, gj]
// CHECK: } else {
// CHECK-NEXT: for r0 in [0, 2) unroll {
// CHECK-NEXT: for r1 in [0, 2) unroll {
// CHECK-NOT: else
// CHECK: if ((gi < M) && (gj < N)) {

// Guards around stores of computed values become predicated stores
// (ir/predicable.h): a large nest of them has no fast copy (64 stores of
// register values, which stay scalar), and neither have its inner loops.
kernel big_predicable(Y: f32[M, N]) grid(cdiv(N, 64), cdiv(M, 64)) block(64) {
  let m = spatial(8, 8) * repeat(8, 8);
  register acc: f32[64, 64] by m;
  for (i, j) in m on threadIdx.x { acc[i, j] = f32(i * j); }
  for (i, j) in m on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { Y[gi, gj] = acc[i, j]; }
  }
}
// CHECK-LABEL: kernel big_predicable
// CHECK-NOT: else
// CHECK: if ((gi < M) && (gj < N)) {
// CHECK-NEXT: Y[gi, gj] = acc[
// CHECK-NOT: else
// CHECK-LABEL: {{^}}}

// A large tile copied from shared to global memory (16 rows of 8
// elements per thread, as a staged epilogue): the fast copy is unrolled,
// the guarded copy, which touches no register tensor and runs only at the
// tensor's edge, keeps its loops rolled.
// RUN: %tmc run %s --kernel staged_copy --shape M=100,N=72 --check-bounds | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel staged_copy --shape M=128,N=128 | FileCheck %s --check-prefix=RESULT
// RESULT: result:{{ +}}PASS
op copy2d(X: f32[M, N]) -> f32[M, N] {
  out[i, j] = X[i, j];
}
kernel staged_copy(X: f32[M, N], Y: f32[M, N]) implements copy2d
    where N % 8 == 0 grid(cdiv(N, 128), cdiv(M, 128)) block(128) {
  shared t: f32[128, 136];
  for (i, j) in repeat(8, 1) * spatial(16, 8) * repeat(1, 16) on threadIdx.x {
    let gi = blockIdx.y * 128 + i;
    let gj = blockIdx.x * 128 + j;
    t[i, j] = gi < M && gj < N ? X[gi, gj] : 0.0;
  }
  sync;
  for (i, j) in repeat(16, 1) * spatial(8, 16) * repeat(1, 8) on threadIdx.x {
    let gi = blockIdx.y * 128 + i;
    let gj = blockIdx.x * 128 + j;
    if (gi < M && gj < N) { Y[gi, gj] = t[i, j]; }
  }
}
// CHECK-LABEL: kernel staged_copy
// CHECK: sync
// CHECK: if (w < 128) {
// CHECK-NEXT: if (
// CHECK-NEXT: for r0 in [0, 16) unroll {
// CHECK-NEXT: for r1 in [0, 8) unroll {
// CHECK-NOT: if
// CHECK: Y[gi, gj] = t[i, j]
// CHECK: } else {
// CHECK-NEXT: for r0 in [0, 16) {
// CHECK-NEXT: for r1 in [0, 8) {
// CHECK: if ((gi < M) && (gj < N)) {
// CHECK-NEXT: Y[gi, gj] = t[i, j]

// An equality that Simplify decides in every unrolled copy is no guard to
// version a nest on: `i == r` compares a fragment row with the row a pass
// is at, both the lane's row plus constants once the loops are unrolled.
kernel row_pass(Y: f32[16, 4]) grid(1) block(32) {
  register s: f32[16, 8] by repeat(2, 1) * spatial(8, 4) * repeat(1, 2);
  register m: f32[16, 4] by repeat(2, 1) * spatial(8, 4);
  for (i, j) in repeat(2, 1) * spatial(8, 4) * repeat(1, 2) on threadIdx.x { s[i, j] = f32(i * 8 + j); }
  for (r, t) in repeat(2, 1) * spatial(8, 4) on threadIdx.x {
    var mx: f32 = 0.0;
    for (i, j) in repeat(2, 1) * spatial(8, 4) * repeat(1, 2) on threadIdx.x {
      if (i == r) { mx = max(mx, s[i, j]); }
    }
    m[r, t] = mx;
  }
  for (r, t) in repeat(2, 1) * spatial(8, 4) on threadIdx.x { Y[r, t] = m[r, t]; }
}
// CHECK-LABEL: kernel row_pass(
// CHECK: var mx: f32 = 0.0
// CHECK: for r0 in [0, 2) unroll {
// CHECK-NEXT: for r1 in [0, 2) unroll {
// CHECK-NEXT: let i: i32 = ((r0 * 8) + (w / 4))
// CHECK-NEXT: if (i == r) {
// CHECK-NEXT: mx = max(mx, s[((r0 * 2) + r1)])
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: else
// CHECK: m[r0] = mx
