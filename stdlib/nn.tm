// std.nn: neural-network operators (what to compute). Kernels that
// implement them live beside them in the stdlib (e.g. std.matmul).

op matmul(A: f32[M, K], B: f32[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) A[i, k] * B[k, j];
}

op relu(X: f32[R, C]) -> f32[R, C] {
  out[i, j] = max(X[i, j], 0.0);
}

op gelu(X: f32[R, C]) -> f32[R, C] {
  out[i, j] = 0.5 * X[i, j] * (1.0 + erf(X[i, j] * 0.7071067811865476));
}

op add_bias(X: f32[R, C], b: f32[C]) -> f32[R, C] {
  out[i, j] = X[i, j] + b[j];
}

op softmax(X: f32[R, C]) -> f32[R, C] {
  let m[r] = max(k < C) X[r, k];
  let s[r] = sum(k < C) exp(X[r, k] - m[r]);
  out[r, c] = exp(X[r, c] - m[r]) / s[r];
}

op row_sum(X: f32[R, C]) -> f32[R] {
  out[r] = sum(c < C) X[r, c];
}

op transpose(X: f32[R, C]) -> f32[C, R] {
  out[i, j] = X[j, i];
}

op matmul_f16(A: f16[M, K], B: f16[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}
