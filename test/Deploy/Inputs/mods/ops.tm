// An imported module of the test library: editing it rebuilds the library.
op scale(X: f32[R, C], s: f32) -> f32[R, C] {
  out[i, j] = X[i, j] * s;
}
