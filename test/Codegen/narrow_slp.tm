// The SLP vectorizer pairs neighbouring 16-bit operations into one on
// <2 x f16> or <2 x bf16> (`fma.rn.f16x2`); tmc runs it only on functions
// that compute on 8- or 16-bit values (codegen/nvptx/narrow_slp.h), which
// these do. The full tile's pair is one packed fma, the tail's scalar ones.
// REQUIRES: ptxas
// RUN: %tmc %s --emit=ptx --arch=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas-verify sm_90a < %t.ptx
// TMC_LLVM_OPTIONS's -print-after knows the pass by its pipeline name: the
// pair is one <2 x f16> multiply and add right after it.
// RUN: env TMC_LLVM_OPTIONS=-print-after=tmc-narrow-slp %tmc %s --emit=ptx --arch=sm_90a -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// PRINT: IR Dump After {{.*}}NarrowSlpPass on axpy_h
// PRINT: fmul <2 x half>
// PRINT-NEXT: fadd <2 x half>
// Without SLP (a short pipeline named in full, as TMC_LLVM_PIPELINE
// allows; tmc's own without tmc-narrow-slp gives the same scalar code),
// the same kernel has no packed arithmetic: the test above depends on it.
// RUN: env TMC_LLVM_PIPELINE='function(mem2reg,sroa,early-cse,instcombine,simplifycfg,load-store-vectorizer)' %tmc %s --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=SCALAR

kernel axpy_h(X: f16[N], Y: f16[N], a: f16) grid(cdiv(N, 256)) block(128) {
  for (i) in spatial(128) * repeat(2) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) { Y[g] = a * X[g] + Y[g]; }
  }
}
// CHECK-LABEL: .entry axpy_h(
// CHECK: fma.rn.f16x2
// CHECK: fma.rn.f16 {{.*}}
// SCALAR-LABEL: .entry axpy_h(
// SCALAR-NOT: f16x2
// SCALAR: fma.rn.f16

kernel scale_bf(X: bf16[N], Y: bf16[N]) grid(cdiv(N, 256)) block(128) {
  for (i) in spatial(128) * repeat(2) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) { Y[g] = X[g] * X[g]; }
  }
}
// CHECK-LABEL: .entry scale_bf(
// CHECK: mul.bf16x2
