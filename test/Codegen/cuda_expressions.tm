// CUDA C for constants and nested calls.
// REQUIRES: nvcc
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/e.cu
// RUN: %nvcc -arch=sm_80 %t/e.cu -o %t/e.o
// RUN: FileCheck %s < %t/e.cu
// The output grows linearly with the nesting: each operand of min, max and
// abs is printed once (26 nested levels once wrote ~1.8 GB).
// RUN: %python -c "import sys; n = len(open(sys.argv[1]).read()); sys.exit(0 if n < 12000 else 'CUDA C of %%d bytes' %% n)" %t/e.cu

// A folded f16 or bf16 infinity or NaN was printed as INFINITYf / NANf;
// now f16 and bf16 constants are their bits (no conversion at run time).
kernel special(H: f16[4], B: bf16[4]) block(4) {
  let t = threadIdx.x;
  H[t] = H[t] - f16(1.0) / f16(0.0);
  B[t] = B[t] * (bf16(0.0) / bf16(0.0));
}
// CHECK-LABEL: special(
// CHECK: = (__half)(H[{{.*}}] - __half(__half_raw{0x7c00u}));
// CHECK: = (__nv_bfloat16)(B[{{.*}}] * __nv_bfloat16(__nv_bfloat16_raw{0x{{7f|ff}}c0u}));

// Constants that are not f16 or bf16 values are their bits too, rounded
// once from the double as the PTX path's LLVM folds them: 0.1 and 1/3 were
// converted at run time through float, and 1 + 2^-11 + 2^-40, just above
// the midpoint of 1.0 and 1 + 2^-10, rounded twice to 1.0 (0x3c00).
kernel inexact(H: f16[4], B: bf16[4]) block(4) {
  let t = threadIdx.x;
  H[t] = H[t] * 0.1 + f16(1.0 / 3.0) + f16(1.0004882812509095);
  B[t] = B[t] * 0.3 + bf16(0.1);
}
// CHECK-LABEL: inexact(
// CHECK-NOT: (__half)({{[0-9]}}
// CHECK: __half(__half_raw{0x2e66u})
// CHECK-SAME: __half(__half_raw{0x3555u})
// CHECK-SAME: __half(__half_raw{0x3c01u})
// CHECK-NOT: (__nv_bfloat16)({{[0-9]}}
// CHECK: __nv_bfloat16(__nv_bfloat16_raw{0x3e9au})
// CHECK-SAME: __nv_bfloat16(__nv_bfloat16_raw{0x3dcdu})

kernel nested(X: i32[4], Y: i8[4], Z: f16[4], U: u16[4]) block(4) {
  let t = threadIdx.x;
  let x = X[t];
  X[t] = min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(x, 0), 100), 1), 99), 2), 98), 3), 97), 4), 96), 5), 95), 6), 94), 7), 93), 8), 92), 9), 91), 10), 90), 11), 89), 12), 88), 13), 87), 14), 86);
  let y = Y[t];
  Y[t] = abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(y - 0) - 1) - 2) - 3) - 4) - 5) - 6) - 7) - 8) - 9) - 10) - 11) - 12) - 13) - 14) - 15) - 16) - 17) - 18) - 19) - 20) - 21) - 22) - 23) - 24) - 25) - 26) - 27) - 28) - 29);
  let z = Z[t];
  Z[t] = max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(max(min(z, f16(100.0)), f16(1.0)), f16(98.0)), f16(3.0)), f16(96.0)), f16(5.0)), f16(94.0)), f16(7.0)), f16(92.0)), f16(9.0)), f16(90.0)), f16(11.0)), f16(88.0)), f16(13.0)), f16(86.0)), f16(15.0)), f16(84.0)), f16(17.0)), f16(82.0)), f16(19.0)), f16(80.0)), f16(21.0)), f16(78.0)), f16(23.0)), f16(76.0)), f16(25.0)), f16(74.0)), f16(27.0)), f16(72.0)), f16(29.0));
  U[t] = abs(U[t]);
}
// CHECK-LABEL: nested(
// CHECK: = tmc_min<int32_t>(tmc_max<int32_t>(tmc_min<int32_t>(
// CHECK: = tmc_abs<int8_t>((int8_t)(tmc_abs<int8_t>(
// The absolute value of an unsigned number is the number.
// CHECK: U[t_0] = U[t_0];

// A register tensor declared in an unrolled loop (fuzzer finding, also
// inside a guard that split-tails drops): each copy is declared once more
// in one C scope, so later copies get their own names.
kernel unrolled_alloc(X: f32[N], Z: f32[N]) grid(1) block(32) {
  for i in spatial(32) * repeat(2) on threadIdx.x {
    if (i < N) {
      register tmp: f32[2];
      tmp[0] = X[i];
      tmp[1] = tmp[0];
      Z[i] = tmp[1];
    }
  }
}
// CHECK-LABEL: unrolled_alloc(
// CHECK: float tmp[2];
// CHECK: tmp[1] = tmp[0];
// CHECK: float tmp_copy1[2];
// CHECK: tmp_copy1[1] = tmp_copy1[0];
