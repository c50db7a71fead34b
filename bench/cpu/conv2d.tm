// A direct 3x3 convolution (NCHW, stride 1, padding 1), one thread per
// output element: the kernel is simple on purpose. bench/cpu/reference.sh
// uses it to time `tmc run` end to end, where the op's reference (a
// reduction over C x 3 x 3 per output element) dominates.

op conv2d_3x3(X: f32[N, C, H, W], Wt: f32[K, C, R, S]) -> f32[N, K, H, W] {
  out[n, k, h, w] = sum(c < C, r < R, s < S)
      (h + r - 1 >= 0 && h + r - 1 < H && w + s - 1 >= 0 && w + s - 1 < W) ? X[n, c, h + r - 1, w + s - 1] * Wt[k, c, r, s] : 0.0;
}

kernel conv2d_direct(X: f32[N, C, H, W], Wt: f32[K, C, R, S], Y: f32[N, K, H, W])
    implements conv2d_3x3
    grid(cdiv(W, 16), cdiv(H, 16), N * K) block(16, 16)
{
  let n = blockIdx.z / K;
  let k = blockIdx.z % K;
  let h = blockIdx.y * 16 + threadIdx.y;
  let w = blockIdx.x * 16 + threadIdx.x;
  if (h < H && w < W) {
    var acc = 0.0;
    for c in range(C) {
      for r in range(3) {
        for s in range(3) {
          let y = h + r - 1;
          let x = w + s - 1;
          if (y >= 0 && y < H && x >= 0 && x < W) {
            acc = acc + X[n, c, y, x] * Wt[k, c, r, s];
          }
        }
      }
    }
    Y[n, k, h, w] = acc;
  }
}
