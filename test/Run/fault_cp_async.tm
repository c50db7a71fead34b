// cp_async as the hardware does it: the copy lands when a cp_async_wait
// completes its commit group, so touching the destination before that is
// a race (a missing wait is found); every element of a 4/8/16-byte copy is
// bounds-checked; misaligned addresses are errors (-D V picks the fault).
// RUN: not %tmc run %s --shape N=64 -D V=0 --check-races 2>&1 | FileCheck %s --check-prefix=NOWAIT
// RUN: not %tmc run %s --shape N=64 -D V=1 --check-races 2>&1 | FileCheck %s --check-prefix=OWN
// RUN: not %tmc run %s --shape N=64 -D V=2 --check-races 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: not %tmc run %s --shape N=64 -D V=3 --check-races 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: not %tmc run %s --shape N=66 -D V=4 --check-bounds 2>&1 | FileCheck %s --check-prefix=SRCOOB
// RUN: not %tmc run %s --shape N=64 -D V=5 -D S=62 --check-bounds 2>&1 | FileCheck %s --check-prefix=DSTOOB
// RUN: not %tmc run %s --shape N=64 -D V=6 2>&1 | FileCheck %s --check-prefix=DSTALIGN
// RUN: not %tmc run %s --shape N=64 -D V=7 2>&1 | FileCheck %s --check-prefix=SRCALIGN
// Without checks the copy still lands only at the wait: with the wait
// missing, the kernel reads stale shared memory and the result is wrong.
// RUN: not %tmc run %s --shape N=64 -D V=0 | FileCheck %s --check-prefix=STALE
// Correct: two groups in flight, wait(1) lands the older one.
// RUN: %tmc run %s --shape N=64 -D V=8 --check-races --check-bounds | FileCheck %s --check-prefix=OK

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel cp_faults<V: int in [0, 1, 2, 3, 4, 5, 6, 7, 8], S: int in [62, 64] = 64>(X: f32[N], Y: f32[N])
    implements copy grid(1) block(16)
{
  shared s: f32[S];
  let t = threadIdx.x;
  if (V == 0) {
    cp_async(s[4 * t], X[4 * t], 16);
    cp_async_commit();
    // cp_async_wait(0);  <- missing
    sync;
  }
  if (V == 1) {
    cp_async(s[4 * t], X[4 * t], 16);
    cp_async_commit();
    let early = s[4 * t + 3];
    cp_async_wait(0);
    sync;
    s[4 * t + 3] = early;
    sync;
  }
  if (V == 2) {
    cp_async(s[4 * t], X[4 * t], 8);
    cp_async_commit();
    cp_async(s[4 * t + 2], X[4 * t + 2], 8);
    cp_async_commit();
    cp_async_wait(1);
    sync;
  }
  if (V == 3) {
    cp_async(s[4 * t], X[4 * t], 16);
    cp_async_commit();
    s[4 * t + 1] = 0.0;
    cp_async_wait(0);
    sync;
  }
  if (V == 4) {
    // X has 66 elements: a 16-byte copy of X[64..67] reads two past the end.
    cp_async(s[4 * t], X[4 * t], 16);
    cp_async_commit();
    cp_async_wait(0);
    sync;
    if (t == 0) { cp_async(s[0], X[64], 16); }
    cp_async_commit();
    cp_async_wait(0);
    sync;
  }
  if (V == 5) {
    cp_async(s[4 * t], X[4 * t], 16);
    cp_async_commit();
    cp_async_wait(0);
    sync;
  }
  if (V == 6) {
    cp_async(s[4 * t + 1], X[4 * t], 16);
    cp_async_commit();
    cp_async_wait(0);
    sync;
  }
  if (V == 7) {
    cp_async(s[4 * t], X[4 * t + 1], 8);
    cp_async_commit();
    cp_async_wait(0);
    sync;
  }
  if (V == 8) {
    cp_async(s[4 * t], X[4 * t], 8);
    cp_async_commit();
    cp_async(s[4 * t + 2], X[4 * t + 2], 8);
    cp_async_commit();
    cp_async_wait(1);
    let first = s[4 * t];
    cp_async_wait(0);
    sync;
    s[4 * t] = first;
    sync;
  }
  for i in repeat(4) * spatial(16) on threadIdx.x {
    if (i < S && i < N) { Y[i] = s[i]; }
  }
}
// NOWAIT: fault_cp_async.tm:98:{{[0-9]+}}: error: read of 's' element 0 in kernel 'cp_faults' by thread 0 of block (0, 0, 0) before the cp_async_wait that completes the asynchronous copy into it
// NOWAIT: fault_cp_async.tm:27:5: note: the cp_async by thread 0, still in flight
// NOWAIT-NEXT: cp_async(s[4 * t], X[4 * t], 16);
// NOWAIT: 1 error generated.
// OWN: fault_cp_async.tm:35:{{[0-9]+}}: error: read of 's' element 3 in kernel 'cp_faults' by thread 0 of block (0, 0, 0) before the cp_async_wait that completes the asynchronous copy into it
// OWN: fault_cp_async.tm:33:5: note: the cp_async by thread 0, still in flight
// OWN: 1 error generated.
// GROUPS: fault_cp_async.tm:98:{{[0-9]+}}: error: read of 's' element 2 in kernel 'cp_faults' by thread 2 of block (0, 0, 0) before the cp_async_wait that completes the asynchronous copy into it
// GROUPS: fault_cp_async.tm:44:5: note: the cp_async by thread 0, still in flight
// GROUPS-NEXT: cp_async(s[4 * t + 2], X[4 * t + 2], 8);
// WRITE: fault_cp_async.tm:52:{{[0-9]+}}: error: write of 's' element 1 in kernel 'cp_faults' by thread 0 of block (0, 0, 0) before the cp_async_wait that completes the asynchronous copy into it
// WRITE: fault_cp_async.tm:50:5: note: the cp_async by thread 0, still in flight
// SRCOOB: fault_cp_async.tm:62:{{[0-9]+}}: error: out-of-bounds read of 'X' by a cp_async of 16 bytes in kernel 'cp_faults': element 66 is outside [0, 66) (thread 0 of block (0, 0, 0))
// DSTOOB: fault_cp_async.tm:68:{{[0-9]+}}: error: out-of-bounds write of 's' by a cp_async of 16 bytes in kernel 'cp_faults': element 62 is outside [0, 62) (thread 15 of block (0, 0, 0))
// DSTALIGN: fault_cp_async.tm:74:{{[0-9]+}}: error: misaligned cp_async of 16 bytes in kernel 'cp_faults': the destination 's' element 1 is at shared-memory address 4, not a multiple of 16 (thread 0 of block (0, 0, 0))
// SRCALIGN: fault_cp_async.tm:80:{{[0-9]+}}: error: misaligned cp_async of 8 bytes in kernel 'cp_faults': the source 'X' element 1 is at byte 4 of 'X', not a multiple of 8 (thread 0 of block (0, 0, 0))
// STALE: result:     FAIL
// OK: unwritten:  0 of 64
// OK: result:     PASS
