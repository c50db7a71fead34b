// Conversions to bf16 round once, to nearest even, on the CPU executor as
// on the GPU: each value below lies just above a tie between two bf16
// values, and rounding it first to f32 (or an i64 first to f64) would land
// exactly on the tie and round down to the even neighbour. f64 -> bf16 once
// failed to compile for the CPU (`Symbols not found: __truncdfbf2`).
// The inputs are computed at run time (z is 0.0 but not a constant), so that
// no conversion is folded by the compiler.
// RUN: %tmc run %s --check-bounds | FileCheck %s

op all_true(X: f64[1]) -> bool[10] {
  out[k] = true;
}

kernel rounding(X: f64[1], R: bool[10]) implements all_true block(1) {
  let z = X[0] * 0.0;
  let one = i64(z + 1.0);
  R[0] = bf16(z + 1.0078125 + 0.000000000931322574615478515625) == 1.0078125;   // 1 + 2^-8 + 2^-30
  R[1] = bf16(-1.0078125 - z - 0.000000000931322574615478515625) == -1.0078125;
  R[2] = bf16(i32(one) * 16842753) == 16908288.0;                                // 2^24 + 2^16 + 1
  R[3] = bf16(u32(one) * 2155872257u32) == 2164260864.0;                         // 2^31 + 2^23 + 1
  R[4] = bf16(one * 1157425104234217473i64) == 1161928703861587968.0;            // 2^60 + 2^52 + 1
  R[5] = bf16(-one * 1157425104234217473i64) == -1161928703861587968.0;
  let u = (u64(one) << 63u64) + (u64(one) << 55u64) + u64(one);                  // 2^63 + 2^55 + 1
  R[6] = bf16(u) == 9295429630892703744.0;
  R[7] = bf16(i64(one) << 63i64) == -9223372036854775808.0;                      // INT64_MIN, exact
  R[8] = bool(f16(z + 0.5)) && !bool(bf16(z));                                   // bool of f16 / bf16
  R[9] = f64(bf16(z + 1.0e300)) > 1.0e38 && f32(bf16(z + 3.3e38)) > 3.0e38;      // overflow: inf
}
// CHECK: unwritten:  0 of 10
// CHECK: result:     PASS
