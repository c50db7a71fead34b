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
