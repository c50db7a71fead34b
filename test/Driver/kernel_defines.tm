// With --kernel, a -D value applies to that kernel only: the other kernels
// of the module keep their own values even where they cannot take it;
// without --kernel it applies to every kernel that has the parameter.
// RUN: %tmc run %s --kernel wide -D TILE=256 --shape N=300 | FileCheck %s --check-prefix=WIDE
// RUN: %tmc run %s --kernel narrow -D TILE=32 --shape N=70 | FileCheck %s --check-prefix=NARROW
// RUN: rm -rf %t && %tmc %s --all-candidates --kernel wide -D TILE=256 -o %t 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not %tmc %s -D TILE=256 2>&1 | FileCheck %s --check-prefix=MODULE
// Bool parameters' values read as false and true.
// RUN: not %tmc run %s --kernel wide -D FAST=2 --shape N=70 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not %tmc run %s --kernel wide -D FAST=f16 --shape N=70 2>&1 | FileCheck %s --check-prefix=BOOLTYPE
// BOOL: error: value 2 of 'FAST' is not among its candidates [false, true]
// BOOLTYPE: error: 'FAST' is a bool parameter, not an element type: 'f16' is not a value for it
// A -D the chosen kernel does not have is an error, not silently ignored.
// RUN: not %tmc run %s --kernel narrow -D WIDTH=4 --shape N=70 2>&1 | FileCheck %s --check-prefix=OTHER
// WIDE: kernel:     wide (cpu, N=300)
// WIDE: result:     PASS
// NARROW: kernel:     narrow (cpu, N=70)
// NARROW: result:     PASS
// ALL: 4 candidates: 4 compiled
// OTHER: tmc: error: -D WIDTH: kernel 'narrow' has no compile-time parameter 'WIDTH' (it has TILE)
// MODULE: error: value 256 of 'TILE' is not among its candidates [32, 64]

op twice(X: f32[N]) -> f32[N] { out[i] = 2.0 * X[i]; }

kernel wide<TILE: int in [128, 256] = 128, WIDTH: int in [1, 4] = 1, FAST: bool in [false, true]>(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, TILE)) block(TILE) {
  let i = blockIdx.x * TILE + threadIdx.x;
  if (i < N) { Y[i] = 2.0 * X[i]; }
}

kernel narrow<TILE: int in [32, 64] = 64>(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, TILE)) block(TILE) {
  let i = blockIdx.x * TILE + threadIdx.x;
  if (i < N) { Y[i] = 2.0 * X[i]; }
}
