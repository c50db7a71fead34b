// Graphs with several results (test/Graph/multi_result.test).
import std.nn;

op rmean(X: f32[R, C]) -> f32[R] { out[r] = sum(c < C) X[r, c] / f32(C); }

// Two results from two kernels; the matmul's value is also a result and
// is read by a later kernel (from the result's memory, not the workspace).
graph two(x: f32[R, C], w: f32[C, N]) -> (y: f32[R, N], m: f32[R]) {
  let h = matmul(x, w);
  return relu(h), rmean(x);
}

graph reused(x: f32[R, C], w: f32[C, N]) -> (h: f32[R, N], s: f32[R]) {
  let h = matmul(x, w);
  let s = row_sum(relu(h));
  return h, s;
}
