// The op reference converts integers as the kernels do (docs/language.md
// §5): a narrowing conversion wraps, and `~` stays within the type. The
// random inputs are small, so X * 20 and X * 40 leave the 8-bit ranges.
// RUN: %tmc run %s --shape N=64 | FileCheck %s

op wrap(X: i32[N]) -> i32[N] { out[i] = i32(i8(X[i] * 20)) + i32(~u8(X[i] * 40)) + i32(u16(X[i])); }

kernel wrap_k(X: i32[N], Y: i32[N]) implements wrap grid(cdiv(N, 32)) block(32) {
  let i = blockIdx.x * 32 + threadIdx.x;
  if (i < N) {
    Y[i] = i32(i8(X[i] * 20)) + i32(~u8(X[i] * 40)) + i32(u16(X[i]));
  }
}
// CHECK: max abs: 0.000e+00
// CHECK: result: PASS
