// Layout parameters are checked: strides must fit the 32-bit offsets (once
// strided(2^40, 1) was silently truncated), swizzle(B, M, S) must be a
// permutation within a 32-bit offset (once swizzle(3, 4, 70) was accepted),
// and shared and register tensors must be addressable with 32-bit offsets
// (once a shared tensor whose size overflowed crashed inside LLVM).
// RUN: %tmc %s --split-input-file --verify-diagnostics
// RUN: not %tmc %s --split-input-file 2>&1 | FileCheck %s

kernel k(X: f32[N, 4] strided(1099511627776, 1)) block(32) {  // expected-error {{stride 1099511627776 is too large: a stride must be below 2^31}}
}
// CHECK: fail_layouts.tm:9:31: error: stride 1099511627776 is too large: a stride must be below 2^31
// CHECK-NEXT: kernel k(X: f32[N, 4] strided(1099511627776, 1)) block(32) {
// CHECK-NEXT: {{^}}                              ^~~~~~~~~~~~~

// -----
kernel k() block(32) {
  shared a: f32[4, 4] strided(2147483648, 1);  // expected-error {{stride 2147483648 is too large}}
  shared b: f32[4, 4] strided(2147483647, 1);  // expected-error {{shared tensor 'b' is too large: it spans 6442450945 elements, and its 32-bit offsets address at most 2147483647}}
}

// -----
kernel k() block(32) {
  shared a: f32[16, 16] swizzle(3, 4, 70);  // expected-error {{invalid swizzle(B = 3, M = 4, S = 70): B + M + S must be at most 31, the bits of a 32-bit offset}}
  shared b: f32[16, 16] swizzle(3, 4, 2);   // expected-error {{invalid swizzle(B = 3, M = 4, S = 2): the shift S must be at least B, or the XORed bits overlap the bits they change}}
  shared c: f32[16, 16] swizzle(-1, 4, 2);  // expected-error {{invalid swizzle(B = -1, M = 4, S = 2): the number of bits B must not be negative}}
  shared d: f32[16, 16] swizzle(1, -4, 2);  // expected-error {{invalid swizzle(B = 1, M = -4, S = 2): the base M must not be negative}}
  shared e: f32[16, 16] swizzle(1, 40, 2);  // expected-error {{invalid swizzle(B = 1, M = 40, S = 2): B + M + S must be at most 31}}
  shared ok: f32[16, 16] swizzle(2, 1, 3);
  ok[0, 0] = 1.0;
}
// CHECK: fail_layouts.tm:23:39: error: invalid swizzle(B = 3, M = 4, S = 70)
// CHECK: fail_layouts.tm:24:39: error: invalid swizzle(B = 3, M = 4, S = 2)

// -----
kernel k(X: f32[N]) block(32) {
  shared a: f32[4, 4] strided(N, 1);  // expected-error {{shared tensor strides must be compile-time constants}}
  register r: f32[4, 4] strided(N, 1);  // expected-error {{register tensor strides must be compile-time constants}}
}

// -----
kernel k() block(32) {
  shared a: f32[2147483647, 2147483647, 4];  // expected-error {{shared tensor 'a' is too large: it spans more than 2^63 elements}}
  shared b: f32[65536, 65536, 65536];        // expected-error {{shared tensor 'b' is too large: it spans 281474976710656 elements}}
  register c: u8[65536, 32768];              // expected-error {{register tensor 'c' is too large: it spans 2147483648 elements}}
}
// CHECK: fail_layouts.tm:42:13: error: shared tensor 'a' is too large: it spans more than 2^63 elements, and its 32-bit offsets address at most 2147483647
// CHECK-NEXT: shared a: f32[2147483647, 2147483647, 4];
// CHECK-NEXT: {{^}}            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
