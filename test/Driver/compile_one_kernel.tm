// --kernel NAME on a plain compile: that kernel of the module alone, in every
// --emit; -D applies to it only; a name the file lacks is an error that
// lists the kernels it has.
// REQUIRES: ptxas
// RUN: %tmc %s --kernel scale --emit=ptx --arch=sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas-verify sm_90a < %t.ptx
// RUN: %tmc %s --kernel shift --emit=cuda --arch=sm_90a | FileCheck %s --check-prefix=CUDA
// RUN: %tmc %s --kernel scale -D T=64 --emit=meta | FileCheck %s --check-prefix=META
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=BOTH
// RUN: %expect-exit 1 %tmc %s --kernel nope --emit=ptx
// RUN: not %tmc %s --kernel nope --emit=ptx 2>&1 | FileCheck %s --check-prefix=NOKERNEL

// PTX: .entry scale(
// PTX-NOT: .entry shift(
// CUDA: __global__ void __launch_bounds__(128) shift(
// CUDA-NOT: scale(
// META: "name": "scale",
// META: "block": [64],
// META-NOT: "name": "shift"
// BOTH-DAG: .entry scale(
// BOTH-DAG: .entry shift(
// NOKERNEL: tmc: error: '{{.*}}compile_one_kernel.tm' has no kernel named 'nope' (it has 'scale', 'shift')

kernel scale<T: int in [64, 128] = 128>(X: f32[N], Y: f32[N]) grid(cdiv(N, T)) block(T) {
  for i in spatial(T) on threadIdx.x {
    let g = blockIdx.x * T + i;
    if (g < N) { Y[g] = X[g] * 2.0; }
  }
}

kernel shift<T: int in [64, 128] = 128>(X: f32[N], Y: f32[N]) grid(cdiv(N, T)) block(T) {
  for i in spatial(T) on threadIdx.x {
    let g = blockIdx.x * T + i;
    if (g < N) { Y[g] = X[g] + 1.0; }
  }
}
