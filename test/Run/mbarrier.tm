// mbarriers between warp-specialized threads, on the CPU executor and in
// generated code: warpgroup 0 produces tiles into a two-stage ring, warp-
// group 1 consumes them; `full` and `empty` mbarriers order the stages
// with no block barrier in the loop. The race check follows the order the
// waits give (a read after the wait for the producers' arrivals is not a
// race; the faults in fault_mbarrier.tm are).
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --arch=sm_90a --kernel pipeline_twice --shape N=1000 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel pipeline_twice --shape N=77 -D TILES=7 --check-races --seed 3 | FileCheck %s --check-prefix=NUMERIC
// Ordering is transitive: what the producers wrote before arriving on
// `first` is ordered before the readers that wait on `second`, on which
// only the relaying warp arrives after waiting on `first`.
// RUN: %tmc run %s --arch=sm_90a --kernel relay --shape N=300 --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --arch=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --arch=sm_90a --emit=ptx | %ptxas-verify --no-spills sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --arch=sm_90a --emit=cuda -o %t/k.cu && %nvcc -gencode arch=compute_90a,code=sm_90a %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// PTX: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX: mbarrier.try_wait.parity.shared::cta.b64 P1, [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX: mbarrier.arrive.shared::cta.b64 _, [%r{{[0-9]+}}];
// CUDA: mbarrier.try_wait.parity.shared::cta.b64

op twice(X: f32[N]) -> f32[N] { out[i] = X[i] * 2.0; }

kernel pipeline_twice<TILES: int in [1, 4, 7] = 4>(X: f32[N], Y: f32[N])
    implements twice
    grid(cdiv(N, 128 * TILES)) block(256)
{
  shared buf: f32[2, 128];
  shared full: mbarrier[2];   // a stage holds a tile: 128 producer arrivals
  shared empty: mbarrier[2];  // a stage was read: 128 consumer arrivals
  if (threadIdx.x < 2) {
    mbarrier_init(full[threadIdx.x], 128);
    mbarrier_init(empty[threadIdx.x], 128);
  }
  sync;
  let t = threadIdx.x % 128;
  for tile in range(TILES) {
    let st = tile % 2;
    let use = tile / 2;  // the how-manyth use of the stage: phase `use` of its barriers
    let i = (blockIdx.x * TILES + tile) * 128 + t;
    if (threadIdx.x < 128) {
      if (use > 0) { mbarrier_wait(empty[st], (use - 1) % 2); }  // its previous tile was read
      buf[st, t] = i < N ? X[i] : 0.0;
      mbarrier_arrive(full[st]);
    } else {
      mbarrier_wait(full[st], use % 2);
      if (i < N) { Y[i] = buf[st, t] * 2.0; }
      mbarrier_arrive(empty[st]);
    }
  }
}

kernel relay(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 128)) block(288) {
  shared buf: f32[128];
  shared first: mbarrier[1];   // the 128 producers arrive
  shared second: mbarrier[1];  // the 32 relays arrive, after waiting on `first`
  if (threadIdx.x == 0) {
    mbarrier_init(first[0], 128);
    mbarrier_init(second[0], 32);
  }
  sync;
  let t = threadIdx.x % 128;
  let i = blockIdx.x * 128 + t;
  if (threadIdx.x < 128) {
    buf[t] = i < N ? X[i] : 0.0;
    mbarrier_arrive(first[0]);
  } else if (threadIdx.x < 256) {
    mbarrier_wait(second[0], 0);
    if (i < N) { Y[i] = buf[t] * 2.0; }
  } else {
    mbarrier_wait(first[0], 0);
    mbarrier_arrive(second[0]);
  }
}
