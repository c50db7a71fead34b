// TMA tensor maps (`by tma`): tma_load copies a box of a global tensor into
// a shared tile, completing its bytes on an mbarrier; tma_store copies a
// tile back. Checked on the CPU executor (boxes that cross the tensor's
// edge are zero-filled on load and clipped on store; the 128-byte swizzle
// of the tile is the one its layout reads), in PTX assembled by ptxas (the
// maps stay __grid_constant__ parameters: no copy to the stack) and in
// CUDA C compiled by nvcc.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --arch=sm_90a --kernel tma_twice --shape M=100,N=72 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel tma_twice --shape M=64,N=96 --check-races --seed 5 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel tma_swizzled --shape M=100,N=200 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90 --kernel tma_swizzled --shape M=64,N=128 --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --arch=sm_90a --kernel tma_3d --shape B=3,M=20,N=40 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --arch=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --arch=sm_90 --emit=ptx | %ptxas-verify --no-spills sm_90
// RUN: %tmc %s --arch=sm_90a --emit=meta | FileCheck %s --check-prefix=META
// RUN: rm -rf %t && mkdir %t && %tmc %s --arch=sm_90a --emit=cuda -o %t/k.cu && %nvcc -gencode arch=compute_90a,code=sm_90a %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// PTX-LABEL: .entry tma_twice(
// PTX-NEXT: .param .align 64 .b8 tma_twice_param_0[128],
// PTX-NEXT: .param .align 64 .b8 tma_twice_param_1[128],
// PTX-NOT: ld.param.u8
// PTX: cvta.param.u64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
// PTX: cp.async.bulk.commit_group;
// PTX: cp.async.bulk.wait_group.read 0;
// PTX-LABEL: .entry tma_3d(
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes
// META: "name": "X", "kind": "tensor", "dtype": "f32", "shape": ["M", "N"], "layout": "row_major", "tma": {"box": [16, 32], "swizzle": 0}
// META: "name": "X", "kind": "tensor", "dtype": "f16", "shape": ["M", "N"], "layout": "row_major", "tma": {"box": [32, 64], "swizzle": 128}
// META: "name": "X", "kind": "tensor", "dtype": "bf16", "shape": ["B", "M", "N"], "layout": "row_major", "tma": {"box": [1, 8, 32], "swizzle": 64}
// CUDA: struct __align__(64) TmcTensorMap { unsigned long long words[16]; };
// CUDA: tma_twice(const __grid_constant__ TmcTensorMap X, const __grid_constant__ TmcTensorMap Y,
// CUDA: "l"(reinterpret_cast<uint64_t>(&X))

op twice2d(X: f32[M, N]) -> f32[M, N] { out[i, j] = X[i, j] * 2.0; }
op plus_one(X: f16[M, N]) -> f32[M, N] { out[i, j] = f32(X[i, j]) + 1.0; }
op batched_plus_one(X: bf16[B, M, N]) -> f32[B, M, N] { out[b, i, j] = f32(X[b, i, j]) + 1.0; }

// An unswizzled f32 box in, twice it out, through TMA both ways.
kernel tma_twice(X: f32[M, N] by tma, Y: f32[M, N] by tma) implements twice2d
    grid(cdiv(N, 32), cdiv(M, 16)) block(128)
{
  shared tile: f32[16, 32];
  shared result: f32[16, 32];
  shared bar: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  sync;
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar[0], 16 * 32 * 4);
    tma_load(tile, X[blockIdx.y * 16, blockIdx.x * 32], bar[0]);
  }
  mbarrier_wait(bar[0], 0);
  for (r, c) in repeat(4, 1) * spatial(4, 32) on threadIdx.x { result[r, c] = tile[r, c] * 2.0; }
  fence_proxy_async();  // the tile's writes, visible to the TMA unit
  sync;
  if (threadIdx.x == 0) {
    tma_store(Y[blockIdx.y * 16, blockIdx.x * 32], result);
    tma_store_commit();
    tma_store_wait(0);
  }
}

// A 128-byte-swizzled f16 box into one stage of two, read back through
// the tile's layout.
kernel tma_swizzled(X: f16[M, N] by tma, Y: f32[M, N]) implements plus_one
    grid(cdiv(N, 64), cdiv(M, 32)) block(128)
{
  shared tile: f16[2, 32, 64] swizzle(3, 3, 3);
  shared bar: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  sync;
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar[0], 32 * 64 * 2);
    tma_load(tile[1], X[blockIdx.y * 32, blockIdx.x * 64], bar[0]);
  }
  mbarrier_wait(bar[0], 0);
  for (r, c) in repeat(16, 1) * spatial(2, 64) on threadIdx.x {
    let i = blockIdx.y * 32 + r;
    let j = blockIdx.x * 64 + c;
    if (i < M && j < N) { Y[i, j] = f32(tile[1, r, c]) + 1.0; }
  }
}

// A rank-3 map, a 2-D tile (the box [1, 8, 32]) with the 64-byte swizzle,
// and several boxes through one barrier: four loads, one phase.
kernel tma_3d(X: bf16[B, M, N] by tma, Y: f32[B, M, N]) implements batched_plus_one
    grid(cdiv(N, 32), cdiv(M, 32), B) block(256)
{
  shared tile: bf16[4, 8, 32] swizzle(2, 3, 3);
  shared bar: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(bar[0], 1); }
  sync;
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar[0], 4 * 8 * 32 * 2);
    for q in range(4) { tma_load(tile[q], X[blockIdx.z, blockIdx.y * 32 + q * 8, blockIdx.x * 32], bar[0]); }
  }
  mbarrier_wait(bar[0], 0);
  for (q, r, c) in repeat(4, 1, 1) * spatial(1, 8, 32) on threadIdx.x {
    let i = blockIdx.y * 32 + q * 8 + r;
    let j = blockIdx.x * 32 + c;
    if (i < M && j < N) { Y[blockIdx.z, i, j] = f32(tile[q, r, c]) + 1.0; }
  }
}
