// Above 48 KB of shared memory, the kernel uses dynamic shared memory (and
// says so in its metadata): static PTX arrays cannot exceed 48 KB.
// REQUIRES: ptxas, nvcc
// RUN: %tmc %s --emit=ptx --arch=sm_90a | FileCheck %s
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// RUN: %tmc %s --emit=meta | FileCheck %s --check-prefix=META
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/d.cu && %nvcc -arch=sm_90a %t/d.cu -o %t/d.o

kernel big(X: f32[N]) block(256) {
  shared s: f32[128, 128];   // 64 KB
  for i in spatial(256) on threadIdx.x { s[i / 128, i % 128] = X[i]; }
  sync;
  for i in spatial(256) on threadIdx.x { X[i] = s[127, i % 128]; }
}
// CHECK: .extern .shared .align 16 .b8 __tmc_shared_big[];
// META: "shared_bytes": 65536,
// META-NEXT: "dynamic_shared": true,
