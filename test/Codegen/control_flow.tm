// Statements through both back ends: if/else chains, while with break and
// continue, loops with negative and run-time steps, device functions that
// return early, mutable variables, bool and 64-bit integers.
// REQUIRES: ptxas, nvcc
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80 sm_90a
// RUN: %tmc %s --emit=ptx | FileCheck %s
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/c.cu && %nvcc -arch=sm_80 %t/c.cu -o %t/c.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/c.cu

func collatz_steps(n: i64) -> i32 {
  var x = n;
  var steps = 0;
  while (x != 1i64) {
    if (steps > 1000) { return -1; }
    if (x % 2i64 == 0i64) { x = x / 2i64; } else { x = 3i64 * x + 1i64; }
    steps += 1;
  }
  return steps;
}

kernel flow(X: i32[N], F: bool[N], step: i32) grid(cdiv(N, 64)) block(64) {
  let g = blockIdx.x * 64 + threadIdx.x;
  if (g >= N) { return; }
  var acc = 0;
  for i in range(10, 0, -1) { acc += i; }
  for i in range(0, 100, step) {
    if (i % 3 == 0) { continue; }
    if (i > 50) { break; }
    acc += i;
  }
  var k = 0;
  while (true) {
    k += 1;
    if (k == 7) { break; }
  }
  if (acc > 100) {
    acc = acc - 1;
  } else if (acc < 0) {
    acc = 0;
  } else {
    acc = acc * 2;
  }
  F[g] = acc > k && !F[g];
  X[g] = acc + collatz_steps(i64(g) + 1i64);
}
// CHECK: .entry flow(
// CHECK: ret;
// CUDA: static __device__ int32_t collatz_steps(int64_t n_0)
// CUDA-DAG: while (true) {
// CUDA-DAG: break;
// CUDA-DAG: continue;
