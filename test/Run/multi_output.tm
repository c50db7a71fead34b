// Ops with several results and kernels with several outputs: layernorm
// writes Y, mean and rstd; tmc run checks every output against its result.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --kernel ln_warp --shape R=7,C=100 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel ln_warp --shape R=33,C=1 --seed 5 | FileCheck %s
// RUN: not %tmc run %s --kernel ln_forgets_rstd --shape R=5,C=40 | FileCheck %s --check-prefix=FORGOT
// RUN: %tmc %s --emit=meta | FileCheck %s --check-prefix=META
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/k.cu && %nvcc -arch=sm_80 %t/k.cu -o %t/k.o
// RUN: not %tmc run %s --kernel ln_warp --shape R=2,C=8 --save-case %t/case 2>&1 | FileCheck %s --check-prefix=SAVE
// CHECK: reference:  op layernorm (f64)
// CHECK-NEXT: output:     Y (result 'Y' of layernorm)
// CHECK: unwritten:  0 of
// CHECK-NEXT: output:     mean (result 'mean' of layernorm)
// CHECK: unwritten:  0 of
// CHECK-NEXT: output:     rstd (result 'rstd' of layernorm)
// CHECK: unwritten:  0 of
// CHECK-NEXT: result:     PASS
// FORGOT: output:     rstd
// FORGOT: unwritten:  5 of 5
// FORGOT-NEXT: result:     FAIL
// META: {"name": "X", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"], "layout": "row_major"},
// META: {"name": "Y", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"], "layout": "row_major", "output": true},
// META: {"name": "mean", "kind": "tensor", "dtype": "f32", "shape": ["R"], "layout": "row_major", "output": true},
// SAVE: --save-case replays kernels with one output; 'ln_warp' has 3

op layernorm(X: f32[R, C], g: f32[C], b: f32[C]) -> (Y: f32[R, C], mean: f32[R], rstd: f32[R]) {
  let m[r] = sum(c < C) X[r, c] / f32(C);
  let v[r] = sum(c < C) (X[r, c] - m[r]) * (X[r, c] - m[r]) / f32(C);
  let s[r] = rsqrt(v[r] + 1e-5);
  Y[r, c] = (X[r, c] - m[r]) * s[r] * g[c] + b[c];
  mean[r] = m[r];
  rstd[r] = s[r];
}

// One warp per row; the statistics in f32, two passes over the row.
kernel ln_warp(X: f32[R, C], g: f32[C], b: f32[C], Y: f32[R, C], mean: f32[R], rstd: f32[R])
    implements layernorm grid(R) block(32)
{
  let r = blockIdx.x;
  var s: f32 = 0.0;
  for c in range(lane_id, C, 32) { s += X[r, c]; }
  for k in unroll(5) { s += shfl_xor(s, 1 << k); }
  let m = s / f32(C);
  var q: f32 = 0.0;
  for c in range(lane_id, C, 32) { let d = X[r, c] - m; q += d * d; }
  for k in unroll(5) { q += shfl_xor(q, 1 << k); }
  let rs = rsqrt(q / f32(C) + 1e-5);
  for c in range(lane_id, C, 32) { Y[r, c] = (X[r, c] - m) * rs * g[c] + b[c]; }
  if (lane_id == 0) { mean[r] = m; rstd[r] = rs; }
}

kernel ln_forgets_rstd(X: f32[R, C], g: f32[C], b: f32[C], Y: f32[R, C], mean: f32[R], rstd: f32[R])
    implements layernorm grid(R) block(32)
{
  let r = blockIdx.x;
  var s: f32 = 0.0;
  for c in range(lane_id, C, 32) { s += X[r, c]; }
  for k in unroll(5) { s += shfl_xor(s, 1 << k); }
  let m = s / f32(C);
  var q: f32 = 0.0;
  for c in range(lane_id, C, 32) { let d = X[r, c] - m; q += d * d; }
  for k in unroll(5) { q += shfl_xor(q, 1 << k); }
  let rs = rsqrt(q / f32(C) + 1e-5);
  for c in range(lane_id, C, 32) { Y[r, c] = (X[r, c] - m) * rs * g[c] + b[c]; }
  if (lane_id == 0) { mean[r] = m; }
}
