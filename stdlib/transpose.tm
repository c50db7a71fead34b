// std.transpose: the transpose of f32, f16 and bf16 matrices through a
// 32 x 32 shared tile, read and written in coalesced rows. The tile holds
// f32 whatever the element type, with 33 columns: a column of it then
// spans all 32 banks (no bank conflicts in either phase).

import std.nn;  // op transpose

kernel transpose_tiled<T: type in [f32, f16, bf16]>(X: T[R, C], Y: T[C, R])
    implements transpose grid(cdiv(C, 32), cdiv(R, 32)) block(256)
{
  shared tile: f32[32, 33];
  // 256 threads cover the tile in four rounds of 8 rows.
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let r = blockIdx.y * 32 + i;
    let c = blockIdx.x * 32 + j;
    if (r < R && c < C) { tile[i, j] = f32(X[r, c]); }
  }
  sync;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let r = blockIdx.x * 32 + i;  // a row of Y is a column of X
    let c = blockIdx.y * 32 + j;
    if (r < C && c < R) { Y[r, c] = T(tile[j, i]); }
  }
}
