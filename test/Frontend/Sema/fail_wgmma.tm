// wgmma's operands: an accumulator made of the hardware's m64nN D
// fragments, shared A [M, K] and B [K, N] tiles laid out with one of the
// instruction's swizzles (rows of one span), matching shapes; wgmma_wait's
// group count.
// RUN: %tmc %s -I %stdlib --arch=sm_90a --split-input-file --verify-diagnostics

import std.wgmma;

kernel k() block(128) {
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  // Same shape, another assignment of elements to threads.
  register wrong: f32[64, 64] by spatial(4, 32) * repeat(16, 2);  // expected-note {{this mapping is mapping<2, 128, (64, 64)>}}
  register h: f16[64, 64] by repeat(1, 8) * wgmma_c;
  wgmma(wrong, sa, sb);  // expected-error {{operand 1 of 'wgmma' is not made of the hardware's wgmma m64n64 D fragments}}
  wgmma(h, sa, sb);      // expected-error {{argument 1 of 'wgmma' must be a register f32 tensor of wgmma accumulator fragments, got 'register f16[64, 64] by repeat(1, 8) * spatial(4, 1) * repeat(2, 1) * spatial(8, 4) * repeat(1, 2)'}}
  wgmma(acc, sa, sb);
  wgmma_wait(8);         // expected-error {{wgmma_wait takes a group count from 0 to 7, not 8}}
}

// -----

import std.wgmma;

kernel layouts() block(128) {
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  shared plain: f16[64, 64];
  shared wide: f16[64, 128] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  shared narrow: f16[64, 32] swizzle(3, 3, 3);
  shared f: f32[64, 64] swizzle(3, 3, 3);
  // expected-error@+1 {{operand 2 of 'wgmma' ('plain', shared f16[64, 64] row_major) is not laid out as the instruction reads shared memory}}
  wgmma(acc, plain, sb);
  // A row of 128 halves is two 128-byte spans.
  // expected-error@+1 {{operand 2 of 'wgmma' ('wide', shared f16[64, 128] swizzle(3, 3, 3)) is not laid out}}
  wgmma(acc, wide, sb);
  // expected-error@+1 {{operand 3 of 'wgmma' ('narrow', shared f16[64, 32] swizzle(3, 3, 3)) is not laid out as the instruction reads shared memory: it must be row-major with the 32-, 64- or 128-byte swizzle, swizzle(1, 3, 3), swizzle(2, 3, 3) or swizzle(3, 3, 3), and rows of 16, 32 or 64 elements respectively (one swizzle span along N)}}
  wgmma(acc, sb, narrow);
  wgmma(acc, f, sb);  // expected-error {{argument 2 of 'wgmma' must be a shared f16 or bf16 matrix [M, K], or a register one of wgmma_a fragments, got 'shared f32[64, 64]'}}
}

// -----

import std.wgmma;

kernel shapes() block(128) {
  register acc: f32[128, 64] by repeat(2, 8) * wgmma_c;
  shared sa: f16[64, 64] swizzle(3, 3, 3);
  shared sb: f16[64, 64] swizzle(3, 3, 3);
  shared b16: bf16[64, 64] swizzle(3, 3, 3);
  shared short: f16[64, 16] swizzle(1, 3, 3);
  wgmma(acc, sa, sb);  // expected-error {{wgmma needs d[M, N] = a[M, K] * b[K, N] with K a multiple of 16; got d 128x64, a 64x64, b 64x64}}
  register acc64: f32[64, 64] by repeat(1, 8) * wgmma_c;
  wgmma(acc64, sa, b16);  // expected-error {{arguments of 'wgmma' have incompatible types 'shared f16[64, 64]' and 'shared bf16[64, 64]'}}
  wgmma(acc64, short, sb);  // expected-error {{got d 64x64, a 64x16, b 64x64}}
  wgmma(acc64, sa, sb, 1.5);  // expected-error {{accumulate flag}}
  shared bt: f16[32, 64] swizzle(3, 3, 3);
  wgmma_t(acc64, sa, bt);  // expected-error {{wgmma_t needs d[M, N] = a[M, K] * bt[N, K] transposed, with K a multiple of 16; got d 64x64, a 64x64, bt 32x64}}
  // B stored [N, K] given to wgmma, and [K, N] to wgmma_t: a note names the other.
  register acc32: f32[64, 32] by repeat(1, 4) * wgmma_c;
  shared b_nk: f16[32, 64] swizzle(3, 3, 3);
  wgmma(acc32, sa, b_nk);  // expected-error {{got d 64x32, a 64x64, b 32x64}} expected-note {{'b_nk' is 32x64, which is B as [N, K]: that is what 'wgmma_t' takes}}
  shared b_kn: f16[64, 32] swizzle(2, 3, 3);
  wgmma_t(acc32, sa, b_kn);  // expected-error {{got d 64x32, a 64x64, bt 64x32}} expected-note {{'b_kn' is 64x32, which is B as [K, N]: that is what 'wgmma' takes}}
  register wide: f32[64, 320] by repeat(1, 40) * wgmma_c;
  wgmma(wide, sa, sb);  // expected-error {{wgmma computes at most 256 columns an instruction: an accumulator of 320 columns must be at most 256 wide or a multiple of 256}}
}

kernel regs(X: f32[N]) block(128) {
  setmaxnreg_inc(20);   // expected-error {{setmaxnreg_inc takes a register count from 24 to 256 that is a multiple of 8, not 20}}
  setmaxnreg_dec(100);  // expected-error {{setmaxnreg_dec takes a register count from 24 to 256 that is a multiple of 8, not 100}}
  setmaxnreg_dec(40);
}

// -----

// The warpgroup and TMA-store built-ins are the kernel's: its
// checks (whole warpgroups, launch bounds for setmaxnreg, register fences)
// see its body, not a function's. mbarriers and tensor maps cannot reach
// a function either.
func give() { setmaxnreg_dec(40); }  // expected-error {{'setmaxnreg_dec' is only available in kernels, not in device functions (the kernel's launch bounds and warpgroups are checked over its body)}}
func sync_wgmma() {
  wgmma_fence();      // expected-error {{'wgmma_fence' is only available in kernels, not in device functions (wgmma's warpgroup, fences and groups are checked over the kernel's body)}}
  wgmma_commit();     // expected-error {{'wgmma_commit' is only available in kernels}}
  wgmma_wait(0);      // expected-error {{'wgmma_wait' is only available in kernels}}
  tma_store_commit(); // expected-error {{'tma_store_commit' is only available in kernels, not in device functions (the kernel's tma_stores are checked over its body)}}
  tma_store_wait(0);  // expected-error {{'tma_store_wait' is only available in kernels}}
  setmaxnreg_inc(240); // expected-error {{'setmaxnreg_inc' is only available in kernels}}
}
// fence_proxy_async and cluster_sync are for functions too.
func publish() { fence_proxy_async(); cluster_sync(); }
