// simplify: guards the block size proves redundant disappear; others stay;
// div/mod of thread indices fold when the range allows.
// RUN: %tmc %s --emit=ir | FileCheck %s

kernel covered(Y: f32[256]) block(256) {
  for i in spatial(256) on threadIdx.x { Y[i] = 1.0; }
}
// CHECK-LABEL: kernel covered
// CHECK-NOT: if
// CHECK: Y[i] = 1.0

kernel partial(Y: f32[64]) block(128) {   // 64 workers, 128 threads: keep the guard
  for i in spatial(64) on threadIdx.x { Y[i] = 1.0; }
}
// CHECK-LABEL: kernel partial
// CHECK: if (w < 64) {

kernel lanes(Y: i32[32]) block(32) {
  let t = threadIdx.x;
  Y[t % 32] = t / 32 + 4 * 8;
}
// CHECK-LABEL: kernel lanes
// CHECK: Y[t] = 32

// Equalities of values computed apart, decided on their linear forms with
// lets replaced by their values: a row-by-row pass over a lane's rows
// (g = lane / 4 and g + 8) compares each unrolled row i with each r; the
// pairs of one row are true, the others false, and no `if` is left.
// RUN: %tmc %s --emit=ir --kernel row_pass | FileCheck %s --check-prefix=ROWS
// RUN: %tmc run %s --kernel row_pass | FileCheck %s --check-prefix=RESULT
op rowsum4(X: f32[16, 4]) -> f32[16, 4] {
  out[i, j] = sum(k < 4) X[i, k];
}
kernel row_pass(X: f32[16, 4], Y: f32[16, 4]) implements rowsum4 block(32) {
  let m = repeat(2, 1) * spatial(8, 4);
  register v: f32[16, 4] by m;
  for (i, j) in m on threadIdx.x { v[i, j] = X[i, j]; }
  for (r, t) in m on threadIdx.x {
    var acc: f32 = 0.0;
    for (i, j) in m on threadIdx.x {
      if (i == r) { acc += v[i, j]; }
    }
    acc += shfl_xor(acc, 1);
    acc += shfl_xor(acc, 2);
    Y[r, t] = acc;
  }
}
// ROWS-LABEL: kernel row_pass
// ROWS-NOT: if
// ROWS: acc = (acc + v[0])
// ROWS-NOT: v[1]
// ROWS: Y[
// ROWS: acc = (acc + v[1])
// ROWS-NOT: v[0]
// ROWS: Y[

// Not decided: a comparison with a value of another lane (a shuffle) or
// with a variable that changes stays.
kernel undecided(X: i32[32], Y: i32[32]) block(32) {
  let w = threadIdx.x;
  let other = shfl_xor(w, 1);
  var k: i32 = X[w];
  if (w / 2 == other / 2) { Y[w] = 1; }
  if (k == k + 0 * w) { k = k + 1; }
  if (w + 1 == w) { Y[w] = 2; }
  Y[w] = k;
}
// CHECK-LABEL: kernel undecided
// CHECK: if ((w / 2) == (other / 2)) {
// CHECK: if (k == k) {
// CHECK-NOT: if
// CHECK: Y[w] = k

// `c ? A : B` reads its arms only under c; once unrolled, arms that can be
// computed whatever c is (registers at constant elements) make a select,
// one block; a read of global memory keeps its branch.
// RUN: %tmc %s --emit=ir --kernel masked | FileCheck %s --check-prefix=SELECT
// RUN: %tmc run %s --kernel masked --shape M=37,N=5 --check-bounds | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel masked --shape M=64,N=8 | FileCheck %s --check-prefix=RESULT
// RESULT: result:{{ +}}PASS
op scale_masked(X: f32[M, N], c: f32) -> f32[M, N] {
  out[i, j] = X[i, j] * c;
}
kernel masked(X: f32[M, N], c: f32, Y: f32[M, N]) implements scale_masked
    grid(cdiv(M, 32)) block(32) {
  let m = spatial(32, 1) * repeat(1, 8);
  register v: f32[32, 8] by m;
  for (i, j) in m on threadIdx.x {
    let gi = blockIdx.x * 32 + i;
    v[i, j] = gi < M && j < N ? X[gi, j] : 0.0;
  }
  for (i, j) in m on threadIdx.x {
    let gi = blockIdx.x * 32 + i;
    v[i, j] = j < N ? v[i, j] * c : -inf;
    if (gi < M && j < N) { Y[gi, j] = v[i, j]; }
  }
}
// SELECT-LABEL: kernel masked
// SELECT: if ((gi < M) && (j < N)) {
// SELECT-NEXT: sel = X[
// SELECT-NEXT: } else {
// SELECT-NEXT: sel = 0.0
// SELECT: sel = select((j < N), (v[{{[0-9]}}] * c), -inf)

// A device function has no block of its own: threadIdx.x ranges over any
// caller's block, so lane_id (threadIdx.x % 32) stays a remainder (it was
// folded to threadIdx.x, as if the block had one thread).
// RUN: %tmc %s --emit=ir --kernel lanes64 | FileCheck %s --check-prefix=DEVICE
// RUN: %tmc run %s --kernel lanes64 | FileCheck %s --check-prefix=RESULT
op lane_of(X: i32[64]) -> i32[64] {
  out[i] = i % 32;
}
func write_lanes(Y: i32[64]) {
  Y[threadIdx.x] = lane_id;
}
kernel lanes64(X: i32[64], Y: i32[64]) implements lane_of grid(1) block(64) {
  write_lanes(Y);
}
// DEVICE-LABEL: func write_lanes
// DEVICE: Y[threadIdx.x] = (threadIdx.x % 32)

// A read of a multi-dimensional register array is speculated only while
// it has one index per dimension: after flattening, `r[8]` of an f32[2,
// 4] could be any dimension's overflow (r[1, j] with j = 4..7 here, which
// the source reads only when j < n), so its branch stays.
// RUN: %tmc %s --emit=ir --kernel guarded_rows | FileCheck %s --check-prefix=ROWS2
// RUN: %tmc run %s --kernel guarded_rows --arg n=4 --check-bounds 2>&1 | FileCheck %s --check-prefix=RESULT
op first_half(X: f32[8], n: i32) -> f32[8] {
  out[j] = j < n ? X[4 + j] : 0.0;
}
kernel guarded_rows(X: f32[8], n: i32, Y: f32[8]) implements first_half grid(1) block(1) {
  register r: f32[2, 4];
  for i in unroll(2) { for j in unroll(4) { r[i, j] = X[i * 4 + j]; } }
  for j in unroll(8) {
    let v = j < n ? r[1, j] : 0.0;
    Y[j] = v;
  }
}
// ROWS2-LABEL: kernel guarded_rows
// ROWS2: sel = select((0 < n), r[4], 0.0)
// ROWS2: sel = select((3 < n), r[7], 0.0)
// ROWS2: if (4 < n) {
// ROWS2-NEXT: sel = r[8]
// ROWS2-NEXT: } else {
