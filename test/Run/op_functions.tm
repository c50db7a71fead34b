// Functions called from op bodies (a formula written once for the op and
// its kernel), `inf` literals, and the warning for a term a reduction's
// body swallows.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --kernel k --shape N=1000 | FileCheck %s
// RUN: %tmc run %s --kernel m --shape R=7,C=100 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel m --shape R=3,C=1 --seed 4 | FileCheck %s
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/k.cu && %nvcc -arch=sm_80 %t/k.cu -o %t/k.o
// RUN: %tmc %s 2>&1 | FileCheck %s --check-prefix=WARN
// CHECK: unwritten:  0 of
// CHECK: result:     PASS
// WARN: warning: 'b[r]' does not depend on 'c' but is in the body of 'sum' (a reduction's body extends to the right), so it is added at every iteration; to use it once, parenthesize the reduction: '(sum(...) ...) + b[r]' [-Wreduction-invariant-term]
// WARN: warning: 'b[r]' does not depend on 'c' but is in the body of 'max' {{.*}} so it is part of every iteration's value; {{.*}} '(max(...) ...) - b[r]'
// WARN: 2 warnings generated.
// RUN: %tmc run %s --kernel negsum_k --shape R=3,C=20 | FileCheck %s
// RUN: %tmc run %s --kernel negmax_k --shape R=3,C=20 | FileCheck %s
// RUN: %tmc run %s --kernel fill_inf_k --shape N=40 | FileCheck %s
// RUN: not %tmc run %s --kernel divide_k --shape N=10 2>&1 | FileCheck %s --check-prefix=DIV0
// DIV0: error: reference evaluation failed: integer division by zero in the op: (X[i] / (i - i))

func gelu(x: f32) -> f32 {
  let c = 0.7978845608;
  return 0.5 * x * (1.0 + tanh(c * (x + 0.044715 * x * x * x)));
}
func clampf(x: f32, lo: f32) -> f32 {
  if (x < lo) { return lo; }
  return x;
}
op gelu_op(X: f32[N]) -> f32[N] { out[i] = gelu(clampf(X[i], -inf)); }
op rowmax(X: f32[R, C]) -> f32[R] { out[r] = max(c < C) X[r, c]; }
op biased(X: f32[R, C], b: f32[R]) -> f32[R] { out[r] = sum(c < C) X[r, c] * 2.0 + b[r]; }
kernel k(X: f32[N], Y: f32[N]) implements gelu_op grid(cdiv(N, 64)) block(64) {
  let i = blockIdx.x * 64 + threadIdx.x;
  if (i < N) { Y[i] = gelu(clampf(X[i], -inf)); }
}
kernel m(X: f32[R, C], Y: f32[R]) implements rowmax grid(R) block(32) {
  var v: f32 = -inf;
  for c in range(lane_id, C, 32) { v = max(v, X[blockIdx.x, c]); }
  for s in unroll(5) { v = max(v, shfl_xor(v, 1 << s)); }
  if (lane_id == 0) { Y[blockIdx.x] = v; }
}
op biased_max(X: f32[R, C], b: f32[R]) -> f32[R] { out[r] = max(c < C) X[r, c] - b[r]; }
// A body that starts with a sign is the reduction's (not a call of
// 'sum' minus a term), and takes the operators to its right.
op negsum(X: f32[R, C]) -> f32[R] { out[r] = sum(c < C) -X[r, c] * 2.0; }
op negmax(X: f32[R, C]) -> f32[R] { out[r] = (max(c < C) -X[r, c]) + 1.0; }
kernel negsum_k(X: f32[R, C], Y: f32[R]) implements negsum grid(R) block(1) {
  var s: f32 = 0.0;
  for c in range(C) { s += -X[blockIdx.x, c] * 2.0; }
  Y[blockIdx.x] = s;
}
kernel negmax_k(X: f32[R, C], Y: f32[R]) implements negmax grid(R) block(1) {
  var s: f32 = -inf;
  for c in range(C) { s = max(s, -X[blockIdx.x, c]); }
  Y[blockIdx.x] = s + 1.0;
}
// inf in every float type.
op fill_inf(X: f16[N]) -> f16[N] { out[i] = max(X[i], -inf); }
kernel fill_inf_k(X: f16[N], Y: f16[N]) implements fill_inf grid(cdiv(N, 32)) block(32) {
  let i = blockIdx.x * 32 + threadIdx.x;
  var m: f16 = -inf;
  let b: bf16 = inf;
  if (i < N && f32(b) > 0.0) { Y[i] = max(X[i], m); }
}
// Integer division by zero in the op is an error of the reference.
op divide(X: i32[N]) -> i32[N] { out[i] = X[i] / (i - i); }
kernel divide_k(X: i32[N], Y: i32[N]) implements divide grid(1) block(32) {
  if (threadIdx.x < N) { Y[threadIdx.x] = X[threadIdx.x]; }
}
// Parenthesized, or depending on the variable: no warning.
op biased_ok(X: f32[R, C], b: f32[R]) -> f32[R] { out[r] = (sum(c < C) X[r, c] * 2.0) + b[r]; }
op weighted(X: f32[R, C], w: f32[C]) -> f32[R] { out[r] = sum(c < C) X[r, c] + w[c]; }
