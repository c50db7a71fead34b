// Graphs from an outsider's try of --graph that once failed
// (test/Graph/graph_kernels.test): a square weight, where one graph
// dimension fills two dimensions of the hand-written matmul; a group
// without an anchor whose op a hand-written kernel implements (it
// crashed); a dimension written as an expression; a scalar graph
// parameter in an epilogue; a literal argument of an automatic anchor.
import std.nn;
import std.matmul;       // matmul_simt implements matmul for f32
import std.elementwise;  // relu_rows implements relu

graph square(x: f32[M, D], w: f32[D, D]) -> f32[M, D] {
  return matmul(x, w);
}

graph square_const(x: f32[M, 40], w: f32[40, 40], b: f32[40]) -> f32[M, 40] {
  return relu(matmul(x, w) + b);
}

graph relu_only(x: f32[M, N]) -> f32[M, N] {
  return relu(x);
}

graph expr_dim(x: f32[M, 2 * N], n: f32[N]) -> f32[M, 2 * N] {
  return x * 0.5;
}

op leaky_relu(X: f32[R, C], alpha: f32) -> f32[R, C] {
  out[i, j] = X[i, j] > 0.0 ? X[i, j] : alpha * X[i, j];
}

graph leaky(x: f32[M, K], w: f32[K, N], alpha: f32) -> f32[M, N] {
  return leaky_relu(matmul(x, w), alpha) * alpha;
}

op scaled_softmax(X: f32[R, C], s: f32) -> f32[R, C] {
  let m[r] = max(k < C) X[r, k] * s;
  let e[r] = sum(k < C) exp(X[r, k] * s - m[r]);
  out[r, c] = exp(X[r, c] * s - m[r]) / e[r];
}

graph scaled(x: f32[M, N]) -> f32[M, N] {
  return scaled_softmax(x, 2.0) + 1.0;
}

// From a second outsider's try: a residual through a square weight (the
// input is read by the anchor as [M, K] and by the epilogue as [M, N], so
// it is passed twice); a transposed operand as a prologue of matmul_simt
// (its dimensions named through the transpose); an integer literal with a
// float tensor.
graph square_residual(x: f32[M, D], w: f32[D, D]) -> f32[M, D] {
  return matmul(x, w) + x;
}

graph qk(q: f32[M, D], k: f32[N, D]) -> f32[M, N] {
  return matmul(q, transpose(k));
}

graph int_literal(x: f32[M, N]) -> f32[M, N] {
  return relu(x) * 2 + 1;
}
