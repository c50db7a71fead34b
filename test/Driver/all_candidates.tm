// --all-candidates: every combination of a kernel's parameter values, those
// that fail `where` excluded, the others compiled on all cores; a candidate
// that fails (here: too much shared memory) is reported by its parameters
// and does not stop the others.
// REQUIRES: ptxas
// RUN: rm -rf %t && not %tmc %s --all-candidates -o %t --arch=sm_90a 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=INDEX < %t/index.json
// RUN: %ptxas-verify sm_90a < %t/tile.T32.S1024.ptx
// RUN: FileCheck %s --check-prefix=META < %t/tile.T128.S1.json
// RUN: rm -rf %t2 && %tmc %s --all-candidates -D T=64 -o %t2 -j 1 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: rm -rf %t3 && %tmc %s --all-candidates --kernel copy -o %t3 --emit=cuda 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: test -f %t3/copy.cu
// RUN: rm -rf %t5 && %tmc %s --all-candidates -D T=32,128 -D S=1,1024 -o %t5 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: FileCheck %s --check-prefix=LISTINDEX < %t5/index.json
// A value listed twice is one candidate (two wrote one file).
// RUN: rm -rf %t7 && %tmc %s --all-candidates -D T=32,128,32 -D S=1,1,1024 -o %t7 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: rm -rf %t8 && %tmc %s --all-candidates -D T=64,64 -o %t8 -j 1 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not %tmc %s -D T=32,128 2>&1 | FileCheck %s --check-prefix=LISTALONE
// Cubins: ptxas runs on several threads at once, each in its own directory.
// RUN: rm -rf %t6 && %tmc %s --all-candidates --kernel tile -D S=1 --emit=cubin -j 3 -o %t6 2>&1 | FileCheck %s --check-prefix=CUBIN
// RUN: test -s %t6/tile.T32.S1.cubin && test -s %t6/tile.T64.S1.cubin && test -s %t6/tile.T128.S1.cubin
// RUN: not %tmc %s --all-candidates 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not %tmc %s --all-candidates --kernel nope -o %t4 2>&1 | FileCheck %s --check-prefix=NOKERNEL

kernel tile<T: int in [32, 64, 128], S: int in [1, 1024, 65536]>(X: f32[N], Y: f32[N])
    where T * S < 3000000
    grid(cdiv(N, T)) block(T) {
  shared s: f32[S];
  for i in spatial(T) on threadIdx.x {
    let g = blockIdx.x * T + i;
    if (g < N) { s[i % S] = X[g]; Y[g] = s[i % S]; }
  }
}

kernel copy(X: f32[N], Y: f32[N]) grid(cdiv(N, 128)) block(128) {
  for i in spatial(128) on threadIdx.x {
    let g = blockIdx.x * 128 + i;
    if (g < N) { Y[g] = X[g]; }
  }
}
// CHECK: tmc: error: candidate T = 32, S = 65536 of kernel 'tile' failed:
// CHECK: error: kernel 'tile' uses 262144 bytes of shared memory, more than the 232448 bytes a block may have on sm_90a
// CHECK: tmc: 9 candidates: 6 compiled, 2 excluded by 'where', 1 failed
// INDEX: "arch": "sm_90a",
// INDEX: {"kernel": "tile", "params": {"T": 32, "S": 1}, "default": true, "status": "ok", "file": "tile.T32.S1.ptx", "meta": "tile.T32.S1.json"},
// INDEX: {"kernel": "tile", "params": {"T": 32, "S": 65536}, "status": "failed", "error": "{{.*}}262144 bytes of shared memory
// INDEX: {"kernel": "tile", "params": {"T": 64, "S": 65536}, "status": "excluded", "reason": "constraint '((T * S) < 3000000)' is not satisfied"},
// INDEX-NOT: "copy"
// META: "name": "tile",
// META: "block": [128],
// META: "compile_time": {"T": 128, "S": 1}
// FIXED: tmc: 3 candidates: 2 compiled, 1 excluded by 'where', 0 failed ({{.*}} on 1 threads)
// ONE: tmc: 1 candidates: 1 compiled, 0 excluded by 'where', 0 failed
// LIST: tmc: 4 candidates: 4 compiled, 0 excluded by 'where', 0 failed
// LISTINDEX: "params": {"T": 32, "S": 1}
// LISTINDEX: "params": {"T": 32, "S": 1024}
// LISTINDEX: "params": {"T": 128, "S": 1}
// LISTINDEX: "params": {"T": 128, "S": 1024}
// LISTALONE: error: -D T=V1,V2,... lists values to try: it needs --all-candidates
// CUBIN: tmc: 3 candidates: 3 compiled, 0 excluded by 'where', 0 failed ({{.*}} on 3 threads)
// NODIR: error: --all-candidates writes one file per candidate: name a directory with -o
// NOKERNEL: error: '{{.*}}all_candidates.tm' has no kernel named 'nope'
