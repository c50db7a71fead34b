// A module with an op and nothing to compile: tmc lib refuses it.
op twice(X: f32[N]) -> f32[N] {
  out[i] = X[i] * 2.0;
}
