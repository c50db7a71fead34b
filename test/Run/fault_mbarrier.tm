// Planted mbarrier faults, each found by tmc run at its source line: a
// read before the wait that orders it (a race), a count one arrival too
// high (a wait that can never complete: the block deadlocks), and a
// barrier used before mbarrier_init.
// RUN: not %tmc run %s --arch=sm_90a --kernel early_read --shape N=256 --check-races 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not %tmc run %s --arch=sm_90a --kernel one_too_many --shape N=256 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// RUN: not %tmc run %s --arch=sm_90a --kernel no_init --shape N=256 2>&1 | FileCheck %s --check-prefix=UNINIT
// mbarriers are Hopper instructions here (sm_90 and sm_90a).
// RUN: not %tmc %s --arch=sm_80 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: %tmc %s --arch=sm_90 --emit=ptx | %ptxas-verify sm_90
// ARCH: fault_mbarrier.tm:22:{{[0-9]+}}: error: 'mbarrier_init' needs --arch=sm_90 or sm_90a
// RACE: fault_mbarrier.tm:30:13: error: data race on 'buf' element {{[0-9]+}} in kernel 'early_read': a read by thread {{[0-9]+}} and a write by thread {{[0-9]+}}
// DEADLOCK: fault_mbarrier.tm:48:5: error: kernel 'one_too_many' deadlocks: thread 128 of block (0, 0, 0) waits on mbarrier 'full'[0] for its phase of parity 0 to complete, but no thread is left to complete it (1 arrival missing)
// UNINIT: fault_mbarrier.tm:60:5: error: mbarrier 'full'[0] is used before mbarrier_init in kernel 'no_init' (thread 0 of block (0, 0, 0))

op twice(X: f32[N]) -> f32[N] { out[i] = X[i] * 2.0; }

// The consumers read the tile before waiting for the producers' arrivals.
kernel early_read(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 128)) block(256) {
  shared buf: f32[128];
  shared full: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(full[0], 128); }
  sync;
  let t = threadIdx.x % 128;
  let i = blockIdx.x * 128 + t;
  if (threadIdx.x < 128) {
    buf[t] = i < N ? X[i] : 0.0;
    mbarrier_arrive(full[0]);
  } else {
    let v = buf[t];
    mbarrier_wait(full[0], 0);
    if (i < N) { Y[i] = v * 2.0; }
  }
}

// 129 arrivals expected, 128 producers arrive.
kernel one_too_many(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 128)) block(256) {
  shared buf: f32[128];
  shared full: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(full[0], 129); }
  sync;
  let t = threadIdx.x % 128;
  let i = blockIdx.x * 128 + t;
  if (threadIdx.x < 128) {
    buf[t] = i < N ? X[i] : 0.0;
    mbarrier_arrive(full[0]);
  } else {
    mbarrier_wait(full[0], 0);
    if (i < N) { Y[i] = buf[t] * 2.0; }
  }
}

kernel no_init(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 128)) block(256) {
  shared buf: f32[128];
  shared full: mbarrier[1];
  let t = threadIdx.x % 128;
  let i = blockIdx.x * 128 + t;
  if (threadIdx.x < 128) {
    buf[t] = i < N ? X[i] : 0.0;
    mbarrier_arrive(full[0]);
  } else {
    mbarrier_wait(full[0], 0);
    if (i < N) { Y[i] = buf[t] * 2.0; }
  }
}

// The barrier is initialised and used in the same barrier interval: no
// sync orders the init before the other threads' arrivals.
// RUN: not %tmc run %s --arch=sm_90a --kernel init_race --shape N=256 --check-races 2>&1 | FileCheck %s --check-prefix=INIT
// INIT: error: data race on 'full' element 0 in kernel 'init_race': an atomic update by thread {{[0-9]+}} and a write by thread 0
kernel init_race(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 128)) block(128) {
  shared full: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(full[0], 128); }
  mbarrier_arrive(full[0]);
  mbarrier_wait(full[0], 0);
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) { Y[i] = X[i] * 2.0; }
}

// Half a warp waits on a barrier no one arrives at while the other half
// waits at a shuffle, which needs the whole warp: a deadlock, reported at
// the wait with a note at the warp operation.
// RUN: not %tmc run %s --arch=sm_90a --kernel half_warp --shape N=64 2>&1 | FileCheck %s --check-prefix=HALF
// HALF: error: kernel 'half_warp' deadlocks: thread 0 of block (0, 0, 0) waits on mbarrier 'full'[0] for its phase of parity 0 to complete, but no thread is left to complete it (32 arrivals missing)
// HALF: note: while thread 16 waits at this warp operation
// HALF-NEXT: else { v = shfl_xor(v, 1); }
kernel half_warp(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 32)) block(32) {
  shared full: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(full[0], 32); }
  sync;
  var v: f32 = 0.0;
  let i = blockIdx.x * 32 + threadIdx.x;
  if (threadIdx.x < 16) { mbarrier_wait(full[0], 0); }
  else { v = shfl_xor(v, 1); }
  if (i < N) { Y[i] = X[i] * 2.0 + v; }
}
