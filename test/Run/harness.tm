// The tmc run harness: NaN and Inf reported as such, scalar arguments,
// tolerances, output initialisation, unwritten elements of every type.
//
// NaN where the reference has NaN too agrees; a NaN the reference does not
// have fails, and is not called unwritten.
// RUN: %tmc run %s --kernel log_of --shape N=100 | FileCheck %s --check-prefix=NAN-AGREE
// NAN-AGREE: NaN: {{ *}}100 of 100 (the reference has 100; 0 where they disagree)
// NAN-AGREE: unwritten: {{ *}}0 of 100
// NAN-AGREE: result: {{ *}}PASS
// RUN: not %tmc run %s --kernel nan_bug --shape N=100 | FileCheck %s --check-prefix=NAN-BUG
// NAN-BUG-NOT: -nan
// NAN-BUG: NaN: {{ *}}100 of 100 (the reference has 0; 100 where they disagree)
// NAN-BUG: unwritten: {{ *}}0 of 100
// NAN-BUG: result: {{ *}}FAIL
//
// Scalar arguments: --arg, type-checked; a typo lists the parameters.
// RUN: %tmc run %s --kernel axpb --shape N=50 --arg alpha=2.5,beta=-3 | FileCheck %s --check-prefix=PASS
// RUN: %tmc run %s --kernel axpb --shape N=50 | FileCheck %s --check-prefix=PASS
// RUN: not %tmc run %s --kernel axpb --shape N=50 --arg alpah=1 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: tmc: error: kernel 'axpb' has no scalar parameter 'alpah' (its scalar parameters: alpha, beta)
// RUN: not %tmc run %s --kernel axpb --shape N=50 --arg alpha=fast 2>&1 | FileCheck %s --check-prefix=BADVALUE
// BADVALUE: tmc: error: invalid value 'fast' for scalar parameter 'alpha' of type f32: expected a number
// RUN: not %tmc run %s --kernel axpb --shape N=50 --arg beta=3000000000 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: tmc: error: invalid value '3000000000' for scalar parameter 'beta' of type i32: out of range for i32
// RUN: not %tmc run %s --kernel axpb --shape N=50 --arg alpha=1 --arg alpha=2 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: tmc: error: --arg gives 'alpha' twice
// RUN: not %tmc run %s --kernel axpb --shape N=4,N=5 2>&1 | FileCheck %s --check-prefix=SHAPE-TWICE
// SHAPE-TWICE: tmc: error: --shape gives 'N' twice
//
// A sum that cancels to near zero: the relative error is large, the
// absolute error tiny; judged by atol + rtol * |ref| per element.
// RUN: %tmc run %s --kernel cancel --shape R=8,C=100 | FileCheck %s --check-prefix=PASS
// RUN: not %tmc run %s --kernel cancel --shape R=8,C=100 --atol 0 | FileCheck %s --check-prefix=FAIL
// RUN: not %tmc run %s --kernel cancel --shape R=8,C=100 --rtol=-1 2>&1 | FileCheck %s --check-prefix=BADTOL
// BADTOL: tmc: error: invalid tolerance '-1' (expected a number >= 0)
//
// Accumulating kernels: NaN poison by default (the sum stays NaN),
// --init-output=zero starts from zero.
// RUN: not %tmc run %s --kernel accumulate --shape R=4,C=96 | FileCheck %s --check-prefix=FAIL
// RUN: %tmc run %s --kernel accumulate --shape R=4,C=96 --init-output=zero | FileCheck %s --check-prefix=ZERO
// ZERO: unwritten: {{ *}}not checked (--init-output=zero)
// ZERO: result: {{ *}}PASS
//
// Unwritten elements are found for every type, bool included; an integer
// kernel that writes the poison's own value is not flagged.
// RUN: not %tmc run %s --kernel bool_unwritten --shape N=10 | FileCheck %s --check-prefix=BOOL
// BOOL: unwritten: {{ *}}10 of 10
// BOOL: result: {{ *}}FAIL
// RUN: %tmc run %s --kernel writes_sentinel --shape N=10 | FileCheck %s --check-prefix=PASS
//
// Launch formulas that cannot be evaluated are named.
// RUN: not %tmc run %s --kernel by_step --shape N=10 --arg step=0 2>&1 | FileCheck %s --check-prefix=DIVZERO
// DIVZERO: tmc: error: grid dimension 0 ((N + (step - 1)) / step) divides by zero for these shapes
// RUN: not %tmc run %s --kernel by_step --shape N=10 --arg step=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: tmc: error: grid dimension 0 ({{.*}}) is {{-?[0-9]+}} for these shapes; it must be positive
// RUN: not %tmc run %s --kernel by_step --shape N=10 --arg step=1,reps=70000 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: tmc: error: grid dimension 1 (reps) is 70000 for these shapes, over the limit of 65535 blocks in that dimension
// RUN: %tmc run %s --kernel by_step --shape N=10 --arg step=1,reps=2 | FileCheck %s --check-prefix=PASS
// A step that skips elements leaves them unwritten.
// RUN: not %tmc run %s --kernel by_step --shape N=10 --arg step=3,reps=2 | FileCheck %s --check-prefix=SKIPS
// SKIPS: unwritten: {{ *}}6 of 10
//
// --save-case to a path that cannot be written says why.
// RUN: not %tmc run %s --kernel axpb --shape N=50 --save-case /proc/no/such/dir 2>&1 | FileCheck %s --check-prefix=SAVE
// SAVE: tmc: error: --save-case: cannot create '/proc/no/such/dir':
//
// PASS: result: {{ *}}PASS
// FAIL: result: {{ *}}FAIL

op log_abs(X: f32[N]) -> f32[N] { out[i] = log(-abs(X[i])); }
op identity(X: f32[N]) -> f32[N] { out[i] = X[i]; }
op affine(X: f32[N], alpha: f32, beta: i32) -> f32[N] { out[i] = alpha * X[i] + f32(beta); }
op cancelling(X: f32[R, C]) -> f32[R] { out[r] = sum(c < C) X[r, c] - X[r, C - 1 - c]; }
op rows(X: f32[R, C]) -> f32[R] { out[r] = sum(c < C) X[r, c]; }
op positive(X: f32[N]) -> bool[N] { out[i] = X[i] > 0.0; }
op sentinel(X: f32[N]) -> i8[N] { out[i] = i8(-91); }
op copy(X: f32[N], step: i32, reps: i32) -> f32[N] { out[i] = X[i]; }

kernel log_of(X: f32[N], Y: f32[N]) implements log_abs grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) { Y[i] = log(-abs(X[i])); }
}

kernel nan_bug(X: f32[N], Y: f32[N]) implements identity grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) { Y[i] = sqrt(-abs(X[i])); }
}

kernel axpb(X: f32[N], alpha: f32, beta: i32, Y: f32[N]) implements affine grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) { Y[i] = alpha * X[i] + f32(beta); }
}

kernel cancel(X: f32[R, C], Y: f32[R]) implements cancelling grid(R) block(1) {
  var acc = 0.0;
  for c in range(C) { acc = acc + X[blockIdx.x, c]; }
  for c in range(C) { acc = acc - X[blockIdx.x, c]; }
  Y[blockIdx.x] = acc;
}

kernel accumulate(X: f32[R, C], Y: f32[R]) implements rows grid(R) block(32) {
  for c in spatial(32) on threadIdx.x {
    var part = 0.0;
    var j = c;
    while (j < C) { part = part + X[blockIdx.x, j]; j = j + 32; }
    atomic_add(Y[blockIdx.x], part);
  }
}

kernel bool_unwritten(X: f32[N], Y: bool[N]) implements positive grid(1) block(32) {
}

kernel writes_sentinel(X: f32[N], Y: i8[N]) implements sentinel grid(1) block(32) {
  if (threadIdx.x < N) { Y[threadIdx.x] = i8(-91); }
}

kernel by_step(X: f32[N], step: i32, reps: i32, Y: f32[N]) implements copy grid(cdiv(N, step), reps) block(1) {
  if (blockIdx.y == 0 && blockIdx.x * step < N) { Y[blockIdx.x * step] = X[blockIdx.x * step]; }
}
