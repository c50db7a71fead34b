// Matrix transpose through shared memory. A 32x32 tile is read with
// coalesced row accesses and written back with coalesced row accesses of
// the transposed matrix; the tile has 33 columns so that a column of it
// spans 32 different banks (no bank conflicts).

op transpose(X: f32[R, C]) -> f32[C, R] {
  out[i, j] = X[j, i];
}

kernel transpose_tiled(X: f32[R, C], Y: f32[C, R])
    implements transpose
    grid(cdiv(C, 32), cdiv(R, 32)) block(256)
{
  shared tile: f32[32, 33];
  // 256 threads cover the 32x32 tile in four rounds of 8 rows.
  let m = repeat(4, 1) * spatial(8, 32);
  for (i, j) in m on threadIdx.x {
    let r = blockIdx.y * 32 + i;
    let c = blockIdx.x * 32 + j;
    if (r < R && c < C) {
      tile[i, j] = X[r, c];
    }
  }
  sync;
  for (i, j) in m on threadIdx.x {
    let r = blockIdx.x * 32 + i;  // row of Y = column of X
    let c = blockIdx.y * 32 + j;
    if (r < C && c < R) {
      Y[r, c] = tile[j, i];
    }
  }
}
