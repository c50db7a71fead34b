// The executor's fiber stacks: mapped once and reused by every block and
// launch (--bench repeats the launch), 1 MiB each with a guard page. A
// register array that fits runs; one that does not is a clear error with
// exit code 1, not a crash or a corrupted neighbour.
// RUN: %tmc run %s --shape N=1000 -D S=8 --bench | FileCheck %s --check-prefix=FITS
// RUN: %tmc run %s --shape N=100 -D S=200000 | FileCheck %s --check-prefix=FITS
// FITS: unwritten:  0 of
// FITS: result:     PASS
// RUN: not %tmc run %s --shape N=100 -D S=400000 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: tmc: error: thread 0 of block ({{[0-9]}}, 0, 0) in kernel 'local_array' overflowed its 1024 KiB stack on the CPU executor: its register arrays and local variables are too large

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel local_array<S: int in [8, 200000, 400000]>(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  register r: f32[S];
  shared s: f32[64];
  let t = blockIdx.x * 64 + threadIdx.x;
  for k in range(S) {
    r[k] = t < N ? X[t] : 0.0;
  }
  s[threadIdx.x] = r[(t * 7) % S];
  sync;
  if (t < N) {
    Y[t] = s[threadIdx.x];
  }
}
