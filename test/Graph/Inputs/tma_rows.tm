// A graph over an op whose kernel reads its input as a TMA tensor map
// (test/Graph/tma_prologue.test).
import std.nn;  // relu

op rowsum(X: f32[M, N]) -> f32[M] { out[i] = sum(j < N) X[i, j]; }

// One row of 32 per block (N <= 32), through TMA.
kernel rowsum_tma(X: f32[M, N] by tma, Y: f32[M]) implements rowsum where N <= 32 grid(M) block(32) {
  shared tile: f32[1, 32];
  shared bar: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  sync;
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar[0], 32 * 4);
    tma_load(tile, X[blockIdx.x, 0], bar[0]);
  }
  mbarrier_wait(bar[0], 0);
  var v = tile[0, threadIdx.x];
  v += shfl_xor(v, 16);
  v += shfl_xor(v, 8);
  v += shfl_xor(v, 4);
  v += shfl_xor(v, 2);
  v += shfl_xor(v, 1);
  if (threadIdx.x == 0) { Y[blockIdx.x] = v; }
}

graph g(x: f32[M, N]) -> f32[M] {
  return rowsum(relu(x));
}
