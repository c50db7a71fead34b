// Fragment tiles on the CPU executor and in generated code: ldmatrix x1, x2, x4 and
// .trans chosen from the destination's layout, tile(...) regions with a
// run-time tile index, mma over fragment tiles, zero-filling cp_async and
// views of shared tensors.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --kernel ldmatrix_layouts --shape R=16,C=32 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --kernel ldmatrix_layouts --shape R=16,C=32 --seed 5 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --kernel tile_loop --shape M=48,N=40,K=64 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --kernel tile_loop --shape M=33,N=17,K=24 --seed 3 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --kernel zero_fill --shape N=37 --check-bounds --check-races | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc run %s --kernel zero_fill --shape N=8 --seed 9 | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=MMA
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=FILL
// RUN: %tmc %s --emit=ir | FileCheck %s --check-prefix=IR
// RUN: %tmc %s --emit=ptx | %ptxas-verify --no-spills sm_80
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify --no-spills sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/k.cu && %nvcc -arch=sm_80 %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// One x4 and one x2 plain, one x1 plain and transposed, two x4.trans.
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x1.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// A 32 x 16 tile of C per warp, 2 k-steps: 8 mma per iteration of the k loop.
// MMA-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-NOT: mma.sync
// FILL: cp.async.ca.shared.global [{{%r[0-9]+}}], [{{%rd[0-9]+}}], 8, {{%r[0-9]+}};
// The IR names each instruction's registers: mma(d, a, b, c, first
// registers...) and ldmatrix(x, row address, first register, count, trans);
// an x4's lane origins are arithmetic on the lane's matrix (l / 8) % 4.
// IR: ldmatrix(a, s[(((16 + ((((threadIdx.x / 8) % 2) * 8) + (threadIdx.x % 8))) * 32) + (((threadIdx.x / 8) / 2) * 8))], 0, 4, 0)
// IR: ldmatrix(qt, s[{{.*}}], 0, 1, 1)
// IR: mma.m16n8k16(acc, a, b, acc, 0, 0, 0, 0)
// IR-NEXT: mma.m16n8k16(acc, a, b, acc, 0, 8, 8, 0)
// CUDA: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CUDA: cp.async.ca.shared.global [%0], [%1], 8, %2;

import std.mma;

op copy_tile(X: f16[R, C]) -> f16[R, C] { out[i, j] = X[i, j]; }

// Copies a 16 x 32 matrix through shared memory and register tensors of
// every ldmatrix shape; each register tensor writes back what it holds.
// (Run at R = 16, C = 32.)
kernel ldmatrix_layouts(X: f16[R, C], Y: f16[R, C]) implements copy_tile block(32) {
  shared s: f16[2, 16, 32];   // stage 1 is used, through a view
  let t = s[1];
  for (i, j) in repeat(16, 1) * spatial(1, 32) on lane_id { t[i, j] = X[i, j]; }
  sync;
  register a: f16[16, 16] by mma_a;                                  // x4
  register p: f16[16, 8] by repeat(2, 1) * spatial(8, 4) * repeat(1, 2);  // x2
  register q: f16[8, 8] by spatial(8, 4) * repeat(1, 2);             // x1
  register qt: f16[8, 8] by col_spatial(4, 8) * repeat(2, 1);        // x1.trans
  register b: f16[16, 32] by repeat(1, 4) * mma_b;                   // 2 x x4.trans
  ldmatrix(a, t, 0, 0);
  ldmatrix(p, s[1], 0, 16);
  ldmatrix(q, t, 0, 24);
  ldmatrix(qt, t, 8, 24);
  ldmatrix(b, t, 0, 0);
  for (i, j) in mma_a on lane_id { if (j < 8) { Y[i, j] = a[i, j]; } }
  for (i, j) in repeat(1, 4) * mma_b on lane_id { if (j >= 8 && j < 16) { Y[i, j] = b[i, j]; } }
  for (i, j) in repeat(2, 1) * spatial(8, 4) * repeat(1, 2) on lane_id { Y[i, j + 16] = p[i, j]; }
  for (i, j) in spatial(8, 4) * repeat(1, 2) on lane_id { Y[i, j + 24] = q[i, j]; }
  for (i, j) in col_spatial(4, 8) * repeat(2, 1) on lane_id { Y[i + 8, j + 24] = qt[i, j]; }
}

op matmul_h(A: f16[M, K], B: f16[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);
}

// One warp per 32 x 16 tile of C; the tile loops pick sub-tiles with a
// loop index (unrolled, so register offsets are constants).
kernel tile_loop(A: f16[M, K], B: f16[K, N], C: f32[M, N]) implements matmul_h
    grid(cdiv(N, 16), cdiv(M, 32)) block(32)
{
  shared sa: f16[32, 40];
  shared sb: f16[32, 24];
  register acc: f32[32, 16] by repeat(2, 2) * mma_c;
  register a: f16[32, 32] by repeat(2, 2) * mma_a;
  register b: f16[32, 16] by repeat(2, 2) * mma_b;
  for (i, j) in repeat(2, 2) * mma_c on lane_id { acc[i, j] = 0.0; }
  for k0 in range(cdiv(K, 32)) {
    for (i, k) in repeat(32, 1) * spatial(1, 32) on lane_id {
      let gi = blockIdx.y * 32 + i;
      let gk = k0 * 32 + k;
      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;
    }
    for (k, j) in repeat(16, 1) * spatial(2, 16) on lane_id {
      let gk = k0 * 32 + k;
      let gj = blockIdx.x * 16 + j;
      sb[k, j] = (gk < K && gj < N) ? B[gk, gj] : 0.0;
    }
    sync;
    for kk in unroll(2) {
      ldmatrix(tile(a, 32, 16, 0, kk), sa, 0, kk * 16);
      ldmatrix(tile(b, 16, 16, kk, 0), sb, kk * 16, 0);
    }
    for i in unroll(2) {
      for j in unroll(2) {
        mma(tile(acc, 16, 8, i, j), tile(a, 16, 32, i, 0), tile(b, 32, 8, 0, j), tile(acc, 16, 8, i, j));
      }
    }
    sync;
  }
  for (i, j) in repeat(2, 2) * mma_c on lane_id {
    let gi = blockIdx.y * 32 + i;
    let gj = blockIdx.x * 16 + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}

op copy_vec(X: f16[N]) -> f16[N] { out[i] = X[i]; }

// A predicated tile copy in one line: lanes past the end read nothing.
kernel zero_fill(X: f16[N], Y: f16[N]) implements copy_vec grid(cdiv(N, 128)) block(32) {
  shared s: f16[128];
  for c in spatial(32) on lane_id {
    let g = blockIdx.x * 128 + c * 4;
    cp_async(s[c * 4], X[g], 8, (N - g) * 2);
  }
  cp_async_commit();
  cp_async_wait(0);
  sync;
  for c in repeat(4) * spatial(32) on lane_id {
    let g = blockIdx.x * 128 + c;
    if (g < N) { Y[g] = s[c]; }
  }
}
