// A library of kernels, imported by harness_import.tm: tmc run finds
// kernels in imports, and runs a library file on its own.
import std.nn;  // op relu

kernel relu_rows(X: f32[R, C], Y: f32[R, C]) implements relu grid(R) block(64) {
  for c in spatial(64) on threadIdx.x {
    var j = c;
    while (j < C) {
      Y[blockIdx.x, j] = max(X[blockIdx.x, j], 0.0);
      j = j + 64;
    }
  }
}
