// A register array indexed at run time cannot stay in registers: a warning
// at the statement, not silent local memory.
// RUN: %tmc %s --emit=ir --verify-diagnostics > /dev/null

kernel k(X: f32[N], n: i32) block(32) {
  register r: f32[8];
  for i in unroll(8) { r[i] = X[i]; }          // constant indices after unrolling: fine
  for i in range(n) {
    X[i] = r[i % 8];                           // expected-warning {{register array 'r' is indexed by a run-time value, so it lives in local memory}}
  }
}
