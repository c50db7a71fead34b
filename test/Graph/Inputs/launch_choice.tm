// matmul_tc_t serves only K % 8 == 0 and N % 8 == 0
// (test/Graph/graph_plan_run.test): with symbolic dimensions, the plan
// follows it with the fused op's automatic schedule, launched where its
// conditions fail; with a constant N = 100 it is never chosen.
import std.nn;
import std.matmul;

graph sym(x: f16[M, K], w: f16[K, N], b: f16[N]) -> f16[M, N] {
  return gelu(matmul(x, w) + b);
}

graph n100(x: f16[M, 64], w: f16[64, 100], b: f16[100]) -> f16[M, 100] {
  return gelu(matmul(x, w) + b);
}
