// Hangs: a loop that never ends, or threads that loop while the others wait
// at a barrier, end with a located error once a block has run past
// --timeout (default 5 s), never a hung process (-D V picks the fault).
// RUN: not %tmc run %s --shape N=64 -D V=0 --timeout 0.2 2>&1 | FileCheck %s --check-prefix=FOREVER
// RUN: not %tmc run %s --shape N=64 -D V=1 --timeout 0.2 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: not %tmc run %s --shape N=4096 -D V=2 --timeout=0.3 2>&1 | FileCheck %s --check-prefix=NESTED
// A loop that ends in time is not a hang.
// RUN: %tmc run %s --shape N=64 -D V=3 --timeout 2 | FileCheck %s --check-prefix=OK
// RUN: not %tmc run %s --shape N=64 --timeout=-1 2>&1 | FileCheck %s --check-prefix=BADVALUE
// BADVALUE: tmc: error: --timeout expects a number of seconds from 0 to 1000000, got '-1'

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel hang<V: int in [0, 1, 2, 3] = 3>(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  let t = blockIdx.x * 64 + threadIdx.x;
  var acc: f32 = X[t];
  if (V == 0) {
    while (acc == acc) {
      acc = acc * 1.0;
    }
  }
  if (V == 1) {
    if (threadIdx.x == 3) {
      while (acc == acc) {
        acc = acc * 1.0;
      }
    }
    sync;
  }
  if (V == 2) {
    // Every block loops (the launch ends at the first block's deadline),
    // in a loop nest whose inner loop ends.
    var k: i32 = 0;
    while (k >= 0) {
      for j in range(100) {
        acc = acc + 0.0;
      }
      k = k + 1 - 1;
    }
  }
  if (V == 3) {
    for j in range(1000) {
      acc = acc * 1.0;
    }
  }
  Y[t] = acc;
}
// FOREVER: fault_hang.tm:18:5: error: kernel 'hang' does not finish: thread 0 of block ({{[0-9]+}}, 0, 0) is still in this loop after 0.2 s (--timeout)
// FOREVER-NEXT: while (acc == acc) {
// FOREVER: 1 error generated.
// BARRIER: fault_hang.tm:24:7: error: kernel 'hang' does not finish: thread 3 of block ({{[0-9]+}}, 0, 0) is still in this loop after 0.2 s (--timeout)
// BARRIER: fault_hang.tm:28:5: note: while thread 0 waits at this barrier
// BARRIER-NEXT: sync;
// NESTED: fault_hang.tm:34:5: error: kernel 'hang' does not finish: thread 0 of block ({{[0-9]+}}, 0, 0) is still in this loop after 0.3 s (--timeout)
// NESTED-NEXT: while (k >= 0) {
// NESTED: 1 error generated.
// OK: result:     PASS
