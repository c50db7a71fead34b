// -o writes the output to a file; -D chooses compile-time parameters, and a
// -D that names no compile-time parameter is an error listing them.
// RUN: %tmc %s --emit=ast -o %t.ast && FileCheck %s < %t.ast
// RUN: not %tmc %s -D TILE=3 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: %tmc %s -D TILE=256
// RUN: not %tmc %s -D TILE=256 -DTile=128 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %tmc run %s -D Bm=1 --shape N=4 2>&1 | FileCheck %s --check-prefix=RUNDEF
// RUN: not %tmc %s --split-input-file -D Nope=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN-SPLIT
// CHECK: Kernel <[[@LINE+2]]:1> k
// CHECK: CtParam <{{.*}}> TILE: i32 in [128, 256]
kernel k<TILE: int in [128, 256]>(X: f32[N]) block(TILE) {
  X[0] = 1.0;
}
kernel plain(X: f32[N]) block(32) {
  X[0] = 2.0;
}
// BADTILE: error: value 3 of 'TILE' is not among its candidates [128, 256]
// UNKNOWN: tmc: error: -D Tile: no kernel has a compile-time parameter 'Tile' (kernel 'k' has TILE; kernel 'plain' has none)
// UNKNOWN-NEXT: 1 error generated.
// RUNDEF: tmc: error: -D Bm: no kernel has a compile-time parameter 'Bm' (kernel 'k' has TILE; kernel 'plain' has none)
// UNKNOWN-SPLIT: tmc: error: -D Nope: no kernel has a compile-time parameter 'Nope'

// Output files that cannot be written say why.
// RUN: not %tmc %s --emit=cuda -o %t.missing/dir/out.cu 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: tmc: error: cannot write '{{.*}}missing/dir/out.cu': No such file or directory
// RUN: not %tmc %s --emit=cuda -o %S 2>&1 | FileCheck %s --check-prefix=ISDIR
// ISDIR: tmc: error: cannot write '{{.*}}Driver': Is a directory
