// Compile-time integer constants are exact (u64 up to 2^64 - 1), typed
// shifts wrap to the type, casts of constants must fit, and expressions of
// literals that are not compile-time values take their default type
// (docs/language.md §5, §8). The folded values appear in the IR.
// RUN: %tmc %s --emit=ir | FileCheck %s

let top = 9223372036854775808u64;        // 2^63
let all = ~0u64;                         // 2^64 - 1
let half = 18446744073709551615u64 >> 1; // 2^63 - 1
let untyped_big = 9223372036854775808;   // no context: u64
let lowest = -9223372036854775808;       // i64
let wide = 1 << 40;                      // untyped: exact, then i64
let wrapped = 0xFFu8 << 4;               // typed: bits shifted out are dropped
let sign = 1i32 << 31;
let float_edges = i8(127.9) + i8(-128.9);
let toward_zero = u8(-0.5);
let near_top = u64(1.8e19);
let smaller = min(1.5, 2);
let smallest = min(-1, 9223372036854775808);

kernel k(U: u64[N], I: i64[N], S: i32[N], B: u8[N], F: f32[N], H: f16[N]) block(32) {
  let i = threadIdx.x;
  U[i] = top + U[i] + all + half + untyped_big;
  I[i] = lowest + wide + I[i];
  S[i] = sign + S[i];
  S[i] = float_edges + smallest;
  B[i] = wrapped + toward_zero;
  U[i] = near_top;
  F[i] = H[i] + abs(1.0) + smaller;   // abs(1.0) is an f32: f16 + f32 is f32
}
// CHECK-LABEL: kernel k(
// CHECK: U[i] = ((((9223372036854775808u64 + U[i]) + 18446744073709551615u64) + 9223372036854775807u64) + 9223372036854775808u64)
// CHECK: I[i] = (-9223370937343148032i64 + I[i])
// CHECK: S[i] = (-2147483648 + S[i])
// CHECK: S[i] = -2
// CHECK: B[i] = 240u8
// CHECK: U[i] = 18000000000000000000u64
// CHECK: F[i] = ((f32(H[i]) + abs(1.0)) + 1.5)

// A constant of a float type holds that type's value: an f32 constant is a
// float, an f16 one a half, and typed arithmetic rounds each result to its
// type (untyped literals stay exact). f64(f16(0.1)) was 0.1, f64(0.1f32)
// 0.1, and f16(1.0004882812509095f32) 1 + 2^-10, though the f32 is exactly
// 1 + 2^-11, a tie that rounds to even.
let f32_tenth = 0.1f32;
kernel typed_floats(D: f64[N], H: f16[N]) block(32) {
  let i = threadIdx.x;
  D[i] = f64(f32_tenth);
  H[i] = f16(1.0004882812509095f32);
  H[i] = f16(1.0004882812509095);
  D[i] = f64(0.1f32 * 3.0);
  D[i] = 0.1 * 3.0;
  D[i] = f64(f16(0.1));
  D[i] = f64(max(0.1f16, 0.2));               // the untyped 0.2 as an f16
  D[i] = f64(false ? 0.1f16 : 0.2);
  D[i] = f64(select(false, 0.1f32, 0.2));
  D[i] = f64(f32(9007199791611905));          // 2^53 + 2^29 + 1: rounded once, to 2^53 + 2^30
  D[i] = f64(bf16(1157425104234217473));      // 2^60 + 2^52 + 1: just past a tie, up
}
// CHECK-LABEL: kernel typed_floats(
// CHECK: D[i] = 0.10000000149011612f64
// CHECK-NEXT: H[i] = 1.0f16
// CHECK-NEXT: H[i] = 1.0009765625f16
// CHECK-NEXT: D[i] = 0.30000001192092896f64
// CHECK-NEXT: D[i] = 0.30000000000000004f64
// CHECK-NEXT: D[i] = 0.0999755859375f64
// CHECK-NEXT: D[i] = 0.199951171875f64
// CHECK-NEXT: D[i] = 0.199951171875f64
// CHECK-NEXT: D[i] = 0.20000000298023224f64
// CHECK-NEXT: D[i] = 9007200328482816.0f64
// CHECK-NEXT: D[i] = 1.161928703861588e+18f64
