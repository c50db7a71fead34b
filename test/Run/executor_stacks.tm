// The executor's fiber stacks: mapped once and reused by every block and
// launch (--bench repeats the launch), 1 MiB each with a guard page. A
// register array that fits runs; one that does not is a clear error with
// exit code 1, not a crash or a corrupted neighbour.
// RUN: %tmc run %s --kernel local_array --shape N=1000 -D S=8 --bench | FileCheck %s --check-prefix=FITS
// RUN: %tmc run %s --kernel local_array --shape N=100 -D S=100000 | FileCheck %s --check-prefix=FITS
// FITS: unwritten:  0 of
// FITS: result:     PASS
// More than the GPU's 512 KiB of local memory per thread is refused when
// the kernel is compiled (check-register-memory), before any run.
// RUN: not %tmc run %s --kernel local_array --shape N=100 -D S=200000 2>&1 | FileCheck %s --check-prefix=TOO-LARGE
// TOO-LARGE: error: kernel 'local_array' needs 800000 bytes of register tensors per thread, more than the limit of 524288

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel local_array<S: int in [8, 100000, 200000]>(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
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

// Each function fits the limit, but a kernel and the function it calls
// need more than the CPU executor's 1 MiB fiber stack together: a clear
// error with exit code 1, not a crash or a corrupted neighbour.
// RUN: not %tmc run %s --kernel nested --shape N=100 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: tmc: error: thread 0 of block ({{[0-9]}}, 0, 0) in kernel 'nested' overflowed its 1024 KiB stack on the CPU executor: its register arrays and local variables are too large

func deeper(X: f32[N], t: i32) -> f32 {
  register q: f32[100000];
  for k in range(100000) { q[k] = X[t] * f32(k % 3); }
  return q[(t * 3) % 100000];
}

func deep(X: f32[N], t: i32) -> f32 {
  register q: f32[100000];
  for k in range(100000) { q[k] = X[t] * f32(k % 5) + deeper(X, t); }
  return q[(t * 7) % 100000];
}

kernel nested(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  register r: f32[100000];
  let t = blockIdx.x * 64 + threadIdx.x;
  if (t < N) {
    for k in range(100000) { r[k] = X[t] * f32(k % 7) + deep(X, t); }
    Y[t] = r[(t * 5) % 100000];
  }
}
