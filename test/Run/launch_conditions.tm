// Shared memory sized by a compile-time parameter chosen from the shape:
// `where BC >= C` is a launch condition; tmc run picks the first listed
// candidate whose condition holds for the shapes, as a launch must; above
// 48 KiB the shared memory is dynamic.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --shape R=3,C=100 --check-bounds --check-races | FileCheck %s --check-prefix=SMALL
// RUN: %tmc run %s --shape R=5,C=1000 | FileCheck %s --check-prefix=MID
// RUN: %tmc run %s --shape R=2,C=10000 --seed 3 | FileCheck %s --check-prefix=BIG
// RUN: not %tmc run %s --shape R=2,C=20000 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not %tmc run %s --shape R=2,C=2000 -D BC=1024 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: %tmc run %s --shape R=2,C=1000 --profile=json | FileCheck %s --check-prefix=JSON
// RUN: %tmc %s --emit=meta | FileCheck %s --check-prefix=META
// RUN: %tmc %s -D BC=16384 --emit=meta | FileCheck %s --check-prefix=META-BIG
// RUN: %tmc %s -D BC=16384 --emit=ptx --arch=sm_90a | %ptxas-verify --no-spills sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s -D BC=16384 --emit=cuda -o %t/k.cu && %nvcc -arch=sm_90a %t/k.cu -o %t/k.o
// SMALL: kernel:     softmax_row (cpu, C=100, R=3)
// SMALL: result:     PASS
// MID: kernel:     softmax_row (cpu, C=1000, R=5), candidate BC=1024 chosen at launch
// MID: result:     PASS
// BIG: kernel:     softmax_row (cpu, C=10000, R=2), candidate BC=16384 chosen at launch
// BIG: result:     PASS
// NONE: error: no candidate of kernel 'softmax_row' serves these shapes (C=20000, R=2); tried BC=256; BC=1024; BC=4096; BC=16384: (16384 >= C) does not hold for the last
// FIXED: error: kernel 'softmax_row' does not serve these shapes (C=2000, R=2): (1024 >= C) does not hold, and no compile-time parameter changes it
// JSON: "compile_time": "BC=1024",
// META: "shared_bytes": 1056,
// META: "compile_time": {"BC": 256},
// META-NEXT: "requires": ["(256 >= C)"]
// META-BIG: "shared_bytes": 65568,
// META-BIG-NEXT: "dynamic_shared": true,

op softmax(X: f32[R, C]) -> f32[R, C] {
  let m[r] = max(c < C) X[r, c];
  let s[r] = sum(c < C) exp(X[r, c] - m[r]);
  out[r, c] = exp(X[r, c] - m[r]) / s[r];
}
kernel softmax_row<BC: int in [256, 1024, 4096, 16384]>(X: f32[R, C], Y: f32[R, C])
    implements softmax where BC >= C grid(R) block(256)
{
  shared row: f32[BC];
  shared red: f32[8];
  let r = blockIdx.x;
  var m: f32 = -inf;
  for c in range(threadIdx.x, C, 256) { let v = X[r, c]; row[c] = v; m = max(m, v); }
  for k in unroll(5) { m = max(m, shfl_xor(m, 1 << k)); }
  if (lane_id == 0) { red[warp_id] = m; }
  sync;
  m = red[0];
  for w in unroll(8) { m = max(m, red[w]); }
  sync;
  var s: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) { let e = exp(row[c] - m); row[c] = e; s += e; }
  for k in unroll(5) { s += shfl_xor(s, 1 << k); }
  if (lane_id == 0) { red[warp_id] = s; }
  sync;
  s = 0.0;
  for w in unroll(8) { s += red[w]; }
  for c in range(threadIdx.x, C, 256) { Y[r, c] = row[c] / s; }
}

