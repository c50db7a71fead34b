// With --kernel, a -D value applies to that kernel only: the other kernels
// of the module keep their own values even where they cannot take it;
// without --kernel it applies to every kernel that has the parameter.
// RUN: %tmc run %s --kernel wide -D TILE=256 --shape N=300 | FileCheck %s --check-prefix=WIDE
// RUN: %tmc run %s --kernel narrow -D TILE=32 --shape N=70 | FileCheck %s --check-prefix=NARROW
// RUN: rm -rf %t && %tmc %s --all-candidates --kernel wide -D TILE=256 -o %t 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not %tmc %s -D TILE=256 2>&1 | FileCheck %s --check-prefix=MODULE
// A -D the chosen kernel does not have is an error, not silently ignored.
// RUN: not %tmc run %s --kernel narrow -D WIDTH=4 --shape N=70 2>&1 | FileCheck %s --check-prefix=OTHER
// WIDE: kernel:     wide (cpu, N=300)
// WIDE: result:     PASS
// NARROW: kernel:     narrow (cpu, N=70)
// NARROW: result:     PASS
// ALL: 2 candidates: 2 compiled
// OTHER: tmc: error: -D WIDTH: kernel 'narrow' has no compile-time parameter 'WIDTH' (it has TILE)
// MODULE: error: value 256 of 'TILE' is not among its candidates [32, 64]

op twice(X: f32[N]) -> f32[N] { out[i] = 2.0 * X[i]; }

kernel wide<TILE: int in [128, 256] = 128, WIDTH: int in [1, 4] = 1>(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, TILE)) block(TILE) {
  let i = blockIdx.x * TILE + threadIdx.x;
  if (i < N) { Y[i] = 2.0 * X[i]; }
}

kernel narrow<TILE: int in [32, 64] = 64>(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, TILE)) block(TILE) {
  let i = blockIdx.x * TILE + threadIdx.x;
  if (i < N) { Y[i] = 2.0 * X[i]; }
}
