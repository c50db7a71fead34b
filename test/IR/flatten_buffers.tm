// flatten-buffers: layouts, and the width of offsets into global tensors:
// 32 bits for dense (row- and col-major) tensors by default, 64 bits with
// -findex-bits=64, and always for strided and swizzled ones.
// RUN: %tmc %s --emit=ir | FileCheck %s
// RUN: %tmc %s --emit=ir -findex-bits=64 | FileCheck %s --check-prefix=WIDE
// RUN: %tmc %s --emit=meta | FileCheck %s --check-prefix=META
// RUN: %tmc %s --emit=meta -findex-bits=64 | FileCheck %s --check-prefix=META64
// RUN: not %tmc %s -findex-bits=48 2>&1 | FileCheck %s --check-prefix=BAD

kernel k(A: f32[M, K] col_major, B: f32[M, K] strided(1, M), C: f32[M, K]) block(1) {
  shared s: f32[8, 32] swizzle(3, 0, 5);
  s[1, 2] = A[3, 4];
  C[5, 6] = B[7, 8] + s[1, 2];
}
// Swizzle(3, 0, 5) of row 1, column 2: 34 ^ ((34 & 224) >> 5) = 35.
// CHECK: s[35] = A[((4 * M) + 3)]
// CHECK: C[((5 * K) + 6)] = (B[(7i64 + (8i64 * i64(M)))] + s[35])
// WIDE: s[35] = A[((4i64 * i64(M)) + 3i64)]
// WIDE: C[((5i64 * i64(K)) + 6i64)] = (B[(7i64 + (8i64 * i64(M)))] + s[35])
// META: "index_bits": 32
// META64: "index_bits": 64
// BAD: error: invalid value '48' in '-findex-bits=48'; expected 32 or 64
