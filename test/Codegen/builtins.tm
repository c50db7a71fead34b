// Built-ins and types through both back ends: math (libdevice), shuffles,
// atomics, casts between f16/bf16/f32/integers, min/max, device functions.
// REQUIRES: ptxas, nvcc
// RUN: %tmc %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/b.cu
// RUN: %nvcc -arch=sm_80 %t/b.cu -o %t/b.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/b.cu

func softplus(x: f32) -> f32 {
  return log(1.0 + exp(x));
}

kernel builtins(X: f32[N], H: f16[N], B: bf16[N], I: i32[N], U: u32[N], D: f64[N], S: f32[1], M: i32[1])
    grid(cdiv(N, 128)) block(128)
{
  let t = threadIdx.x;
  let g = blockIdx.x * 128 + t;
  if (g < N) {
    let x = X[g];
    var v = sqrt(abs(x)) + tanh(x) + erf(x) + sigmoid(x) + softplus(x) + pow(x, 2.0) + fma(x, x, 1.0);
    v += rsqrt(x * x + 1.0) + floor(x) + ceil(x) + exp2(x) + log2(abs(x) + 1.0) + sin(x) + cos(x);
    v = max(v, min(x, 0.5));
    for s in unroll(5) {
      v += shfl_xor(v, 16 >> s);
    }
    v += shfl_down(v, 1) + shfl_up(v, 1) + shfl_idx(v, 0);
    let h = H[g] * 2.0 + f16(x);
    H[g] = h;
    B[g] = bf16(f32(B[g]) + x);
    D[g] = shfl_xor(D[g], 1) + f64(x);
    I[g] = max(I[g], i32(x)) % 7;
    U[g] = (U[g] >> 3u) ^ u32(t);
    let old = atomic_add(S[0], v);
    atomic_max(M[0], i32(old));
    X[g] = v;
  }
}
// LLVM: define ptx_kernel void @builtins(
// LLVM-DAG: call {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x
// LLVM-DAG: call i32 @llvm.nvvm.shfl.sync.bfly.i32
// LLVM-DAG: call i32 @llvm.nvvm.shfl.sync.down.i32
// LLVM-DAG: call i32 @llvm.nvvm.shfl.sync.up.i32
// LLVM-DAG: call i32 @llvm.nvvm.shfl.sync.idx.i32
// LLVM-DAG: atomicrmw fadd ptr addrspace(1)
// LLVM-DAG: atomicrmw max ptr addrspace(1)
// LLVM-DAG: fptrunc float {{.*}} to half
// LLVM-DAG: to bfloat
// LLVM-NOT: call {{.*}} @__nv_
// PTX: .visible .entry builtins(
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: atom.global.add.f32
// PTX-DAG: atom.global.max.s32
// PTX-DAG: sqrt.rn.f32
// CUDA: static __device__ float softplus(float x_0)
// CUDA: extern "C" __global__ void __launch_bounds__(128) builtins(
// CUDA-DAG: __shfl_xor_sync(0xffffffffu
// CUDA-DAG: atomicAdd(&S[
// CUDA-DAG: atomicMax(&M[
