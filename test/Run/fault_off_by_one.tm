// A planted fault: an off-by-one store (`<=` instead of `<`) writes one
// element past the end of the output.
// RUN: not %tmc run %s --shape N=1000 --check-bounds 2>&1 | FileCheck %s
// --check-races alone still keeps memory safe: each access is checked
// against the flat extent of its tensor.
// RUN: not %tmc run %s --shape N=1000 --check-races 2>&1 | FileCheck %s --check-prefix=FLAT

op add(X: f32[N], Y: f32[N]) -> f32[N] { out[i] = X[i] + Y[i]; }

kernel add_off_by_one(X: f32[N], Y: f32[N], Z: f32[N]) implements add grid(cdiv(N, 256)) block(256) {
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g <= N) {
      Z[g] = X[g] + Y[g];
    }
  }
}
// CHECK: fault_off_by_one.tm:14:16: error: out-of-bounds read of 'X' in kernel 'add_off_by_one': X[1000]: index 1000 of dimension 0 is outside [0, 1000) (thread 232 of block (3, 0, 0))
// CHECK-NEXT: Z[g] = X[g] + Y[g];
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK: fault_off_by_one.tm:14:23: error: out-of-bounds read of 'Y'
// CHECK: fault_off_by_one.tm:14:9: error: out-of-bounds write of 'Z' in kernel 'add_off_by_one': Z[1000]: index 1000 of dimension 0 is outside [0, 1000)
// CHECK: 3 errors generated.
// FLAT: fault_off_by_one.tm:14:14: error: out-of-bounds read of 'X' in kernel 'add_off_by_one': element 1000 is outside [0, 1000) (thread 232 of block (3, 0, 0))
