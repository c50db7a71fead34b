// Contiguous, 16-byte aligned accesses become 16-byte loads and stores: the
// full-tile path that split-tails creates has no per-element guards, tensor
// arguments are aligned and do not overlap, and LLVM's load/store
// vectorizer merges the four accesses. Strided accesses stay scalar.
// REQUIRES: ptxas
// RUN: %tmc %s --emit=ptx | FileCheck %s
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// The full tile and the tail compute the same, at shapes that divide the
// tile and the vector width and at shapes that divide nothing (the CPU
// executor runs the same lowering, both paths).
// RUN: %tmc run %s --kernel copy_rows --shape M=33,N=70 --check-bounds | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel copy_rows --shape M=64,N=128 | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel stage_halves --shape M=31,N=72 --check-bounds | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel stage_halves --shape M=32,N=66 | FileCheck %s --check-prefix=RESULT
// RESULT-NOT: FAIL
// RESULT: result:{{ +}}PASS

op copy<T>(X: T[M, N]) -> T[M, N] {
  out[i, j] = X[i, j];
}
op twice<T>(X: T[M, N]) -> T[M, N] {
  out[i, j] = X[i, j] * 2.0;
}

kernel copy4(X: f32[N], Y: f32[N]) grid(cdiv(N, 1024)) block(256) {
  for i in spatial(256) * repeat(4) on threadIdx.x {
    let g = blockIdx.x * 1024 + i;
    if (g < N) { Y[g] = X[g]; }
  }
}
// CHECK-LABEL: .entry copy4(
// CHECK: ld.global.nc.v4.f32
// CHECK: st.global.v4.f32

kernel shared_rows(X: f32[N], Y: f32[N]) grid(cdiv(N, 1024)) block(256) {
  shared s: f32[1024];
  for i in spatial(256) * repeat(4) on threadIdx.x {
    s[i] = X[blockIdx.x * 1024 + i];
  }
  sync;
  for i in spatial(256) * repeat(4) on threadIdx.x {
    Y[blockIdx.x * 1024 + i] = s[1023 - i];
  }
}
// CHECK-LABEL: .entry shared_rows(
// CHECK: st.shared.v4.f32

kernel strided(X: f32[N], Y: f32[N]) grid(cdiv(N, 1024)) block(256) {
  for i in repeat(4) * spatial(256) on threadIdx.x {
    let g = blockIdx.x * 1024 + i;
    if (g < N) { Y[g] = X[g]; }
  }
}
// CHECK-LABEL: .entry strided(
// CHECK-NOT: .v4.
// CHECK: ret;

// Two-dimensional tiles with a symbolic row length: the full tile, taken
// when the row length is a multiple of the vector width, has 16-byte
// accesses; the tail keeps its per-element guards (compound conditions and
// the `c ? X[...] : 0` idiom alike).
kernel copy_rows(X: f32[M, N], Y: f32[M, N]) implements copy grid(cdiv(N, 64), cdiv(M, 32)) block(512) {
  for (i, j) in spatial(32, 16) * repeat(1, 4) on threadIdx.x {
    let gi = blockIdx.y * 32 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { Y[gi, gj] = X[gi, gj]; }
  }
}
// CHECK-LABEL: .entry copy_rows(
// CHECK: ld.global.nc.v4.f32
// CHECK: st.global.v4.f32
// CHECK: ld.global.nc.f32
// CHECK: ret;

kernel stage_halves(X: f16[M, N], Y: f16[M, N]) implements twice grid(cdiv(N, 64), cdiv(M, 32)) block(256) {
  shared s: f16[32, 64];
  for (i, j) in spatial(32, 8) * repeat(1, 8) on threadIdx.x {
    let gi = blockIdx.y * 32 + i;
    let gj = blockIdx.x * 64 + j;
    s[i, j] = (gi < M && gj < N) ? X[gi, gj] : 0.0;
  }
  sync;
  for (i, j) in spatial(32, 8) * repeat(1, 8) on threadIdx.x {
    let gi = blockIdx.y * 32 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { Y[gi, gj] = s[i, j] * 2.0; }
  }
}
// Eight halves per thread: one 16-byte load, store to shared, load from
// shared and store to global in the full tile.
// CHECK-LABEL: .entry stage_halves(
// CHECK: ld.global.nc.v4.{{u32|b32}}
// CHECK: st.shared.v4.b32
// CHECK: ld.shared.v4.b32
// CHECK: st.global.v4.b32
