// unroll: constant-bounded loops marked unroll are replicated with the
// counter replaced; loops with run-time bounds stay loops.
// RUN: %tmc %s --emit=ir --print-after=unroll -o /dev/null 2>&1 | FileCheck %s

kernel k(X: f32[N]) block(1) {
  for i in unroll(3) {
    let v = X[i] * 2.0;
    X[i] = v;
  }
  for j in range(N) { X[j] = 0.0; }
}
// CHECK: IR after unroll
// CHECK: let v: f32 = (X[0] * 2.0)
// CHECK-NEXT: X[0] = v
// CHECK-NEXT: let v: f32 = (X[1] * 2.0)
// CHECK-NEXT: X[1] = v
// CHECK-NEXT: let v: f32 = (X[2] * 2.0)
// CHECK-NEXT: X[2] = v
// CHECK-NEXT: for j in [0, N) {
