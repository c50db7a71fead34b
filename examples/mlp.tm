// A graph: ops composed over whole tensors. The compiler partitions it
// around the anchor (matmul) and fuses the bias add and GELU into the
// matmul kernel's epilogue.

import std.nn;      // ops matmul, gelu
import std.matmul;  // matmul_tc_t: a tensor-core kernel that implements matmul for f16

graph mlp(x: f16[M, 768], w: f16[768, 3072], b: f16[3072]) -> f16[M, 3072] {
  let h = matmul(x, w);
  return gelu(h + b);
}
