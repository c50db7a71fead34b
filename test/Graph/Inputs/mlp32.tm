// An f32 MLP layer with no hand-written matmul in sight (only std.nn):
// its one kernel is the fused op's automatic schedule
// (test/Graph/graph_kernels.test).
import std.nn;

graph mlp32(x: f32[M, K], w: f32[K, N], b: f32[N]) -> f32[M, N] {
  return gelu(matmul(x, w) + b);
}
