// A kernel with many guarded stores (a tile's tail: `if (gi < M && gj <
// N) C[gi, gj] = v` once per element) gets them as predicated PTX stores,
// one straight line, instead of a branch around each (ir/predicable.h,
// codegen/nvptx/predicated_stores.h). Reads of shared memory in such a
// body are predicated too, unless their offsets are proven inside the
// tensor for every thread (codegen/nvptx/value_range.h); a conjunct that depends on no argument (`i ==
// r` between fragment rows) stays a branch, which LLVM folds away; a
// kernel with few guards keeps its branches.
// REQUIRES: ptxas
// RUN: %tmc %s --emit=ptx --arch=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas-verify sm_90a < %t.ptx
// RUN: %tmc %s --emit=ptx --arch=sm_80 | %ptxas-verify sm_80
// The CPU executor runs the same IR with branches: both paths of the
// split and the guards at shapes that divide nothing.
// RUN: %tmc run %s --kernel store_tile --shape M=37,N=45 --check-bounds | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel store_tile --shape M=64,N=64 | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel through_shared --shape M=37,N=45 --check-bounds | FileCheck %s --check-prefix=RESULT
// RUN: %tmc run %s --kernel narrow_types --shape M=37,N=45 | FileCheck %s --check-prefix=RESULT
// RESULT-NOT: FAIL
// RESULT: result:{{ +}}PASS

op scaled(X: f32[M, N]) -> f32[M, N] {
  out[i, j] = X[i, j] * 3.0;
}
op copy_tile(X: f32[M, N]) -> f32[M, N] {
  out[i, j] = X[i, j];
}
op halves(X: f32[M, N]) -> f16[M, N] {
  out[i, j] = f16(X[i, j]);
}

// 64 register values per thread, each stored behind its guard: the whole
// 8 x 8 nest is one tail (no fast copy: the values come from registers,
// which stay scalar stores, and the guards need no branches).
kernel store_tile(X: f32[M, N], Y: f32[M, N]) implements scaled
    grid(cdiv(N, 64), cdiv(M, 64)) block(64) {
  let m = spatial(8, 8) * repeat(8, 8);
  register acc: f32[64, 64] by m;
  for (i, j) in m on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    acc[i, j] = 0.0;
    if (gi < M && gj < N) { acc[i, j] = X[gi, gj] * 3.0; }
  }
  for (i, j) in m on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { Y[gi, gj] = acc[i, j]; }
  }
}
// CHECK-LABEL: .entry store_tile(
// CHECK-COUNT-64: @%p{{[0-9]+}} st.global.f32 [%rd{{[0-9]+}}], %f{{[0-9]+}};
// CHECK-NOT: st.global
// CHECK: ret;

// A tile through shared memory: the full tile (rows whole, N a multiple
// of 4) reads and writes 16 bytes at a time; the tail writes global
// memory under the guard's predicate. Its reads of `t` are at offsets of
// thread indices and constants, inside `t` for any thread of the block:
// ordinary loads.
kernel through_shared(X: f32[M, N], Y: f32[M, N]) implements copy_tile
    grid(cdiv(N, 64), cdiv(M, 64)) block(128) {
  shared t: f32[64, 64];
  for (i, j) in repeat(8, 1) * spatial(8, 16) * repeat(1, 4) on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    t[i, j] = 0.0;
    if (gi < M && gj < N) { t[i, j] = X[gi, gj]; }
  }
  sync;
  for (i, j) in repeat(8, 1) * spatial(8, 16) * repeat(1, 4) on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { Y[gi, gj] = t[i, j]; }
  }
}
// CHECK-LABEL: .entry through_shared(
// CHECK: ld.shared.v4.f32
// CHECK: st.global.v4.f32
// CHECK-NOT: @%p{{[0-9]+}} ld.shared
// CHECK: ld.shared.f32 [[V:%f[0-9]+]], [%r{{[0-9]+}}];
// CHECK-NOT: @%p{{[0-9]+}} ld.shared
// CHECK: @%p{{[0-9]+}} st.global.f32 [%rd{{[0-9]+}}], [[V]];
// CHECK-NOT: @%p{{[0-9]+}} ld.shared
// CHECK: ret;

// A read of shared memory at an offset that depends on an argument (`r`
// may be negative, and so may `(j + r) % 64`) is not proven inside `t`:
// the tail reads it under the guard's predicate, zero where it is false.
kernel shifted_read(X: f32[M, N], Y: f32[M, N], r: i32) grid(cdiv(N, 64), cdiv(M, 64)) block(128) {
  shared t: f32[64, 64];
  for (i, j) in repeat(8, 1) * spatial(8, 16) * repeat(1, 4) on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    t[i, j] = 0.0;
    if (gi < M && gj < N) { t[i, j] = X[gi, gj]; }
  }
  sync;
  for (i, j) in repeat(8, 1) * spatial(8, 16) * repeat(1, 4) on threadIdx.x {
    let gi = blockIdx.y * 64 + i;
    let gj = blockIdx.x * 64 + j;
    if (gi < M && gj < N) { Y[gi, gj] = t[i, (j + r) % 64]; }
  }
}
// CHECK-LABEL: .entry shifted_read(
// CHECK: mov.b32 [[W:%f[0-9]+]], 0;
// CHECK-NEXT: @[[P:%p[0-9]+]] ld.shared.f32 [[W]], [%r{{[0-9]+}}];
// CHECK: @[[P]] st.global.f32 [%rd{{[0-9]+}}], [[W]];
// CHECK: ret;

// Narrow element types: f16 as its 16 bits, a bool as a byte.
kernel narrow_types(X: f32[M, N], Y: f16[M, N]) implements halves
    grid(cdiv(N, 32), cdiv(M, 32)) block(32) {
  let m = spatial(1, 32) * repeat(32, 1);
  register v: f32[32, 32] by m;
  for (i, j) in m on threadIdx.x {
    let gi = blockIdx.y * 32 + i;
    let gj = blockIdx.x * 32 + j;
    v[i, j] = 0.0;
    if (gi < M && gj < N) { v[i, j] = X[gi, gj]; }
  }
  for (i, j) in m on threadIdx.x {
    let gi = blockIdx.y * 32 + i;
    let gj = blockIdx.x * 32 + j;
    if (gi < M && gj < N) { Y[gi, gj] = f16(v[i, j]); }
  }
}
// CHECK-LABEL: .entry narrow_types(
// CHECK: @%p{{[0-9]+}} st.global.b16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// CHECK: ret;

kernel flags(X: f32[M, N], Z: bool[M, N]) grid(cdiv(N, 32), cdiv(M, 32)) block(32) {
  for (i, j) in spatial(1, 32) * repeat(32, 1) on threadIdx.x {
    let gi = blockIdx.y * 32 + i;
    let gj = blockIdx.x * 32 + j;
    if (gi < M && gj < N) { Z[gi, gj] = gi == gj; }
  }
}
// CHECK-LABEL: .entry flags(
// CHECK: @%p{{[0-9]+}} st.global.u8 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// CHECK: ret;

// Few guards: branches, as before.
kernel few_guards(X: f32[N], Y: f32[N]) grid(cdiv(N, 256)) block(256) {
  let g = blockIdx.x * 256 + threadIdx.x;
  if (g < N) { Y[g] = 2.0; }
}
// CHECK-LABEL: .entry few_guards(
// CHECK-NOT: @%p{{[0-9]+}} st.global
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.u32
// CHECK: ret;
