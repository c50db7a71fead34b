// A planted fault: the staging copy of the last tile has no guard, so
// cp_async reads past the end of X when N does not divide the tile. Every
// element of a copy is checked, not only the first.
// RUN: %tmc run %s --shape N=2048 --check-bounds | FileCheck %s --check-prefix=DIVIDES
// RUN: not %tmc run %s --shape N=1000 --check-bounds 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: not %tmc run %s --shape N=1001 --check-bounds 2>&1 | FileCheck %s --check-prefix=LAST

op scale(X: f32[N]) -> f32[N] { out[i] = X[i] * 2.0; }

kernel stage_unguarded(X: f32[N], Y: f32[N]) implements scale grid(cdiv(N, 1024)) block(256) {
  shared s: f32[1024];
  let base = blockIdx.x * 1024;
  for i in spatial(256) on threadIdx.x {
    cp_async(s[4 * i], X[base + 4 * i], 16);
  }
  cp_async_commit();
  cp_async_wait(0);
  sync;
  for i in repeat(4) * spatial(256) on threadIdx.x {
    if (base + i < N) { Y[base + i] = s[i] * 2.0; }
  }
}
// DIVIDES: result: {{ *}}PASS
// FIRST: fault_cp_async_bounds.tm:14:5: error: out-of-bounds read of 'X' by a cp_async of 16 bytes in kernel 'stage_unguarded': element 1000 is outside [0, 1000) (thread 250 of block (0, 0, 0); 6 such copies)
// LAST: fault_cp_async_bounds.tm:14:5: error: out-of-bounds read of 'X' by a cp_async of 16 bytes in kernel 'stage_unguarded': element 1001 is outside [0, 1001) (thread 250 of block (0, 0, 0); 6 such copies)
