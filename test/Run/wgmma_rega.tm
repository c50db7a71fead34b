// wgmma with A in registers (std.wgmma's wgmma_a fragments: warp w of the
// warpgroup holds rows 16w .. 16w + 15 as mma.m16n8k16's A fragment), B in
// shared memory, on the CPU executor (which gathers the warp's fragments as
// the hardware does) and in generated code; and an accumulator turned into
// the A operand of a second wgmma in one loop, as attention's P = S:
// out = (A B1) B2, the product rounded to f16 between the two.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --arch=sm_90a --kernel rega --shape M=100,N=72,K=96 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel rega --shape M=64,N=64,K=40 -D T=bf16 --seed 5 | FileCheck %s --check-prefix=NUMERIC
// P is rounded to f16 from an f32 sum here, from an exact one in the
// reference: an ulp of f16 apart at times, hence the f16 tolerance.
// RUN: %tmc run %s --arch=sm_90a --kernel chain --shape M=70,N=64,J=64,K=64 --check-races --rtol=1e-2 --atol=1e-2 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel chain --shape M=128,N=40,J=50,K=60 --seed 2 --rtol=1e-2 --atol=1e-2 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --arch=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --arch=sm_90a --emit=ptx | %ptxas-verify --no-spills --wgmma-clean sm_90a
// Each fence and wait holds its own group's registers in place
// (ir/wgmma_sync_registers.h): s (32 f32) through the first pair, p (16
// b32 pairs) and acc (32 f32) through the second; and each wgmma call's
// four k16 steps are one inline asm.
// RUN: %tmc %s --arch=sm_90a --emit=llvm --kernel chain | FileCheck %s --check-prefix=SYNC
// SYNC: asm sideeffect "", "{{(=f,){32}([0-9]+,){32}~}}{memory}"
// SYNC: asm sideeffect "wgmma.fence.sync.aligned;"
// SYNC: asm sideeffect "{\0A.reg .pred p<4>;
// SYNC: asm sideeffect "wgmma.wait_group.sync.aligned 0;", "{{(=f,){32}([0-9]+,){32}~}}{memory}"
// SYNC: asm sideeffect "", "{{(=r,){16}(=f,){32}([0-9]+,){48}~}}{memory}"
// SYNC: asm sideeffect "wgmma.fence.sync.aligned;"
// SYNC: asm sideeffect "{\0A.reg .pred p<4>;
// SYNC: asm sideeffect "wgmma.wait_group.sync.aligned 0;", "{{(=r,){16}(=f,){32}([0-9]+,){48}~}}{memory}"
// RUN: rm -rf %t && mkdir %t && %tmc %s --arch=sm_90a --emit=cuda -o %t/k.cu && %nvcc -gencode arch=compute_90a,code=sm_90a %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p{{[0-9]+}}, 1, 1, 1;
// CUDA: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;

import std.wgmma;  // wgmma_a, wgmma_c

op mm<T>(A: T[M, K], B: T[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

op mm2(A: f16[M, K], B1: f16[K, J], B2: f16[J, N]) -> f32[M, N] {
  let p[i, j] = f32(f16(sum(k < K) f32(A[i, k]) * f32(B1[k, j])));
  out[i, n] = sum(j < J) p[i, j] * f32(B2[j, n]);
}

// A (64 x 64 per block) straight from global memory into registers.
kernel rega<T: type in [f16, bf16] = f16>(A: T[M, K], B: T[K, N], C: f32[M, N]) implements mm
    grid(cdiv(N, 64), cdiv(M, 64)) block(128)
{
  shared sb: T[64, 64] swizzle(3, 3, 3);
  register a: T[64, 64] by repeat(1, 4) * wgmma_a;
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  let t = threadIdx.x;
  let m0 = blockIdx.y * 64;
  let n0 = blockIdx.x * 64;
  for kt in range(cdiv(K, 64)) {
    let k0 = kt * 64;
    for (i, k) in repeat(1, 4) * wgmma_a on t { a[i, k] = m0 + i < M && k0 + k < K ? A[m0 + i, k0 + k] : T(0.0); }
    for (k, j) in repeat(32, 1) * spatial(2, 64) on t { sb[k, j] = k0 + k < K && n0 + j < N ? B[k0 + k, n0 + j] : T(0.0); }
    fence_proxy_async();
    sync;
    wgmma_fence();
    wgmma(acc, a, sb, kt > 0);
    wgmma_commit();
    wgmma_wait(0);
    sync;
  }
  for (i, j) in repeat(1, 8) * wgmma_c on t {
    if (m0 + i < M && n0 + j < N) { C[m0 + i, n0 + j] = acc[i, j]; }
  }
}

// P = A B1 (J <= 64, K <= 64, N <= 64), then out = P B2 with P in registers:
// the accumulator is declared by repeat(1, 4) * wgmma_a (the same threads
// and registers as repeat(1, 8) * wgmma_c), so one loop converts it.
kernel chain<T: type in [f16] = f16>(A: T[M, K], B1: T[K, J], B2: T[J, N], C: f32[M, N]) implements mm2
    where K <= 64, J <= 64, N <= 64
    grid(1, cdiv(M, 64)) block(128)
{
  shared sa: T[64, 64] swizzle(3, 3, 3);
  shared sb1: T[64, 64] swizzle(3, 3, 3);
  shared sb2: T[64, 64] swizzle(3, 3, 3);
  register s: f32[64, 64] by repeat(1, 4) * wgmma_a;
  register p: T[64, 64] by repeat(1, 4) * wgmma_a;
  register acc: f32[64, 64] by repeat(1, 8) * wgmma_c;
  let t = threadIdx.x;
  let m0 = blockIdx.y * 64;
  for (i, k) in repeat(32, 1) * spatial(2, 64) on t {
    sa[i, k] = m0 + i < M && k < K ? A[m0 + i, k] : T(0.0);
    sb1[i, k] = i < K && k < J ? B1[i, k] : T(0.0);
    sb2[i, k] = i < J && k < N ? B2[i, k] : T(0.0);
  }
  fence_proxy_async();
  sync;
  wgmma_fence();
  wgmma(s, sa, sb1, false);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 4) * wgmma_a on t { p[i, j] = T(s[i, j]); }
  wgmma_fence();
  wgmma(acc, p, sb2, false);
  wgmma_commit();
  wgmma_wait(0);
  for (i, j) in repeat(1, 8) * wgmma_c on t {
    if (m0 + i < M && j < N) { C[m0 + i, j] = acc[i, j]; }
  }
}
