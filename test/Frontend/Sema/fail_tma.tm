// TMA tensor maps: kernel parameters 'by tma', reached only through
// tma_load and tma_store, with tiles laid out as TMA writes them.
// RUN: %tmc %s --arch=sm_90a --verify-diagnostics

op copy2(X: f16[M, N]) -> f16[M, N] { out[i, j] = X[i, j]; }

kernel k(X: f16[M, N] by tma, Y: f16[M, N] by tma) implements copy2 block(128) {
  shared bar: mbarrier[1];
  shared t: f16[64, 64] swizzle(3, 3, 3);
  shared wide: f16[8, 512];
  shared odd: f16[8, 12];
  shared bad_sw: f16[64, 64] swizzle(3, 4, 3);
  shared narrow_sw: f16[64, 32] swizzle(3, 3, 3);
  shared flat: f16[64, 64];
  shared f: f32[64, 32];
  shared stages: f16[3, 4, 8];
  tma_load(t, X[0, 0], bar[0]);
  let v = X[0, 0];  // expected-error {{'X' is passed as a TMA tensor map ('by tma'): its elements are reached only through tma_load and tma_store}}
  tma_load(t, t[0, 0], bar[0]);  // expected-error {{argument 2 of 'tma_load' must be the tile's origin in a TMA tensor map, as in 'A[m0, k0]'}}
  tma_load(wide, Y[0, 0], bar[0]);  // expected-error {{the shared tile of 'tma_load' ('wide', shared f16[8, 512] row_major) must be at most 256 elements along each dimension}}
  tma_load(odd, Y[0, 0], bar[0]);  // expected-error {{must be made of rows of a multiple of 16 bytes}}
  tma_load(bad_sw, Y[0, 0], bar[0]);  // expected-error {{must be row-major, or swizzled as TMA writes it: swizzle(1, 3, 3), swizzle(2, 3, 3) or swizzle(3, 3, 3) with rows of 16, 32 or 64 elements respectively (32, 64 or 128 bytes)}}
  tma_load(narrow_sw, Y[0, 0], bar[0]);  // expected-error {{with rows of 16, 32 or 64 elements respectively (32, 64 or 128 bytes); its rows have 32 elements (64 bytes)}}
  tma_load(flat, X[64, 0], bar[0]);  // expected-error {{every TMA copy of 'X' must move one box: [64, 64] unswizzled here, but [64, 64] with the 128-byte swizzle before}}
  // expected-note@-8 {{the box of 'X' was set here}}
  tma_load(f, X[0, 0], bar[0]);  // expected-error {{argument 1 of 'tma_load' must be a shared f16 tile of rank at most 2 (the element type and rank of 'X'), got 'shared f32[64, 32]'}}
  tma_load(stages[1], Y[0, 0], bar[0]);  // expected-error {{a TMA copy's shared tile must start at a multiple of 128 bytes, but the tiles of 'stages' start every 64 bytes}}
  tma_load(t, X[0, 0], t[0, 0]);  // expected-error {{argument 3 of 'tma_load' must be an element of a shared mbarrier array}}
  tma_store(X[0, 0], t);  // expected-error {{'X' is an input of the op this kernel implements: tma_store cannot write it}}
  tma_store(Y[0, 0], flat);
  tma_store_wait(9);  // expected-error {{tma_store_wait takes a group count from 0 to 7, not 9}}
  tma_store_commit();
  use(Y);  // expected-error {{'Y' is passed as a TMA tensor map}}
}

func use(A: f16[M, N]) {
}

kernel not_dense(X: f32[M, N] col_major by tma) block(32) {  // expected-error {{a TMA tensor map ('by tma') is made of a kernel's row-major global tensor parameter of rank 1 to 5 with elements of 1, 2, 4 or 8 bytes, not 'f32[M, N] col_major'}}
}

kernel rank6(X: f32[A, B, C, D, E, F] by tma) block(32) {  // expected-error {{of rank 1 to 5}}
}

func f_tma(X: f32[N] by tma) {  // expected-error {{only kernel parameters can be passed as TMA tensor maps ('by tma')}}
}

kernel calls(X: f32[N]) block(32) {
  f_tma(X);
}

kernel origins(X: f16[M, N] by tma, Z: f16[M, N]) block(128) {
  shared bar: mbarrier[1];
  shared t: f16[64, 64] swizzle(3, 3, 3);
  mbarrier_arrive_expect_tx(bar[0], 2000000);  // expected-error {{an mbarrier counts at most 1048575 transaction bytes a phase, not 2000000}}
  tma_load(t, X[0], bar[0]);  // expected-error {{'X' has rank 2: the origin of a TMA copy gives 2 coordinates, not 1}}
  tma_load(t, Z[0, 0], bar[0]);  // expected-error {{'Z' is not passed as a TMA tensor map: declare the kernel parameter 'Z: ... by tma'}}
}

// Constant origins outside the tensor are fine: TMA zero-fills (a halo).
kernel halo(X: f16[128, 64] by tma) block(128) {
  shared bar: mbarrier[1];
  shared t: f16[64, 64] swizzle(3, 3, 3);
  tma_load(t, X[-16, 0], bar[0]);
  tma_load(t, X[100, 32], bar[0]);
}
