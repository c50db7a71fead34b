// A custom operator fused into a matmul. Squared ReLU (Primer, So et al.
// 2021) is defined once, as an op; the graph applies it to a matmul's
// result and the compiler computes it in the matmul kernel's epilogue,
// where the result is stored: one kernel, no intermediate tensor.
//   tmc examples/custom_op_fusion.tm --emit=graph
// The op alone compiles too, with an automatic schedule:
//   tmc run examples/custom_op_fusion.tm --op relu2 --shape R=64,C=1000

import std.nn;      // op matmul
import std.matmul;  // matmul_tc_t: a tensor-core kernel that implements matmul for f16

op relu2<T>(X: T[R, C]) -> T[R, C] {
  out[i, j] = max(X[i, j], 0.0) * max(X[i, j], 0.0);
}

graph ffn_relu2(x: f16[M, 1024], w: f16[1024, 4096]) -> f16[M, 4096] {
  return relu2(matmul(x, w));
}
