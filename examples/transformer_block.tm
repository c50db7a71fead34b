// The feed-forward half of a transformer block, as a graph: layer norm,
// matmul + bias, GELU, matmul + bias, and the residual. The compiler
// partitions it around its three anchors (the ops that reduce): the bias
// adds, the GELU and the residual ride in the matmuls' epilogues, so the
// block is three kernels. See the partition with
//   tmc examples/transformer_block.tm --emit=graph

import std.nn;      // ops matmul, gelu
import std.matmul;  // matmul_tc_t: a tensor-core kernel that implements matmul for f16

op layer_norm<T>(X: T[R, C], g: T[C], b: T[C]) -> T[R, C] {
  let m[r] = sum(c < C) f32(X[r, c]) / f32(C);
  let v[r] = sum(c < C) (f32(X[r, c]) - m[r]) * (f32(X[r, c]) - m[r]) / f32(C);
  out[r, c] = (f32(X[r, c]) - m[r]) * rsqrt(v[r] + 1e-5) * f32(g[c]) + f32(b[c]);
}

graph ffn_block(x: f16[M, 768], g: f16[768], beta: f16[768], w1: f16[768, 3072], b1: f16[3072],
                w2: f16[3072, 768], b2: f16[768]) -> f16[M, 768] {
  let h = layer_norm(x, g, beta);
  let u = gelu(matmul(h, w1) + b1);
  return matmul(u, w2) + b2 + x;
}
