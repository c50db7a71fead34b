// A planted fault: vector addition without its bounds guard. Correct when
// the size divides the tile; at N = 1000 the last block reads and writes
// past the end.
// RUN: %tmc run %s --shape N=2048 --check-bounds | FileCheck %s --check-prefix=DIVIDES
// RUN: not %tmc run %s --shape N=1000 --check-bounds 2>&1 | FileCheck %s

op add(X: f32[N], Y: f32[N]) -> f32[N] { out[i] = X[i] + Y[i]; }

kernel add_unguarded(X: f32[N], Y: f32[N], Z: f32[N]) implements add grid(cdiv(N, 1024)) block(256) {
  for i in repeat(4) * spatial(256) on threadIdx.x {
    let g = blockIdx.x * 1024 + i;
    Z[g] = X[g] + Y[g];
  }
}
// DIVIDES: result:     PASS
// CHECK: fault_guard_removed.tm:12:12: error: out-of-bounds read of 'X' in kernel 'add_unguarded': X[1000]: index 1000 of dimension 0 is outside [0, 1000) (thread 232 of block (0, 0, 0); 24 such accesses)
// CHECK: error: out-of-bounds write of 'Z'
