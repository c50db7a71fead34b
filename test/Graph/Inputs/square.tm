// matmul(x, x): one value feeds both of matmul_simt's parameters, which
// fusion cannot rewrite; the group is compiled with the automatic schedule,
// and --emit=graph says so.
import std.nn;
import std.matmul;

graph sq(x: f32[N, N]) -> f32[N, N] {
  return matmul(x, x);
}
