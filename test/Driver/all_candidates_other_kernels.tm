// --all-candidates compiles each candidate with the file's other kernels
// read for their signatures only when the first compile checked them
// without errors. When the defaults fail a `where` (no error for
// --all-candidates, just an excluded candidate), an error in another
// kernel's body must still fail the candidates, as without that shortcut.
// RUN: rm -rf %t && not %tmc %s --all-candidates --kernel tile -o %t 2>&1 | FileCheck %s
// CHECK: tmc: error: candidate T = 32 of kernel 'tile' failed:
// CHECK: all_candidates_other_kernels.tm:[[@LINE+18]]:25: error: use of undeclared identifier 'undefined_name'
// CHECK: tmc: 2 candidates: 0 compiled, 1 excluded by 'where', 1 failed
//
// With defaults that satisfy the `where`, the first compile reports it.
// RUN: sed 's/= 64>/= 32>/' %s > %t.tm
// RUN: not %tmc %t.tm --all-candidates --kernel tile -o %t2 2>&1 | FileCheck %s --check-prefix=FIRST
// FIRST: error: use of undeclared identifier 'undefined_name'
// FIRST: tmc: error: '{{.*}}.tm' does not compile; no candidate was tried

kernel tile<T: int in [32, 64] = 64>(X: f32[N], Y: f32[N]) where T < 64 grid(cdiv(N, T)) block(T) {
  for i in spatial(T) on threadIdx.x {
    let g = blockIdx.x * T + i;
    if (g < N) { Y[g] = X[g]; }
  }
}

kernel broken(X: f32[N]) block(32) {
  for t in spatial(32) on threadIdx.x {
    if (t < N) { X[t] = undefined_name; }
  }
}
