// A library whose kernels a compile of another file's kernels parses
// without their bodies (skipped_kernel_bodies.test).
import std.nn;  // op relu

let WIDTH = 64;

func twice(x: f32) -> f32 { return 2.0 * x; }

kernel lib_relu<LIB_BLOCK: int in [32, 64, 128] = 64>(X: f32[R, C], Y: f32[R, C]) implements relu
    where LIB_BLOCK >= WIDTH grid(R) block(LIB_BLOCK) {
  for t in spatial(LIB_BLOCK) on threadIdx.x {
    var j = t;
    while (j < C) {
      if (X[blockIdx.x, j] > 0.0) { Y[blockIdx.x, j] = X[blockIdx.x, j]; } else { Y[blockIdx.x, j] = 0.0; }
      j = j + LIB_BLOCK;
    }
  }
}

kernel lib_broken(X: f32[N], Y: f32[N]) block(32) {
  for t in spatial(32) on threadIdx.x {
    if (t < N) { Y[t] = undefined_name; }
  }
}
