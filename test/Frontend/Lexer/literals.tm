// Numeric literals: bases, digit separators, type suffixes.
// RUN: %tmc %s --emit=ast | FileCheck %s

let a = 0x1F;          // CHECK: a = 31
let b = 0b1010_1010;   // CHECK: b = 170
let c = 1_000_000;     // CHECK: c = 1000000
let d = 7u8;           // CHECK: d = 7u8
let e = 1.5e-3f16;     // CHECK: e = 1.5e-3f16
let f = 2f;            // CHECK: f = 2f
let g = 3u;            // CHECK: g = 3u32
let h = 0xFFu64;       // CHECK: h = 255u64
let i = 6.02e23;       // CHECK: i = 6.02e23
