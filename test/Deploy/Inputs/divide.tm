// An integer kernel whose divisor comes from the caller: a zero divisor
// is a fault the CPU executor reports with its source location.
kernel divide_by(X: i32[N], d: i32, Y: i32[N]) grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) {
    Y[i] = X[i] / d;
  }
}
