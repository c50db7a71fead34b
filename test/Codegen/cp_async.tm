// Asynchronous copies from global to shared memory: cp.async with commit
// and wait groups, 4, 8 and 16 bytes.
// REQUIRES: ptxas, nvcc
// RUN: %tmc %s --emit=ptx | FileCheck %s
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/c.cu && %nvcc -arch=sm_80 %t/c.cu -o %t/c.o

kernel stage(X: f32[N], Y: f32[N]) grid(cdiv(N, 1024)) block(256) {
  shared s: f32[1024];
  let base = blockIdx.x * 1024;
  for i in spatial(256) on threadIdx.x {
    // Four floats (16 bytes) per thread; the tail of X is not read here.
    if (base + 4 * i + 3 < N) { cp_async(s[4 * i], X[base + 4 * i], 16); }
  }
  cp_async(s[0], X[0], 4);
  cp_async(s[2], X[2], 8);
  cp_async_commit();
  cp_async_wait(0);
  sync;
  for i in repeat(4) * spatial(256) on threadIdx.x {
    if (base + i < N) { Y[base + i] = s[i] * 2.0; }
  }
}
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// CHECK: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 8;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 0;
