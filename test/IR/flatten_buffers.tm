// flatten-buffers: layouts and 64-bit offsets into global tensors.
// RUN: %tmc %s --emit=ir | FileCheck %s

kernel k(A: f32[M, K] col_major, B: f32[M, K] strided(1, M), C: f32[M, K]) block(1) {
  shared s: f32[8, 32] swizzle(3, 0, 5);
  s[1, 2] = A[3, 4];
  C[5, 6] = B[7, 8] + s[1, 2];
}
// Swizzle(3, 0, 5) of row 1, column 2: 34 ^ ((34 & 224) >> 5) = 35.
// CHECK: s[35] = A[((4i64 * i64(M)) + 3i64)]
// CHECK: C[((5i64 * i64(K)) + 6i64)] = (B[(7i64 + (8i64 * i64(M)))] + s[35])
