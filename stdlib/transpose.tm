// std.transpose: the transpose of f32, f16 and bf16 matrices, and the
// permutations of rank-3 tensors, through a 32 x 32 shared tile read and
// written in coalesced rows. The tile holds f32 whatever the element type,
// with 33 columns: a column of it then spans all 32 banks (no bank
// conflicts in either phase). A permutation that keeps the last axis is a
// copy of whole rows (16-byte vector accesses); one that moves it is, for
// each index of the axis that stays in place or goes first, a transpose of
// a matrix, so the tiles of those matrices are the kernel's blocks.

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

// Permutations of X[A, B, C]; the name lists the axes of X in the order
// of the result (permute021: Y[a, c, b] = X[a, b, c]).
op permute021<T>(X: T[A, B, C]) -> T[A, C, B] { out[a, c, b] = X[a, b, c]; }
op permute102<T>(X: T[A, B, C]) -> T[B, A, C] { out[b, a, c] = X[a, b, c]; }
op permute120<T>(X: T[A, B, C]) -> T[B, C, A] { out[b, c, a] = X[a, b, c]; }
op permute201<T>(X: T[A, B, C]) -> T[C, A, B] { out[c, a, b] = X[a, b, c]; }
op permute210<T>(X: T[A, B, C]) -> T[C, B, A] { out[c, b, a] = X[a, b, c]; }

// The last axis stays: row b of matrix a moves to row a of matrix b.
// Blocks: x over 256 * V columns, y over B, z over A (each at most 65535).
kernel permute102_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[A, B, C], Y: T[B, A, C])
    implements permute102 grid(cdiv(C, 256 * V), B, A) block(256)
{
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = blockIdx.x * 256 * V + i;
    if (c < C) { Y[blockIdx.y, blockIdx.z, c] = X[blockIdx.z, blockIdx.y, c]; }
  }
}

// For each a: the B x C matrix X[.., a, ..] transposed. Blocks: x over
// the C tiles and A, y over the B tiles.
kernel permute021_tiled<T: type in [f32, f16, bf16]>(X: T[A, B, C], Y: T[A, C, B])
    implements permute021 grid(cdiv(C, 32) * A, cdiv(B, 32)) block(256)
{
  shared tile: f32[32, 33];
  let q = blockIdx.x / cdiv(C, 32);
  let c0 = (blockIdx.x % cdiv(C, 32)) * 32;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let p = blockIdx.y * 32 + i;
    let x = c0 + j;
    if (p < B && x < C) { tile[i, j] = f32(X[q, p, x]); }
  }
  sync;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let r = c0 + i;               // the C index, now an outer axis
    let c = blockIdx.y * 32 + j;  // the B index, now the last axis
    if (r < C && c < B) { Y[q, r, c] = T(tile[j, i]); }
  }
}

// For each a: the B x C matrix X[.., a, ..] transposed. Blocks: x over
// the C tiles and A, y over the B tiles.
kernel permute201_tiled<T: type in [f32, f16, bf16]>(X: T[A, B, C], Y: T[C, A, B])
    implements permute201 grid(cdiv(C, 32) * A, cdiv(B, 32)) block(256)
{
  shared tile: f32[32, 33];
  let q = blockIdx.x / cdiv(C, 32);
  let c0 = (blockIdx.x % cdiv(C, 32)) * 32;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let p = blockIdx.y * 32 + i;
    let x = c0 + j;
    if (p < B && x < C) { tile[i, j] = f32(X[q, p, x]); }
  }
  sync;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let r = c0 + i;               // the C index, now an outer axis
    let c = blockIdx.y * 32 + j;  // the B index, now the last axis
    if (r < C && c < B) { Y[r, q, c] = T(tile[j, i]); }
  }
}

// For each b: the A x C matrix X[.., b, ..] transposed. Blocks: x over
// the C tiles and B, y over the A tiles.
kernel permute120_tiled<T: type in [f32, f16, bf16]>(X: T[A, B, C], Y: T[B, C, A])
    implements permute120 grid(cdiv(C, 32) * B, cdiv(A, 32)) block(256)
{
  shared tile: f32[32, 33];
  let q = blockIdx.x / cdiv(C, 32);
  let c0 = (blockIdx.x % cdiv(C, 32)) * 32;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let p = blockIdx.y * 32 + i;
    let x = c0 + j;
    if (p < A && x < C) { tile[i, j] = f32(X[p, q, x]); }
  }
  sync;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let r = c0 + i;               // the C index, now an outer axis
    let c = blockIdx.y * 32 + j;  // the A index, now the last axis
    if (r < C && c < A) { Y[q, r, c] = T(tile[j, i]); }
  }
}

// For each b: the A x C matrix X[.., b, ..] transposed. Blocks: x over
// the C tiles and B, y over the A tiles.
kernel permute210_tiled<T: type in [f32, f16, bf16]>(X: T[A, B, C], Y: T[C, B, A])
    implements permute210 grid(cdiv(C, 32) * B, cdiv(A, 32)) block(256)
{
  shared tile: f32[32, 33];
  let q = blockIdx.x / cdiv(C, 32);
  let c0 = (blockIdx.x % cdiv(C, 32)) * 32;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let p = blockIdx.y * 32 + i;
    let x = c0 + j;
    if (p < A && x < C) { tile[i, j] = f32(X[p, q, x]); }
  }
  sync;
  for (i, j) in repeat(4, 1) * spatial(8, 32) on threadIdx.x {
    let r = c0 + i;               // the C index, now an outer axis
    let c = blockIdx.y * 32 + j;  // the A index, now the last axis
    if (r < C && c < A) { Y[r, q, c] = T(tile[j, i]); }
  }
}
