// Threads of one block waiting at two different barriers: divergence, with
// both places named.
// RUN: not %tmc run %s --shape N=64 2>&1 | FileCheck %s

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel two_barriers(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  let t = threadIdx.x;
  if (t < 32) {
    sync;
  } else {
    sync;
  }
  Y[blockIdx.x * 64 + t] = X[blockIdx.x * 64 + t];
}
// CHECK: fault_two_barriers.tm:10:5: error: barrier divergence in kernel 'two_barriers': thread 0 of block (0, 0, 0) waits here, but thread 32 waits at another barrier
// CHECK: fault_two_barriers.tm:12:5: note: while thread 32 waits here
