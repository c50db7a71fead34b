// An op's result dimension that no input determines (a crop's size, a
// convolution's output size) is given by the caller with the result: tmc
// run binds it from --shape through the kernel's output, and the reference
// evaluates over it.
// RUN: %tmc run %s --shape M=20,N=30,P=7,Q=9 --arg r0=3,c0=5 --check-bounds | FileCheck %s
// RUN: %tmc run %s --shape M=9,N=9,P=9,Q=9 --arg r0=0,c0=0 --seed 2 | FileCheck %s
// A size the input cannot serve is an error, not a wrong result.
// RUN: not %tmc run %s --shape M=5,N=5,P=4,Q=4 --arg r0=3,c0=0 --check-bounds 2>&1 | FileCheck %s --check-prefix=RANGE
// CHECK: unwritten:  0 of
// CHECK: result:     PASS
// RANGE: error: out-of-bounds read of 'X' in kernel 'crop_rows': X[5, 0]

op crop(X: f32[M, N], r0: i32, c0: i32) -> f32[P, Q] {
  out[i, j] = X[i + r0, j + c0];
}

kernel crop_rows(X: f32[M, N], r0: i32, c0: i32, Y: f32[P, Q]) implements crop grid(P) block(128) {
  for j in range(threadIdx.x, Q, 128) { Y[blockIdx.x, j] = X[blockIdx.x + r0, j + c0]; }
}
