// A planted fault: `sync` inside a branch that depends on the thread: the
// threads that skip it never arrive.
// RUN: not %tmc run %s --shape N=64 2>&1 | FileCheck %s

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel divergent(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  shared s: f32[64];
  let t = threadIdx.x;
  s[t] = X[blockIdx.x * 64 + t];
  if (t < 32) {
    sync;
  }
  Y[blockIdx.x * 64 + t] = s[63 - t];
}
// CHECK: fault_divergent_sync.tm:12:5: error: barrier divergence in kernel 'divergent': thread 0 of block (0, 0, 0) waits here, but thread 32 has already returned
// CHECK-NEXT: sync;
