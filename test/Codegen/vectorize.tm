// Contiguous, 16-byte aligned accesses become 16-byte loads and stores: the
// full-tile path that split-tails creates has no per-element guards, tensor
// arguments are aligned and do not overlap, and LLVM's load/store
// vectorizer merges the four accesses. Strided accesses stay scalar.
// REQUIRES: ptxas
// RUN: %tmc %s --emit=ptx | FileCheck %s
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80

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
