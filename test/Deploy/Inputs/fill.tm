// Kernels that write their compile-time value V: which tuned variant a
// library ran shows in the output (test/Deploy/dispatch.test).
kernel fill<V: int in [1, 2, 3] = 1>(X: i32[N], Y: i32[N]) grid(cdiv(N, 64)) block(64) {
  let i = blockIdx.x * 64 + threadIdx.x;
  if (i < N) {
    Y[i] = X[i] * 0 + V;
  }
}

// A variant whose `where` refuses a shape: the library falls back to the
// default build.
kernel fill_div<V: int in [1, 4] = 1>(X: i32[N], Y: i32[N]) where N % V == 0 grid(cdiv(N, 64)) block(64) {
  let i = blockIdx.x * 64 + threadIdx.x;
  if (i < N) {
    Y[i] = X[i] * 0 + V;
  }
}
