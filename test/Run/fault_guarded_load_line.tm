// A faulting load is reported at the expression that performs it: inside a
// guarded ternary (`c ? X[...] : 0.0`, lowered to a branch), inside a `let`,
// and inside a device function, never at an earlier statement's line.
// RUN: not %tmc run %s --kernel ternary --shape N=100 --check-bounds 2>&1 | FileCheck %s --check-prefix=TERNARY
// RUN: not %tmc run %s --kernel in_let --shape N=100 --check-bounds 2>&1 | FileCheck %s --check-prefix=LET
// RUN: not %tmc run %s --kernel in_func --shape N=100 --check-bounds 2>&1 | FileCheck %s --check-prefix=FUNC

op shift(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel ternary(X: f32[N], Y: f32[N]) implements shift grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  let scale = 2.0;
  if (i < N) {
    let v = (i <= N) ?
        X[i + 1] * scale : 0.0;
    Y[i] = v;
  }
}
// TERNARY: fault_guarded_load_line.tm:[[@LINE-4]]:11: error: out-of-bounds read of 'X' in kernel 'ternary': X[100]: index 100 of dimension 0 is outside [0, 100) (thread 99 of block (0, 0, 0))
// TERNARY-NEXT: X[i + 1] * scale : 0.0;

kernel in_let(X: f32[N], Y: f32[N]) implements shift grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) {
    let a = X[i];
    let b = X[i + 1];
    Y[i] = a + b;
  }
}
// LET: fault_guarded_load_line.tm:[[@LINE-4]]:15: error: out-of-bounds read of 'X' in kernel 'in_let': X[100]: index 100

func at(X: f32[N], k: i32) -> f32 {
  return X[k + 1];
}

kernel in_func(X: f32[N], Y: f32[N]) implements shift grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) {
    Y[i] = at(X, i);
  }
}
// FUNC: fault_guarded_load_line.tm:[[@LINE-9]]:12: error: out-of-bounds read of 'X' in kernel 'in_func': X[100]: index 100
