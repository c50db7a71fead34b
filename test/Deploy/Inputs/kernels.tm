// The module the deployment tests build into a library: a kernel with a
// scalar parameter (its op in an imported module) and a graph fused into
// a matmul.
import std.nn;
import std.matmul;
import ops;

kernel scale_rows<V: int in [1, 4] = 4>(X: f32[R, C], s: f32, Y: f32[R, C])
    implements scale
    grid(R) block(64)
{
  for c0 in range(cdiv(C, 64 * V)) {
    for j in spatial(64) * repeat(V) on threadIdx.x {
      let c = c0 * 64 * V + j;
      if (c < C) {
        Y[blockIdx.x, c] = X[blockIdx.x, c] * s;
      }
    }
  }
}

graph block(x: f32[M, 64], w: f32[64, 96], b: f32[96]) -> f32[M, 96] {
  return relu(matmul(x, w) + b);
}
