// A kernel that reads back what it stored: its epilogue cannot be fused
// at the stores (test/Graph/op_errors.test).
op rsum(X: f32[R, C]) -> f32[R] { out[r] = sum(c < C) X[r, c]; }

kernel twice(X: f32[R, C], Y: f32[R]) implements rsum grid(cdiv(R, 256)) block(256) {
  let r = blockIdx.x * 256 + threadIdx.x;
  if (r < R) {
    Y[r] = 0.0;
    for c in range(C) { Y[r] = Y[r] + X[r, c]; }
  }
}

graph g(x: f32[R, C]) -> f32[R] {
  return rsum(x) * 2.0;
}
