// A kernel whose guard is off by one: tmc run --check-bounds reports the
// access past the end.
op copy(X: f32[N]) -> f32[N] {
  out[i] = X[i];
}

kernel oob(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  let i = blockIdx.x * 64 + threadIdx.x;
  if (i <= N) {
    Y[i] = X[i];
  }
}
