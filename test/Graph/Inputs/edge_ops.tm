// Ops whose automatic kernels exercise the corners of the rules
// (test/Graph/auto_schedule_run.test): reads guarded by ternaries and &&,
// integer reductions, scalar lets and parameters, reductions under a
// condition, full and two-variable reductions, f64, rank 3, functions.
func sq(x: f32) -> f32 { return x * x; }

// shifted read guarded by a ternary over an inlined intermediate
op shift_prev(X: f32[N]) -> f32[N] {
  let t[i] = X[i] * 2.0;
  out[i] = i > 0 ? t[i - 1] : 0.0;
}
// && short-circuit guarding a read
op guarded(X: f32[R, C]) -> f32[R, C] {
  out[i, j] = (j + 1 < C && X[i, j + 1] > 0.0) ? 1.0 : sq(X[i, j]);
}
// integer tensors: max reduction of ints
op imax_rows(X: i32[R, C]) -> i32[R] {
  out[r] = max(c < C) X[r, c];
}
// scalar let, scalar param, intermediate used at the same row
op scaled_norm(X: f16[R, C], eps: f32) -> f16[R, C] {
  let half = 0.5;
  let ss[r] = sum(c < C) f32(X[r, c]) * f32(X[r, c]);
  out[r, c] = f16(f32(X[r, c]) * rsqrt(ss[r] / f32(C) + eps) * half);
}
// reduction inside a ternary of a row result
op cond_sum(X: f32[R, C]) -> f32[R] {
  out[r] = r > 2 ? sum(c < C) X[r - 1, c] : 0.0;
}
// full reduction to one element
op total(X: f32[N]) -> f32[1] {
  out[i] = sum(k < N) X[k];
}
// two-variable reduction
op sum2(X: f32[A, B, C]) -> f32[A] {
  out[a] = sum(b < B, c < C) X[a, b, c];
}
// f64
op dsq(X: f64[N]) -> f64[N] { out[i] = X[i] * X[i]; }
// rank 3 injective broadcast
op bcast3(X: f32[A, B, C], y: f32[C]) -> f32[A, B, C] { out[a, b, c] = X[a, b, c] - y[c]; }
