// -o writes the output to a file; -D chooses compile-time parameters.
// RUN: %tmc %s --emit=ast -o %t.ast && FileCheck %s < %t.ast
// RUN: not %tmc %s -D TILE=3 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: %tmc %s -D TILE=256 -DUNUSED=1
// CHECK: Kernel <[[@LINE+2]]:1> k
// CHECK: CtParam <{{.*}}> TILE: i32 in [128, 256]
kernel k<TILE: int in [128, 256]>(X: f32[N]) block(TILE) {
  X[0] = 1.0;
}
// BADTILE: error: value 3 of 'TILE' is not among its candidates [128, 256]
