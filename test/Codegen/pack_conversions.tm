// Two f32 -> f16 (bf16) conversions that fill one 32-bit register are one
// cvt.rn.f16x2.f32 (cvt.rn.bf16x2.f32), which converts its first operand
// into the upper half (lane 1) and its second into the lower (lane 0):
// codegen/nvptx/pack_conversions.h. The scalar tails stay cvt.rn.f16.f32.
// REQUIRES: ptxas
// RUN: %tmc %s --emit=ptx --arch=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas-verify sm_90a < %t.ptx
// sm_80, the oldest target, has the packed conversions.
// RUN: %tmc %s --emit=ptx --arch=sm_80 -o %t80.ptx
// RUN: FileCheck %s < %t80.ptx
// RUN: %ptxas-verify sm_80 < %t80.ptx
// TMC_LLVM_OPTIONS's -print-after knows the pass by its pipeline name.
// RUN: env TMC_LLVM_OPTIONS=-print-after=tmc-pack-conversions %tmc %s --kernel to_half --emit=ptx --arch=sm_90a -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// PRINT: IR Dump After {{.*}}PackConversionsPass on to_half
// PRINT: call <2 x half> @llvm.nvvm.ff2f16x2.rn(float
// Without the pass (tmc's pipeline up to it, named in full as
// TMC_LLVM_PIPELINE allows) every conversion is its own: the checks above
// depend on it.
// RUN: env TMC_LLVM_PIPELINE='function(mem2reg,sroa,early-cse,instcombine,simplifycfg,infer-alignment,load-store-vectorizer)' %tmc %s --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=SCALAR
// SCALAR-NOT: f16x2.f32
// SCALAR: cvt.rn.f16.f32
// SCALAR-NOT: f16x2.f32

// A thread's four contiguous elements: two pairs, each in lane order.
kernel to_half(X: f32[N], Y: f16[N]) grid(cdiv(N, 512)) block(128) {
  for (i) in spatial(128) * repeat(4) on threadIdx.x {
    let g = blockIdx.x * 512 + i;
    if (g < N) { Y[g] = f16(X[g]); }
  }
}
// CHECK-LABEL: .entry to_half(
// CHECK: ld.global.nc.v4.f32 {%f[[X0:[0-9]+]], %f[[X1:[0-9]+]], %f[[X2:[0-9]+]], %f[[X3:[0-9]+]]}
// CHECK-DAG: cvt.rn.f16x2.f32 %r{{[0-9]+}}, %f[[X1]], %f[[X0]];
// CHECK-DAG: cvt.rn.f16x2.f32 %r{{[0-9]+}}, %f[[X3]], %f[[X2]];
// CHECK: st.global.v4.b16
// CHECK: cvt.rn.f16.f32
// CHECK-NOT: f16x2.f32
// CHECK-LABEL: .entry to_bf16_pair(

// bf16, the converted values computed first.
kernel to_bf16_pair(X: f32[N], Y: bf16[N]) grid(cdiv(N, 256)) block(128) {
  for (i) in spatial(128) * repeat(2) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) { Y[g] = bf16(X[g] * 2.0); }
  }
}
// CHECK: ld.global.nc.v2.f32 {%f[[Y0:[0-9]+]], %f[[Y1:[0-9]+]]}
// CHECK-DAG: add.f32 %f[[D0:[0-9]+]], %f[[Y0]], %f[[Y0]];
// CHECK-DAG: add.f32 %f[[D1:[0-9]+]], %f[[Y1]], %f[[Y1]];
// CHECK: cvt.rn.bf16x2.f32 %r[[W:[0-9]+]], %f[[D1]], %f[[D0]];
// CHECK: st.global.b32 [%rd{{[0-9]+}}], %r[[W]];
// CHECK: cvt.rn.bf16.f32
