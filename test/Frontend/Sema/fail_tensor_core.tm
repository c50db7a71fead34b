// Tensor-core fragments must be distributed exactly as the hardware holds
// them; asynchronous copies have fixed sizes.
// RUN: %tmc %s -I %stdlib --split-input-file --verify-diagnostics

import std.mma;

kernel k() block(32) {
  register a: f16[16, 16] by mma_a;
  register b: f16[16, 8] by mma_b;  // expected-note {{this mapping is mapping<2, 32, (16, 8)>}}
  register c: f32[16, 8] by mma_c;
  // Same shape as mma_c, other lanes: rows 2g and 2g + 1.
  register wrong: f32[16, 8] by spatial(8, 4) * repeat(2, 2);  // expected-note {{this mapping is mapping<2, 32, (16, 8)>}}
  register small: f32[8, 8] by spatial(8, 4) * repeat(1, 2);  // expected-note {{this mapping is mapping<2, 32, (8, 8)>}}
  var x: f32 = 0.0;
  mma(c, a, b, c);
  mma(wrong, a, b, c);   // expected-error {{operand 1 of 'mma' is not made of the hardware's C/D fragments (repeat(2, 1) * spatial(8, 4) * repeat(1, 2))}}
  mma(c, b, b, c);       // expected-error {{operand 2 of 'mma' is not made of the hardware's A fragments}}
  mma(small, a, b, c);   // expected-error {{operand 1 of 'mma' is not made of the hardware's C/D fragments}}
  mma(c, a, b, x);       // expected-error {{argument 4 of 'mma' must be a register f32 tensor of C/D fragments, got 'f32'}}
  mma(c, a, b);          // expected-error {{'mma' takes 4 arguments, 3 given}}
}

// -----
// Fragment tiles: shapes must agree, tiles must be whole fragments.

import std.mma;

kernel k() block(32) {
  register acc: f32[32, 16] by repeat(2, 2) * mma_c;
  register a: f16[32, 32] by repeat(2, 2) * mma_a;
  register b: f16[32, 16] by repeat(2, 2) * mma_b;
  register c: f32[16, 8] by mma_c;
  register a1: f16[16, 16] by mma_a;
  register b1: f16[16, 8] by mma_b;
  mma(acc, a, b, acc);
  mma(c, a, b, c);       // expected-error {{mma needs d[M, N] = a[M, K] * b[K, N] + c[M, N]; got d 16x8, a 32x32, b 32x16, c 16x8}}
  mma(tile(acc, 16, 8, 1, 1), tile(a, 16, 16, 1, 0), tile(b, 16, 8, 0, 1), tile(acc, 16, 8, 1, 1));
  for i in unroll(2) {
    mma(tile(acc, 16, 8, i, 0), tile(a, 16, 32, i, 0), b1, c);  // expected-error {{mma needs d[M, N] = a[M, K] * b[K, N] + c[M, N]; got d 16x8, a 16x32, b 16x8, c 16x8}}
  }
  mma(tile(acc, 8, 8, 0, 0), a1, b1, c);  // expected-error {{a 8x8 tile of 'register f32[32, 16] by repeat(2, 2) * repeat(2, 1) * spatial(8, 4) * repeat(1, 2)' is not made of whole C/D fragments (16x8), tiled alike in every tile}}
  mma(tile(acc, 16, 8, 2, 0), a1, b1, c);  // expected-error {{index 2 is out of bounds for dimension 0 of extent 2}}
  let t = tile(acc, 16, 8, 0, 0);  // expected-error {{'tile' selects part of a fragment tensor: it is an operand of 'mma' and 'ldmatrix' only}}
}

// -----
// ldmatrix fills any tensor made of 8x8 matrices, plain or transposed.

import std.mma;

kernel k() block(32) {
  shared s: f16[64, 64];
  shared f: f32[64, 64];
  register a: f16[16, 16] by mma_a;
  register b: f16[16, 32] by repeat(1, 4) * mma_b;
  register c: f32[16, 8] by mma_c;
  register h: f16[16, 8] by spatial(8, 4) * repeat(2, 2);  // expected-note {{this mapping is mapping<2, 32, (16, 8)>}}
  ldmatrix(a, s, 16, 0);
  ldmatrix(b, s, 0, 32);
  ldmatrix(tile(b, 16, 8, 0, 3), s, 0, 0);
  ldmatrix(h, s, 0, 0);  // expected-error {{operand 1 of 'ldmatrix' is not made of the hardware's ldmatrix 8x8 fragments (spatial(8, 4) * repeat(1, 2))}}
  ldmatrix(c, s, 0, 0);  // expected-error {{argument 1 of 'ldmatrix' must be a register f16 or bf16 tensor of ldmatrix 8x8 fragments, got 'register f32[16, 8] by repeat(2, 1) * spatial(8, 4) * repeat(1, 2)'}}
  ldmatrix(a, f, 0, 0);  // expected-error {{argument 2 of 'ldmatrix' must be a shared f16 matrix, got 'shared f32[64, 64]'}}
}

// -----

import std.mma;

kernel k(X: f32[N], H: f16[N]) block(32) {
  shared s: f32[64];
  shared t: f16[16, 16];
  register a: f16[16, 16] by mma_a;
  cp_async(s[0], X[0], 12);      // expected-error {{cp_async copies 4, 8 or 16 bytes, not 12}}
  cp_async(X[0], s[0], 4);       // expected-error {{argument 1 of 'cp_async' must be an element of a shared tensor, got 'f32'}} expected-error {{argument 2 of 'cp_async' must be an element of a global tensor}}
  cp_async(s[0], H[0], 4);       // expected-error {{arguments of 'cp_async' have incompatible types 'f32' and 'f16'}}
  cp_async_wait(9);              // expected-error {{cp_async_wait takes a group count from 0 to 7, not 9}}
  cp_async(s[0], X[0], 4, 1.5);  // expected-error {{argument 4 of 'cp_async' must be a bool or an integer byte count, got 'f32'}}
  cp_async(s[0], X[0], 4, N > 0);
  cp_async(s[0], X[0], 4, N * 4);
  ldmatrix(a, s, 0, 0);          // expected-error {{argument 2 of 'ldmatrix' must be a shared f16 matrix, got 'shared f32[64]'}}
  ldmatrix(a, t, 0, 0);
}

// -----

func f() {
  cp_async_commit();   // device functions may issue copies
}

let x = cp_async_commit();  // expected-error {{'cp_async_commit' is only available in kernels and device functions}}

// -----
// Functions take global tensors, and register fragments declared with 'by'.

import std.mma;

func f(x: f32[4]) { x[0] = 1.0; }
func g2(s: shared f32[4]) { s[0] = 1.0; }
func g3(s: shared f32[4] by mma_c) { }  // expected-error {{only tensor parameters of functions can be 'shared' (and not also 'by')}}
func g(acc: f32[16, 8] by mma_c) { mma(acc, acc, acc, acc); }  // expected-error {{argument 2 of 'mma' must be a register f16 tensor of A fragments, got 'register f32[16, 8] by repeat(2, 1) * spatial(8, 4) * repeat(1, 2)'}} expected-error {{argument 3 of 'mma'}}
func h(acc: f32[16, 8] by mma_a) { }  // expected-error {{shape of 'register f32[16, 8]' differs from the shape of its mapping mapping<2, 32, (16, 16)>}}
kernel k(X: f32[N]) block(32) {
  shared s: f32[4];
  register r: f32[4];
  register c: f32[16, 8] by mma_c;
  register d: f32[16, 8] by spatial(8, 4) * repeat(2, 2);
  f(s);  // expected-error {{argument 1 of 'f' must be a global tensor, got 'shared f32[4]' (a function's parameters are global tensors, 'shared' tensors, or register fragments declared with 'by')}}
  g2(s);
  g2(X);  // expected-error {{argument 1 of 'g2' must be a shared tensor, got 'f32[N]'}}
  f(r);  // expected-error {{argument 1 of 'f' must be a global tensor, got 'register f32[4]'}}
  g(c);
  g(d);  // expected-error {{argument 1 of 'g' must be a register tensor distributed by repeat(2, 1) * spatial(8, 4) * repeat(1, 2), got 'register f32[16, 8] by spatial(8, 4) * repeat(2, 2)'}}
}
kernel k2(X: f32[16, 8] by mma_c) block(32) { }  // expected-error {{only function parameters can be distributed register tensors ('by')}}

// -----
// ldmatrix rows must be 16-byte aligned.

import std.mma;

kernel k() block(32) {
  shared s: f16[16, 36];
  shared t: f16[16, 40];
  register a: f16[16, 16] by mma_a;
  ldmatrix(a, s, 0, 0);  // expected-error {{ldmatrix reads 16-byte rows that must be 16-byte aligned, but rows of 's' are 72 bytes apart (pad each row to a multiple of 8 elements)}}
  ldmatrix(a, t, 0, 4);  // expected-error {{ldmatrix reads 16-byte rows that must be 16-byte aligned: column 4 is not a multiple of 8 elements}}
  ldmatrix(a, t, 0, 8);
}

// -----
// Of a tile whose columns are contiguous ldmatrix reads columns (the
// transposed matrices); a tile with neither contiguous cannot be read.

import std.mma;

kernel k() block(32) {
  shared c: f16[20, 16] col_major;
  shared d: f16[16, 16] strided(1, 24);
  shared e: f16[16, 16] strided(24, 2);
  shared f: f16[16, 16] swizzle(1, 2, 3);
  shared g: f16[16, 16] swizzle(1, 3, 3);
  register a: f16[16, 16] by mma_a;
  ldmatrix(a, c, 0, 0);  // expected-error {{ldmatrix reads the 16-byte columns of a column-contiguous tile, which must be 16-byte aligned, but columns of 'c' are 40 bytes apart (pad each column to a multiple of 8 elements)}}
  ldmatrix(a, d, 4, 0);  // expected-error {{ldmatrix reads the 16-byte columns of a column-contiguous tile, which must be 16-byte aligned: row 4 is not a multiple of 8 elements}}
  ldmatrix(a, d, 0, 4);
  ldmatrix(a, e, 0, 0);  // expected-error {{ldmatrix reads 8 contiguous elements at a time, but neither the rows nor the columns of 'e' (strided(24, 2)) are contiguous}}
  ldmatrix(a, f, 0, 0);  // expected-error {{ldmatrix reads 8 contiguous elements at a time, but neither the rows nor the columns of 'f' (swizzle(1, 2, 3)) are contiguous}}
  ldmatrix(a, g, 0, 0);
}
