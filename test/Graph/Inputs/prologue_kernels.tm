// Prologues fused into hand-written kernels (test/Graph/prologue_fusion.test).
import std.nn;
import std.matmul;  // matmul_simt reads A and B element by element; matmul_tc_t copies them with cp_async

op scale_cols(X: f32[R, C], s: f32[C]) -> f32[R, C] { out[i, j] = X[i, j] * s[j]; }

// relu into matmul_simt's loads of A; the bias add and GELU into its stores.
graph pro32(x: f32[M, K], w: f32[K, N], b: f32[N]) -> f32[M, N] {
  return gelu(matmul(relu(x), w) + b);
}

// Prologues on both operands; one reads two inputs, one broadcast.
graph both(x: f32[M, K], s: f32[K], w: f32[K, N]) -> f32[M, N] {
  return matmul(scale_cols(x, s), relu(w));
}

// matmul_tc_t copies A with cp_async: relu stays a kernel of its own.
graph pro16(x: f16[M, K], w: f16[K, N]) -> f16[M, N] {
  return matmul(relu(x), w);
}
