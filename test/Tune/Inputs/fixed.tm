op add(X: f32[N], Y: f32[N]) -> f32[N] {
  out[i] = X[i] + Y[i];
}

// No parameter with candidate values: nothing to tune.
kernel fixed_add<TILE: int = 256>(X: f32[N], Y: f32[N], Z: f32[N])
    implements add
    grid(cdiv(N, TILE)) block(256)
{
  for i in repeat(TILE / 256) * spatial(256) on threadIdx.x {
    let gi = blockIdx.x * TILE + i;
    if (gi < N) {
      Z[gi] = X[gi] + Y[gi];
    }
  }
}
