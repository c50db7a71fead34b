// What the PTX of a mapped kernel looks like: the target, the kernel entry
// with its launch bound, special registers, and a barrier.
// REQUIRES: ptxas
// RUN: %tmc %s --emit=ptx | FileCheck %s
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=HOPPER
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a

kernel tile_copy(X: f32[N], Y: f32[N]) grid(cdiv(N, 256)) block(256) {
  shared t: f32[256];
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) { t[i] = X[g]; }
  }
  sync;
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) { Y[g] = t[255 - i]; }
  }
}
// CHECK: .target sm_80
// CHECK: .visible .entry tile_copy(
// CHECK: .maxntid 256, 1, 1
// CHECK: mov.u32 {{.*}}%tid.x
// CHECK: mov.u32 {{.*}}%ctaid.x
// CHECK: ld.global.nc.f32
// CHECK: st.shared.f32
// CHECK: bar.sync 0
// CHECK: ld.shared.f32
// CHECK: st.global.f32
// HOPPER: .version 8.0
// HOPPER: .target sm_90a
