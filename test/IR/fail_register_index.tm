// A register array indexed at run time cannot stay in registers: a warning
// at the statement, not silent local memory.
// RUN: %tmc %s --emit=ir --verify-diagnostics > /dev/null
// A plain check gives the same warning (it runs the whole lowering).
// RUN: %tmc %s --verify-diagnostics
// RUN: %tmc %s 2>&1 | FileCheck %s
// RUN: not %tmc %s -Werror 2>&1 | FileCheck %s --check-prefix=WERROR

kernel k(X: f32[N], n: i32) block(32) {
  register r: f32[8];
  for i in unroll(8) { r[i] = X[i]; }          // constant indices after unrolling: fine
  for i in range(n) {
    X[i] = r[i % 8];                           // expected-warning {{register array 'r' is indexed by a run-time value, so it lives in local memory}}
  }
}
// CHECK: fail_register_index.tm:[[@LINE-3]]:5: warning: register array 'r' is indexed by a run-time value, so it lives in local memory; iterate with unroll(...) to keep it in registers [-Wregister-index-not-constant]
// CHECK: 1 warning generated.
// WERROR: error: register array 'r' {{.*}} [-Werror,-Wregister-index-not-constant]
