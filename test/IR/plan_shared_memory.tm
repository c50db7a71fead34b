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
