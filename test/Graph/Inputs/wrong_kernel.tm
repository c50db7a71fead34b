// A hand-written kernel that misses the last column of each row: the plan
// runs, and the end-to-end check names the kernel whose result is wrong
// (test/Graph/graph_plan_run.test).
op rsum(X: f32[R, C]) -> f32[R] { out[r] = sum(c < C) X[r, c]; }
op scale(X: f32[R, C], s: f32[R]) -> f32[R, C] { out[r, c] = X[r, c] * s[r]; }

kernel rsum_short(X: f32[R, C], Y: f32[R]) implements rsum grid(cdiv(R, 64)) block(64) {
  let r = blockIdx.x * 64 + threadIdx.x;
  if (r < R) {
    var a: f32 = 0.0;
    for c in range(C - 1) { a = a + X[r, c]; }
    Y[r] = a;
  }
}

// The row sums are read by a broadcast (not fusable), so they are stored:
// kernel 1 writes them, kernel 2 scales by them.
graph g(x: f32[R, C]) -> f32[R, C] {
  let s = rsum(x);
  return scale(x, s) + x;
}
