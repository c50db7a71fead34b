// Planted TMA faults, each found by tmc run at its source line: a read of
// the tile before the mbarrier wait that its tma_load completes (a race
// with --check-races; without it the tile still holds what was there
// before, as on the GPU: the result is wrong), a copy larger than the
// bytes announced to the mbarrier (its phase never completes: a deadlock),
// a tensor whose rows are not whole 16-byte pieces (refused before the
// launch, as the driver's encoding would), a kernel built for sm_80, and a
// tile rewritten while a tma_store may still read it.
// RUN: not %tmc run %s --arch=sm_90a --kernel early_read --shape M=8,N=64 --check-races 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not %tmc run %s --arch=sm_90a --kernel early_read --shape M=8,N=64 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not %tmc run %s --arch=sm_90a --kernel short_tx --shape M=8,N=64 2>&1 | FileCheck %s --check-prefix=OVERCOUNT
// RUN: not %tmc run %s --arch=sm_90a --kernel short_tx --shape M=8,N=70 2>&1 | FileCheck %s --check-prefix=PITCH
// RUN: not %tmc %s --arch=sm_80 2>&1 | FileCheck %s --check-prefix=ARCH
// A tile written before the tma_store_wait that ends the store's reads of it.
// RUN: not %tmc run %s --arch=sm_90a --kernel store_reuse --shape M=8,N=64 --check-races 2>&1 | FileCheck %s --check-prefix=STORE
// RACE: fault_tma.tm:38:11: error: read of 'tile' element {{[0-9]+}} in kernel 'early_read' by thread {{[0-9]+}} of block ({{[0-9]+}}, {{[0-9]+}}, 0) before the mbarrier phase that completes the tma_load into it
// RACE: fault_tma.tm:34:5: note: the tma_load by thread 0, still in flight
// STALE: result:     FAIL
// OVERCOUNT: fault_tma.tm:55:3: error: kernel 'short_tx' deadlocks: thread 0 of block (0, 0, 0) waits on mbarrier 'bar'[0] for its phase of parity 0 to complete, but its tma_loads brought 256 transaction bytes more than mbarrier_arrive_expect_tx announced, so the phase never completes
// PITCH: error: 'X' is passed as a TMA tensor map, whose rows must be a multiple of 16 bytes: dimension 1 is 70 (280 bytes)
// ARCH: fault_tma.tm:27:8: error: kernel parameter 'X' is passed as a TMA tensor map ('by tma'), which needs --arch=sm_90 or sm_90a; this compilation targets sm_80
// STORE: fault_tma.tm:75:5: error: write of 'tile' element 0 in kernel 'store_reuse' by thread 0 of block (0, 0, 0) while a tma_store may still read it (before the tma_store_wait that completes its group)
// STORE: fault_tma.tm:73:5: note: the tma_store by thread 0, still reading

op twice2d(X: f32[M, N]) -> f32[M, N] { out[i, j] = X[i, j] * 2.0; }

kernel early_read(X: f32[M, N] by tma, Y: f32[M, N]) implements twice2d grid(cdiv(N, 32), cdiv(M, 4)) block(128) {
  shared tile: f32[4, 32];
  shared bar: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  sync;
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar[0], 4 * 32 * 4);
    tma_load(tile, X[blockIdx.y * 4, blockIdx.x * 32], bar[0]);
  }
  let r = threadIdx.x / 32;
  let c = threadIdx.x % 32;
  let v = tile[r, c];  // before the wait
  mbarrier_wait(bar[0], 0);
  let i = blockIdx.y * 4 + r;
  let j = blockIdx.x * 32 + c;
  if (i < M && j < N) { Y[i, j] = v * 2.0; }
}

// Announces half the box's bytes.
kernel short_tx(X: f32[M, N] by tma, Y: f32[M, N]) implements twice2d grid(cdiv(N, 32), cdiv(M, 4)) block(128) {
  shared tile: f32[4, 32];
  shared bar: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  sync;
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar[0], 4 * 32 * 2);
    tma_load(tile, X[blockIdx.y * 4, blockIdx.x * 32], bar[0]);
  }
  mbarrier_wait(bar[0], 0);
  let r = threadIdx.x / 32;
  let c = threadIdx.x % 32;
  let i = blockIdx.y * 4 + r;
  let j = blockIdx.x * 32 + c;
  if (i < M && j < N) { Y[i, j] = tile[r, c] * 2.0; }
}

kernel store_reuse(X: f32[M, N], Y: f32[M, N] by tma) implements twice2d grid(cdiv(N, 32), cdiv(M, 4)) block(128) {
  shared tile: f32[4, 32];
  let r = threadIdx.x / 32;
  let c = threadIdx.x % 32;
  let i = blockIdx.y * 4 + r;
  let j = blockIdx.x * 32 + c;
  tile[r, c] = i < M && j < N ? X[i, j] * 2.0 : 0.0;
  fence_proxy_async();
  sync;
  if (threadIdx.x == 0) {
    tma_store(Y[blockIdx.y * 4, blockIdx.x * 32], tile);
    tma_store_commit();
    tile[0, 0] = 5.0;  // before tma_store_wait: the store may still read it
    tma_store_wait(0);
  }
}

// A stage refilled without an `empty` barrier: the second copy into the
// tile may land while the consumers still read the first (reported at
// their read, which the refill's copy is still in flight for).
// RUN: not %tmc run %s --arch=sm_90a --kernel no_empty --shape M=8,N=64 --check-races 2>&1 | FileCheck %s --check-prefix=REFILL
// REFILL: error: read of 'tile' element {{[0-9]+}} in kernel 'no_empty' by thread {{[0-9]+}} of block (0, 0, 0) before the mbarrier phase that completes the tma_load into it
kernel no_empty(X: f32[M, N] by tma, Y: f32[M, N]) implements twice2d grid(cdiv(N, 32), cdiv(M, 2)) block(64) {
  shared tile: f32[1, 32];
  shared full: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(full[0], 1); }
  sync;
  if (threadIdx.x == 32) {  // the producer: refills the tile at once
    for h in range(2) {
      mbarrier_arrive_expect_tx(full[0], 32 * 4);
      tma_load(tile, X[blockIdx.y * 2 + h, blockIdx.x * 32], full[0]);
    }
  }
  if (threadIdx.x < 32) {   // the consumers
    for h in range(2) {
      mbarrier_wait(full[0], h);
      let i = blockIdx.y * 2 + h;
      let j = blockIdx.x * 32 + threadIdx.x;
      if (i < M && j < N) { Y[i, j] = tile[0, threadIdx.x] * 2.0; }
    }
  }
}
