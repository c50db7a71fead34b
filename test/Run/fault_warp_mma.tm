// Planted faults: mma and ldmatrix reached by only part of a warp, or in a
// warp with fewer than 32 threads. The hardware needs every lane at the
// same .sync.aligned instruction; the executor reports it at the line
// instead of reading the missing lanes' fragments (-D V picks the fault).
// RUN: not %tmc run %s --shape N=64 -D V=0 2>&1 | FileCheck %s --check-prefix=RETURNED
// RUN: not %tmc run %s --shape N=64 -D V=1 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not %tmc run %s --shape N=64 -D V=2 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: not %tmc run %s --shape N=64 -D V=3 -D B=48 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not %tmc run %s --shape N=64 -D V=4 -D B=48 2>&1 | FileCheck %s --check-prefix=PARTIAL-LD
// Every lane at both: runs.
// RUN: %tmc run %s --shape N=64 -D V=5 | FileCheck %s --check-prefix=OK

import std.mma;  // mma_a, mma_b, mma_c

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel mma_faults<V: int in [0, 1, 2, 3, 4, 5], B: int in [48, 64] = 64>(X: f32[N], Y: f32[N])
    implements copy grid(cdiv(N, 64)) block(B)
{
  shared sa: f16[32, 16];
  register a: f16[16, 16] by mma_a;
  register b: f16[16, 8] by mma_b;
  register c: f32[16, 8] by mma_c;
  for (i, k) in repeat(8, 1) * spatial(4, 16) on threadIdx.x {
    if (i < 32) { sa[i, k] = f16(1.0); }
  }
  for (i, j) in mma_c on lane_id { c[i, j] = 0.0; }
  for (k, n) in mma_b on lane_id { b[k, n] = f16(1.0); }
  sync;
  if (V == 0) {
    if (lane_id >= 16) { return; }
    mma(c, a, b, c);
  }
  if (V == 1) {
    if (lane_id < 16) {
      ldmatrix(a, sa, 0, 0);
    } else {
      mma(c, a, b, c);
    }
  }
  if (V == 2) {
    if (lane_id < 8) {
      mma(c, a, b, c);
    }
    sync;
  }
  if (V == 3) {
    mma(c, a, b, c);
  }
  if (V == 4) {
    ldmatrix(a, sa, 0, 0);
  }
  if (V == 5) {
    ldmatrix(a, sa, 16, 0);
    mma(c, a, b, c);
  }
  let t = blockIdx.x * 64 + threadIdx.x;
  if (t < N) { Y[t] = X[t]; }
}
// RETURNED: fault_warp_mma.tm:32:{{[0-9]+}}: error: warp divergence in kernel 'mma_faults': thread 0 (lane 0 of warp 0) of block (0, 0, 0) waits at this warp operation, but thread 16 (lane 16) has already returned
// RETURNED-NEXT: mma(c, a, b, c);
// RETURNED: 1 error generated.
// OTHER: fault_warp_mma.tm:36:{{[0-9]+}}: error: warp divergence in kernel 'mma_faults': thread 0 (lane 0 of warp 0) of block (0, 0, 0) waits at this warp operation, but thread 16 (lane 16) waits at another one
// OTHER-NEXT: ldmatrix(a, sa, 0, 0);
// OTHER: fault_warp_mma.tm:38:{{[0-9]+}}: note: while thread 16 waits here
// OTHER-NEXT: mma(c, a, b, c);
// BARRIER: fault_warp_mma.tm:43:{{[0-9]+}}: error: warp divergence in kernel 'mma_faults': thread 0 (lane 0 of warp 0) of block (0, 0, 0) waits at this warp operation, but thread 8 (lane 8) waits at a barrier
// BARRIER: fault_warp_mma.tm:45:5: note: while thread 8 waits here
// PARTIAL: fault_warp_mma.tm:48:{{[0-9]+}}: error: warp divergence in kernel 'mma_faults': thread 32 (lane 0 of warp 1) of block (0, 0, 0) waits at this warp operation, but the warp has only 16 threads (the block has 48); this operation needs all 32 lanes
// PARTIAL-LD: fault_warp_mma.tm:51:{{[0-9]+}}: error: warp divergence in kernel 'mma_faults': thread 32 (lane 0 of warp 1) of block (0, 0, 0) waits at this warp operation, but the warp has only 16 threads (the block has 48); this operation needs all 32 lanes
// OK: result:     PASS
