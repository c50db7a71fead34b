// Hopper's warpgroup MMA on the CPU executor and in generated code: one
// warpgroup per block, an accumulator of m64nN fragments (std.wgmma), A
// K-major and B MN-major in shared memory with each hardware swizzle
// (SW = 1, 2, 3: 32-, 64-, 128-byte rows), B as column groups ([G, K, W]),
// one and two 64-row blocks, f16 and bf16, the accumulate flag. The
// executor reads A and B through the descriptors the compiler built, so a
// wrong descriptor fails the comparison.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --arch=sm_90a --kernel mm_wgmma --shape M=100,N=200,K=150 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel mm_wgmma --shape M=130,N=70,K=64 -D BM=128 -D BN=64 -D T=bf16 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel mm_wgmma --shape M=65,N=129,K=40 -D SW=2 --seed 4 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel mm_wgmma --shape M=64,N=64,K=17 -D SW=1 -D BN=64 -D T=bf16 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel mm_overwrite --shape M=70,N=33,K=100 --check-races | FileCheck %s --check-prefix=NUMERIC
// B given transposed (wgmma_t: K-major, as for Q·Kᵀ), f16 and bf16.
// RUN: %tmc run %s --arch=sm_90a --kernel mm_nt --shape M=70,N=100,K=130 --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel mm_nt --shape M=128,N=64,K=64 -D T=bf16 --seed 6 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --arch=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --arch=sm_90a --emit=ptx | %ptxas-verify --no-spills --wgmma-clean sm_90a
// RUN: %tmc %s --arch=sm_90a --emit=ptx -D BM=128 -D T=bf16 -D SW=1 | %ptxas-verify --no-spills --wgmma-clean sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --arch=sm_90a --emit=cuda -o %t/k.cu && %nvcc -gencode arch=compute_90a,code=sm_90a %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// PTX: .shared .align 1024 .b8
// PTX: fence.proxy.async.shared::cta;
// PTX: wgmma.fence.sync.aligned;
// A call's k16 steps issued by one inline asm (its accumulators pass once),
// each instruction with its own scale-d predicate:
// PTX: .reg .pred p<4>;
// PTX-NEXT: setp.ne.b32 p0, %r{{[0-9]+}}, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p0, 1, 1, 0, 1;
// PTX-NEXT: setp.ne.b32 p1, %r{{[0-9]+}}, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p1, 1, 1, 0, 1;
// PTX-NEXT: setp.ne.b32 p2, %r{{[0-9]+}}, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p2, 1, 1, 0, 1;
// PTX-NEXT: setp.ne.b32 p3, %r{{[0-9]+}}, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p3, 1, 1, 0, 1;
// PTX-NEXT: }
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p{{[0-9]+}}, 1, 1, 0, 0;
// CUDA: __shared__ __align__(1024) unsigned char tmc_shared
// CUDA: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CUDA: wgmma.wait_group.sync.aligned 0;

import std.wgmma;  // wgmma_c

op mm<T>(A: T[M, K], B: T[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

// A BM x BN tile of C per block of 128 threads; each k-step stages a
// BM x W tile of A and a W x BN tile of B (BN / W groups of W columns).
kernel mm_wgmma<T: type in [f16, bf16] = f16, SW: int in [1, 2, 3] = 3, BM: int in [64, 128] = 64,
                BN: int in [64, 128] = 128>(A: T[M, K], B: T[K, N], C: f32[M, N])
    implements mm
    grid(cdiv(N, BN), cdiv(M, BM)) block(128)
{
  let W = 8 << SW;  // elements of one swizzled row: 16, 32, 64
  shared sa: T[BM, 8 << SW] swizzle(SW, 3, 3);
  shared sb: T[BN / (8 << SW), 8 << SW, 8 << SW] swizzle(SW, 3, 3);
  register acc: f32[BM, BN] by repeat(BM / 64, BN / 8) * wgmma_c;
  for (i, j) in repeat(BM / 64, BN / 8) * wgmma_c on threadIdx.x { acc[i, j] = 0.0; }
  for k0 in range(cdiv(K, W)) {
    for (i, k) in repeat(BM * W / 128, 1) * spatial(128 / W, W) on threadIdx.x {
      let gi = blockIdx.y * BM + i;
      let gk = k0 * W + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : T(0.0);
    }
    for (k, j) in repeat(W * BN / 128, 1) * spatial(128 / BN, BN) on threadIdx.x {
      let gk = k0 * W + k;
      let gj = blockIdx.x * BN + j;
      sb[j / W, k, j % W] = (gk < K && gj < N) ? B[gk, gj] : T(0.0);
    }
    fence_proxy_async();  // generic-proxy stores, read by wgmma (async proxy)
    sync;
    wgmma_fence();
    wgmma(acc, sa, sb);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(BM / 64, BN / 8) * wgmma_c on threadIdx.x {
    let gi = blockIdx.y * BM + i;
    let gj = blockIdx.x * BN + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}

// No zero-initialisation: the first k-step overwrites the accumulator
// (accumulate = false), a 64 x 32 tile with 64-byte rows of B (one group).
kernel mm_overwrite(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    implements mm
    grid(cdiv(N, 32), cdiv(M, 64)) block(128)
{
  shared sa: f16[64, 32] swizzle(2, 3, 3);
  shared sb: f16[32, 32] swizzle(2, 3, 3);
  register acc: f32[64, 32] by repeat(1, 4) * wgmma_c;
  for k0 in range(cdiv(K, 32)) {
    for (i, k) in repeat(16, 1) * spatial(4, 32) on threadIdx.x {
      let gi = blockIdx.y * 64 + i;
      let gk = k0 * 32 + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;
    }
    for (k, j) in repeat(8, 1) * spatial(4, 32) on threadIdx.x {
      let gk = k0 * 32 + k;
      let gj = blockIdx.x * 32 + j;
      sb[k, j] = (gk < K && gj < N) ? B[gk, gj] : 0.0;
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    wgmma(acc, sa, sb, k0 > 0);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 4) * wgmma_c on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 32 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}

op matmul_nt<T>(A: T[M, K], Bt: T[N, K]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(Bt[j, k]);
}

// C = A Btᵀ: both tiles K-major with 128-byte rows.
kernel mm_nt<T: type in [f16, bf16] = f16>(A: T[M, K], Bt: T[N, K], C: f32[M, N])
    implements matmul_nt
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sa: T[64, 64] swizzle(3, 3, 3);
  shared sbt: T[64, 64] swizzle(3, 3, 3);
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  for k0 in range(cdiv(K, 64)) {
    for (i, k) in repeat(32, 1) * spatial(2, 64) on threadIdx.x {
      let gi = blockIdx.y * 64 + i;
      let gj = blockIdx.x * 64 + i;
      let gk = k0 * 64 + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : T(0.0);
      sbt[i, k] = (gj < N && gk < K) ? Bt[gj, gk] : T(0.0);
    }
    fence_proxy_async();
    sync;
    wgmma_fence();
    wgmma_t(acc, sa, sbt, k0 > 0);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}
