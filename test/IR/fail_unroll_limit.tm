// Unrolling has a limit: `unroll(100000000)` once exhausted memory, and a
// huge unrolled mapping loop compiled for minutes. Past 4096 statements the
// loop stays a loop, with a warning at the loop; the kernel still compiles
// and runs correctly.
// RUN: %tmc %s --emit=ir -o %t.ir --verify-diagnostics
// RUN: %tmc %s --emit=ir -o %t.ir2 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %tmc %s --emit=ir 2>/dev/null | FileCheck %s
// RUN: %tmc %s --emit=cuda -o %t.cu 2>/dev/null
// RUN: FileCheck %s --check-prefix=CUDA < %t.cu
// RUN: %tmc run %s --kernel sum_all --shape N=100 --check-bounds 2>&1 | FileCheck %s --check-prefix=EXEC

op total(X: f32[N]) -> f32[1] { out[i] = sum(k < N) X[k]; }

kernel sum_all(X: f32[N], Y: f32[1]) implements total block(1) {
  var acc: f32 = 0.0;
  for i in unroll(100000000) {  // expected-warning {{loop not unrolled: 100000000 iterations of 2 statements would exceed the limit of 4096 unrolled statements; it runs as a loop}}
    if (i < N) {
      acc += X[i];
    }
  }
  Y[0] = acc;
}
// WARN: fail_unroll_limit.tm:16:3: warning: loop not unrolled: 100000000 iterations of 2 statements
// CHECK: for i in [0, 100000000) {

// A mapping whose repeat parts unroll (each at most 64 tasks), 64 * 64 tasks
// per thread: the outer repeat loop stays a loop.
kernel tiles(X: f32[N], Y: f32[N]) grid(1) block(32) {
  for (i, j) in repeat(64, 1) * repeat(1, 64) * spatial(1, 32) on threadIdx.x {  // expected-warning {{loop not unrolled: 64 iterations of 263 statements}}
    let g = i * 2048 + j;
    if (g < N) { Y[g] = X[g]; }
  }
}
// WARN: fail_unroll_limit.tm:29:3: warning: loop not unrolled: 64 iterations of 263 statements

// CUDA-NOT: #pragma unroll
// CUDA: for (int32_t i_{{[0-9]+}} = 0; i_{{[0-9]+}} < 100000000; i_{{[0-9]+}} += 1) {

// EXEC: unwritten:  0 of 1
// EXEC: result:     PASS
