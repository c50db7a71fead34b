// What the PTX is made of (issue 8): a*b+c contracts into fma.rn.f32 by
// default and not with -ffp-contract=off; shared memory is addressed with
// 32-bit registers everywhere (loads, stores, ldmatrix, cp.async), never
// through a generic 64-bit address; offsets into global tensors are 32-bit
// (mul.wide.s32 makes the byte offset) unless -findex-bits=64; the CUDA C
// path writes half constants as bits, converted at compile time.
// REQUIRES: ptxas, nvcc
// RUN: %tmc %s --emit=ptx --arch=sm_90a | FileCheck %s
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// RUN: %tmc %s --emit=ptx --arch=sm_90a -ffp-contract=off | FileCheck %s --check-prefix=NOFMA
// RUN: %tmc %s --emit=ptx --arch=sm_90a -findex-bits=64 | FileCheck %s --check-prefix=WIDE
// RUN: not %tmc %s -ffp-contract=maybe 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %tmc %s --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/k.cu && %nvcc -arch=sm_90a -ptx %t/k.cu -o %t/k.ptx
// RUN: FileCheck %s --check-prefix=NVCC < %t/k.ptx
// -ffp-contract=off in the CUDA C path: the _rn intrinsics, which nvcc
// does not fuse (a * b + c was contracted by nvcc as in the default).
// RUN: %tmc %s --emit=cuda -ffp-contract=off -o %t/off.cu && %nvcc -arch=sm_90a -ptx %t/off.cu -o %t/off.ptx
// RUN: FileCheck %s --check-prefix=CUDAOFF < %t/off.cu
// RUN: FileCheck %s --check-prefix=NVCCOFF < %t/off.ptx
// Run on the CPU executor at a shape that divides no tile: the results
// do not depend on the contraction beyond the default tolerance.
// RUN: %tmc run %s --kernel dot_rows --shape R=37,C=45 | FileCheck %s --check-prefix=RESULT
// The tensor-core example's four-way guarded epilogue: the full tile
// (nested guards dropped, N even) stores each lane's column pair as one
// 8-byte store; its CPU run checks both paths.
// RUN: %tmc %S/../../examples/matmul_tensor_core.tm --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=TC
// RUN: %tmc run %S/../../examples/matmul_tensor_core.tm --shape M=70,N=40,K=33 | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %S/../../examples/matmul_tensor_core.tm --shape M=64,N=37,K=32 | FileCheck %s --check-prefix=RESULT
// TC: mma.sync.aligned.m16n8k16
// TC: st.global.v2.f32

import std.mma;

op row_dot(A: f32[R, C], B: f32[R, C]) -> f32[R] {
  out[r] = sum(c < C) A[r, c] * B[r, c];
}

kernel dot_rows(A: f32[R, C], B: f32[R, C], Y: f32[R]) implements row_dot
    grid(cdiv(R, 128)) block(128) {
  shared s: f32[128, 4];
  for r in spatial(128) on threadIdx.x {
    let gr = blockIdx.x * 128 + r;
    var acc = 0.0;
    for c in range(C) {
      if (gr < R) { acc = acc + A[gr, c] * B[gr, c]; }
    }
    s[r, 1] = acc;
  }
  sync;
  for r in spatial(128) on threadIdx.x {
    let gr = blockIdx.x * 128 + r;
    if (gr < R) { Y[gr] = s[r, 1]; }
  }
}
// CUDAOFF-LABEL: void {{.*}}dot_rows(
// CUDAOFF: __fadd_rn({{.*}}, __fmul_rn(
// CUDAOFF-LABEL: void {{.*}}axpy_half(
// CUDAOFF: __hsub_rn(__hadd_rn(__hmul_rn(
// NVCCOFF-LABEL: .entry dot_rows(
// NVCCOFF-NOT: fma.rn
// NVCCOFF: mul.rn.f32
// NVCCOFF: add.rn.f32
// NVCCOFF-LABEL: .entry axpy_half(
// NVCCOFF-NOT: fma.rn
// NVCCOFF: ret;
// CHECK-LABEL: .entry dot_rows(
// CHECK: mul.wide.s32
// CHECK: fma.rn.f32
// CHECK-NOT: cvta{{.*}}shared
// CHECK: st.shared.f32 [%r{{[0-9]+}}{{(\+[0-9]+)?}}]
// CHECK: ld.shared.f32 %f{{[0-9]+}}, [%r{{[0-9]+}}{{(\+[0-9]+)?}}]
// NOFMA-LABEL: .entry dot_rows(
// NOFMA-NOT: fma.rn
// NOFMA: mul.rn.f32
// NOFMA: add.rn.f32
// WIDE-LABEL: .entry dot_rows(
// WIDE-NOT: mul.wide.s32
// WIDE: mul.lo.s64
// BAD: error: invalid value 'maybe' in '-ffp-contract=maybe'; expected fast or off

// f16: two roundings without contraction too (the CUDA C path's __hmul_rn).
kernel axpy_half(X: f16[N], Y: f16[N], a: f16) grid(cdiv(N, 128)) block(128) {
  let g = blockIdx.x * 128 + threadIdx.x;
  if (g < N) { Y[g] = a * X[g] + Y[g] - X[g]; }
}
// RESULT: result:{{ +}}PASS

kernel fragments(A: f16[16, 16], C: f32[16, 8]) block(32) {
  shared sa: f16[16, 16];
  register a: f16[16, 16] by mma_a;
  register b: f16[16, 8] by mma_b;
  register c: f32[16, 8] by mma_c;
  for (i, j) in repeat(8, 1) * spatial(2, 16) on lane_id {
    sa[i, j] = A[i, j];
  }
  sync;
  ldmatrix(a, sa, 0, 0);
  for (k, n) in mma_b on lane_id {
    b[k, n] = 1.0;
  }
  for (i, j) in mma_c on lane_id {
    c[i, j] = 0.0;
  }
  mma(c, a, b, c);
  for (i, j) in mma_c on lane_id {
    C[i, j] = c[i, j];
  }
}
// CHECK-LABEL: .entry fragments(
// CHECK-NOT: cvta{{.*}}shared
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, [%r{{[0-9]+}}{{(\+[0-9]+)?}}];
// CUDA-LABEL: void {{.*}}fragments(
// CUDA-NOT: (__half)(1.0f)
// CUDA: __half(__half_raw{0x3c00u})
// NVCC-LABEL: .entry fragments(
// NVCC-NOT: cvt.rn.f16.f32
// NVCC: ret;
