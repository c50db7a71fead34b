// Planted faults: lanes of one warp at different warp operations. Every
// lane named in a shuffle's mask (all 32) must execute the same shuffle;
// the report names both places (-D V picks the fault).
// RUN: not %tmc run %s --shape N=64 -D V=0 2>&1 | FileCheck %s --check-prefix=XORDOWN
// RUN: not %tmc run %s --shape N=64 -D V=1 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: not %tmc run %s --shape N=64 -D V=2 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: not %tmc run %s --shape N=64 -D V=3 2>&1 | FileCheck %s --check-prefix=SAMEKIND
// The correct kernel (every lane at every shuffle) passes.
// RUN: %tmc run %s --shape N=64 -D V=4 | FileCheck %s --check-prefix=OK

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel warp_faults<V: int in [0, 1, 2, 3, 4]>(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  let t = blockIdx.x * 64 + threadIdx.x;
  var v: f32 = X[t];
  var w: f32 = 0.0;
  if (V == 0) {
    // Half the warp at shfl_xor, the other half at shfl_down.
    if (lane_id < 16) {
      w = shfl_xor(v, 1);
    } else {
      w = shfl_down(v, 1);
    }
  }
  if (V == 1) {
    // Half the warp returns while the other half waits at the shuffle.
    if (lane_id >= 16) {
      return;
    }
    w = shfl_xor(v, 1);
  }
  if (V == 2) {
    // Half the warp skips the shuffle and waits at a barrier.
    if (lane_id < 16) {
      w = shfl_xor(v, 1);
    }
    sync;
  }
  if (V == 3) {
    // The same kind of shuffle, but at two call sites.
    if (lane_id % 2 == 0) {
      w = shfl_xor(v, 1);
    } else {
      w = shfl_xor(v, 1);
    }
  }
  if (V == 4) {
    w = shfl_xor(v, 1);
    w = shfl_xor(w, 1);
  }
  Y[t] = V == 4 ? w : v + 0.0 * w;
}
// XORDOWN: fault_warp_shuffle.tm:20:{{[0-9]+}}: error: warp divergence in kernel 'warp_faults': thread 0 (lane 0 of warp 0) of block (0, 0, 0) waits at this warp operation, but thread 16 (lane 16) waits at another one
// XORDOWN-NEXT: w = shfl_xor(v, 1);
// XORDOWN: fault_warp_shuffle.tm:22:{{[0-9]+}}: note: while thread 16 waits here
// XORDOWN-NEXT: w = shfl_down(v, 1);
// XORDOWN: 1 error generated.
// SKIP: fault_warp_shuffle.tm:30:{{[0-9]+}}: error: warp divergence in kernel 'warp_faults': thread 0 (lane 0 of warp 0) of block (0, 0, 0) waits at this warp operation, but thread 16 (lane 16) has already returned
// SKIP: 1 error generated.
// BARRIER: fault_warp_shuffle.tm:35:{{[0-9]+}}: error: warp divergence in kernel 'warp_faults': thread 0 (lane 0 of warp 0) of block (0, 0, 0) waits at this warp operation, but thread 16 (lane 16) waits at a barrier
// BARRIER: fault_warp_shuffle.tm:37:5: note: while thread 16 waits here
// BARRIER-NEXT: sync;
// SAMEKIND: fault_warp_shuffle.tm:42:{{[0-9]+}}: error: warp divergence in kernel 'warp_faults': thread 0 (lane 0 of warp 0) of block (0, 0, 0) waits at this warp operation, but thread 1 (lane 1) waits at another one
// SAMEKIND: fault_warp_shuffle.tm:44:{{[0-9]+}}: note: while thread 1 waits here
// OK: result:     PASS
