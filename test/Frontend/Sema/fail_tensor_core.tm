// Tensor-core fragments must be distributed exactly as the hardware holds
// them; asynchronous copies have fixed sizes.
// RUN: %tmc %s -I %stdlib --split-input-file --verify-diagnostics

import std.mma;

kernel k() block(32) {
  register a: f16[16, 16] by mma_a;
  register b: f16[16, 8] by mma_b;
  register c: f32[16, 8] by mma_c;
  // Same shape as mma_c, other lanes: rows 2g and 2g + 1.
  register wrong: f32[16, 8] by spatial(8, 4) * repeat(2, 2);  // expected-note {{this mapping is mapping<2, 32, (16, 8)>}}
  register small: f32[8, 8] by spatial(8, 4) * repeat(1, 2);
  var x: f32 = 0.0;
  mma(c, a, b, c);
  mma(wrong, a, b, c);   // expected-error {{operand 1 of 'mma' is not distributed like the hardware's C/D fragment (repeat(2, 1) * spatial(8, 4) * repeat(1, 2))}}
  mma(c, b, b, c);       // expected-error {{argument 2 of 'mma' must be a register f16[16, 16] A fragment, got 'register f16[16, 8] by repeat(2, 1) * col_spatial(4, 8) * repeat(2, 1)'}}
  mma(small, a, b, c);   // expected-error {{argument 1 of 'mma' must be a register f32[16, 8] C/D fragment}}
  mma(c, a, b, x);       // expected-error {{argument 4 of 'mma' must be a register f32[16, 8] C/D fragment, got 'f32'}}
  mma(c, a, b);          // expected-error {{'mma' takes 4 arguments, 3 given}}
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
  ldmatrix(a, s, 0, 0);          // expected-error {{argument 2 of 'ldmatrix' must be a shared f16 matrix, got 'shared f32[64]'}}
  ldmatrix(a, t, 0, 0);
}

// -----

func f() {
  cp_async_commit();   // device functions may issue copies
}

let x = cp_async_commit();  // expected-error {{'cp_async_commit' is only available in kernels and device functions}}
