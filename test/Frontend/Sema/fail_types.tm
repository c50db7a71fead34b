// Types, implicit conversions (lossless only), constant folding.
// RUN: %tmc %s --split-input-file --verify-diagnostics

func f(a: f32, h: f16, i: i32, u: u32, b: bool, l: i64) {
  let _ok1: f32 = h;        // f16 -> f32 is lossless
  let _ok2: i64 = i;
  let _ok3: f64 = i;
  let _ok4 = a + h;         // f32
  let bad1: f16 = a;       // expected-error {{implicit conversion from 'f32' to 'f16' may lose information; write f16(...) to convert explicitly}}
  let bad2: f32 = i;       // expected-error {{implicit conversion from 'i32' to 'f32' may lose information}}
  let bad3 = i + u;        // expected-error {{operands of '+' have types 'i32' and 'u32', and neither converts to the other without loss}}
  let bad4: i32 = b;       // expected-error {{initializer has type 'bool' where 'i32' is expected}}
  let bad5 = b + 1;        // expected-error {{invalid operands to binary '+' ('bool' and 'i32')}}
  let bad6 = a % 2.0;      // expected-error {{invalid operands to binary '%' ('f32' and 'f32')}}
  let bad7 = !i;           // expected-error {{invalid operand to unary '!' ('i32')}}
  let bad8 = i && b;       // expected-error {{invalid operands to binary '&&' ('i32' and 'bool')}}
  let bad9 = b ? a : i;    // expected-error {{incompatible operand types 'f32' and 'i32' in conditional expression}}
  let bad10: i32 = l;      // expected-error {{implicit conversion from 'i64' to 'i32'}}
  let _ok5 = f32(i) + a + f32(l);
  let _ok6 = i32(a) + i;
  let _ok7: u8 = 255;
  let bad11: u8 = 256;     // expected-error {{literal 256 is not exactly representable in type 'u8'}}
  let bad12: f16 = 70000.0; // expected-error {{literal 70000 is not exactly representable in type 'f16'}}
  let bad13: i32 = 1.5;    // expected-error {{implicit conversion from 'f32' to 'i32' may lose information}}
  let _ok8 = h * 2.0;       // the literal takes the type f16
  let _ok9 = i << 3;
  let bad14 = a << 1;      // expected-error {{invalid operands to binary '<<' ('f32' and 'i32')}}
  let bad15 = ~a;          // expected-error {{invalid operand to unary '~' ('f32')}}
  if (i) {                 // expected-error {{condition has type 'i32', expected 'bool'}}
  }
  let bad16 = f32(threadIdx); // expected-error {{cannot cast 'dim3' to 'f32'}}
}

// -----

let big = 2147483647 + 1;       // untyped literals widen to i64
let bad1 = 2147483647i32 + 1;   // expected-error {{constant expression overflows type 'i32'}}
let bad2 = 10 / 0;              // expected-error {{division by zero in constant expression}}
let bad3 = 1i32 << 32;          // expected-error {{shift by 32 is out of range for type 'i32'}}
let bad4 = 300u8;               // expected-error {{integer literal 300 does not fit in type 'u8'}}
let bad5 = 9223372036854775808i64; // expected-error {{integer literal 9223372036854775808 does not fit in type 'i64'}}
let bad6 = 1.0e39f32;           // expected-error {{floating-point literal is out of range for type 'f32'}}
let bad7 = i8(200);             // expected-error {{constant expression overflows type 'i8'}}
let ok = ~0u8;
let bad8 = 1 << 64;             // expected-error {{shift by 64 is out of range for type 'i64'}}

// -----

// The edges of constant folding: u64 reaches 2^64 - 1 and no further; a cast
// of a float constant must fit the integer type, as one of an integer must.
let u64_max = 18446744073709551615u64;
let ok1 = ~0u64;
let bad1 = u64_max + 1;                 // expected-error {{constant expression overflows type 'u64'}}
let bad2 = ~0u64 * 2;                   // expected-error {{constant expression overflows type 'u64'}}
let bad3 = 0u64 - 1;                    // expected-error {{constant expression overflows type 'u64'}}
let bad4: i64 = 9223372036854775808;    // expected-error {{literal 9223372036854775808 is not exactly representable in type 'i64'}}
let bad5 = -9223372036854775808 - 1;    // expected-error {{constant expression overflows type 'i64'}}
let bad6 = 18446744073709551615 + 1;    // expected-error {{constant expression overflows type 'u64'}}
let bad7 = i8(300);                     // expected-error {{constant expression overflows type 'i8'}}
let bad8 = i8(300.0);                   // expected-error {{constant expression overflows type 'i8'}}
let bad9 = i8(-129.0);                  // expected-error {{constant expression overflows type 'i8'}}
let ok2 = i8(-128.9) + i8(127.9);       // truncation toward zero fits
let bad10 = u8(-1.0);                   // expected-error {{constant expression overflows type 'u8'}}
let ok3 = u8(-0.5);                     // 0
let bad11 = u64(1.9e19);                // expected-error {{constant expression overflows type 'u64'}}
let bad12 = i32(1e300);                 // expected-error {{constant expression overflows type 'i32'}}
let bad13 = i32(0.0 / 0.0);             // expected-error {{constant expression overflows type 'i32'}}
let bad14 = u32(-1);                    // expected-error {{constant expression overflows type 'u32'}}
let bad15 = 1u64 << 64;                 // expected-error {{shift by 64 is out of range for type 'u64'}}

// -----

// An expression of literals that is not a compile-time value has its default
// type: abs(1.0) is an f32, so f16 + abs(1.0) is an f32.
func g(h: f16, b: bool) {
  let _ok1: f32 = h + abs(1.0);
  let _ok2: f32 = h * min(2.0, 3.0) + abs(-1.0);
  let _ok3: f16 = h * min(2.0, 3.0);     // min of constants is folded: an untyped 2.0
  let bad1: f16 = h + abs(1.0);          // expected-error {{implicit conversion from 'f32' to 'f16' may lose information}}
  let bad2: f16 = h + (b ? 1.0 : 2.0);   // expected-error {{implicit conversion from 'f32' to 'f16' may lose information}}
  let _ok4: f16 = h + (true ? 1.0 : 2.0);
}

// -----

kernel k() block(32) {
  let x = threadIdx.w;       // expected-error {{no member 'w' in 'dim3'}}
  let m = spatial(4);
  let y = m.size;            // expected-error {{no member 'size' in 'mapping<1, 4, (4)>'}}
  let z = f32(m);            // expected-error {{cannot cast 'mapping<1, 4, (4)>' to 'f32'}}
  let w = m + 1;             // expected-error {{invalid operands to binary '+' ('mapping<1, 4, (4)>' and 'i32')}}
}
