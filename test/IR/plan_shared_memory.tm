// plan-shared-memory: 16-byte aligned offsets in declaration order; the
// total is a multiple of 16 bytes (81 rounded up).
// RUN: %tmc %s --emit=ir | FileCheck %s

kernel k() block(32) {
  shared a: f16[3];          // 6 bytes
  shared b: f32[4, 4];       // at 16
  shared c: u8[1];           // at 80
  a[0] = f16(1.0);
  b[0, 0] = 1.0;
  c[0] = 1u8;
}
// CHECK: shared_bytes(96)
// CHECK: alloc a: shared f16[3] @0
// CHECK: alloc b: shared f32[4, 4] @16
// CHECK: alloc c: shared u8[1] @80

// A tensor is sized by its largest offset + 1, not by the product of its
// dimensions: strided(65, 1) on [4, 4] reaches offset 3 * 65 + 3 (once the
// allocation held 16 elements and the writes went past it). A swizzle
// permutes offsets within aligned blocks of 2^(M + B); a partial last block
// can reach past the product: [1, 11] swizzle(1, 0, 1) maps 10 to 11.
kernel gaps() block(32) {
  shared s: f32[4, 4] strided(65, 1);   // 199 elements: 796 bytes
  shared w: f32[1, 11] swizzle(1, 0, 1); // 12 elements, at 800
  shared t: u8[1];                      // at 848
  s[3, 3] = 1.0;
  w[0, 10] = 1.0;
  t[0] = 1u8;
}
// CHECK-LABEL: kernel gaps
// CHECK: shared_bytes(864)
// CHECK: alloc s: shared f32[4, 4] strided(65, 1) @0
// CHECK: alloc w: shared f32[1, 11] swizzle(1, 0, 1) @800
// CHECK: alloc t: shared u8[1] @848
