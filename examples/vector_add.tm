// Vector addition. Each block of 256 threads covers 1024 elements: the
// mapping `repeat(4) * spatial(256)` gives thread t the elements t, t+256,
// t+512 and t+768 of the block's tile, so each of the four rounds of loads
// is coalesced across the block.

op add(X: f32[N], Y: f32[N]) -> f32[N] {
  out[i] = X[i] + Y[i];
}

kernel vector_add<TILE: int in [1024, 2048] = 1024>
    (X: f32[N], Y: f32[N], Z: f32[N])
    implements add
    where TILE % 256 == 0
    grid(cdiv(N, TILE)) block(256)
{
  for i in repeat(TILE / 256) * spatial(256) on threadIdx.x {
    let gi = blockIdx.x * TILE + i;
    if (gi < N) {
      Z[gi] = X[gi] + Y[gi];
    }
  }
}
