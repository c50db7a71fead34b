// std.nn: neural-network operators (what to compute). The ops are generic
// over a floating-point element type T (f16, bf16, f32 or f64), bound by
// each call or by the kernel that implements them.

op matmul<T>(A: T[M, K], B: T[K, N]) -> T[M, N] {
  out[i, j] = sum(k < K) A[i, k] * B[k, j];
}

op relu<T>(X: T[R, C]) -> T[R, C] {
  out[i, j] = max(X[i, j], 0.0);
}

op gelu<T>(X: T[R, C]) -> T[R, C] {
  out[i, j] = 0.5 * X[i, j] * (1.0 + erf(X[i, j] * 0.7071067811865476));
}

op add_bias<T>(X: T[R, C], b: T[C]) -> T[R, C] {
  out[i, j] = X[i, j] + b[j];
}

op softmax<T>(X: T[R, C]) -> T[R, C] {
  let m[r] = max(k < C) X[r, k];
  let s[r] = sum(k < C) exp(X[r, k] - m[r]);
  out[r, c] = exp(X[r, c] - m[r]) / s[r];
}

op row_sum<T>(X: T[R, C]) -> T[R] {
  out[r] = sum(c < C) X[r, c];
}

op transpose<T>(X: T[R, C]) -> T[C, R] {
  out[i, j] = X[j, i];
}

// f32 accumulation and result, whatever T (the tensor-core kernels of
// std.matmul and std.hopper implement it).
op matmul_acc<T>(A: T[M, K], B: T[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

op matmul_f16(A: f16[M, K], B: f16[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}
