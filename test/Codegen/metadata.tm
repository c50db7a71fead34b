// Kernel metadata: parameters with dtypes and shape symbols, launch
// formulas, shared memory, compile-time values.
// RUN: %tmc %s --emit=meta -D BK=16 | FileCheck %s

kernel k<BK: int in [8, 16] = 8>(A: f32[M, K], v: f32, B: f16[K] col_major)
    grid(cdiv(M, 64), 2) block(64, 2)
{
  shared s: f32[BK, 64];
  s[0, 0] = v;
}
// CHECK: "arch": "sm_80",
// CHECK: "name": "k",
// CHECK: {"name": "A", "kind": "tensor", "dtype": "f32", "shape": ["M", "K"], "layout": "row_major"},
// CHECK-NEXT: {"name": "v", "kind": "scalar", "dtype": "f32"},
// CHECK-NEXT: {"name": "B", "kind": "tensor", "dtype": "f16", "shape": ["K"], "layout": "col_major"},
// CHECK-NEXT: {"name": "M", "kind": "shape", "dtype": "i32"},
// CHECK-NEXT: {"name": "K", "kind": "shape", "dtype": "i32"}
// CHECK: "grid": ["((M + 63) / 64)", "2"],
// CHECK-NEXT: "block": [64, 2],
// CHECK-NEXT: "shared_bytes": 4096,
// CHECK-NEXT: "dynamic_shared": false,
// CHECK-NEXT: "index_bits": 32,
// CHECK-NEXT: "compile_time": {"BK": 16}
