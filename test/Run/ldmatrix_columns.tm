// ldmatrix from tiles whose columns are contiguous (col_major, and
// strided(1, S) with padded columns): the instruction reads columns, so
// the compiler gives each lane a column's address and flips .trans. Both
// fragment kinds (the A fragment's plain matrices, the B fragment's
// transposed ones) against the op, with the checkers; PTX through ptxas.
// REQUIRES: ptxas
// RUN: %tmc run %s -I %stdlib --kernel cols --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s -I %stdlib --kernel cols -D T=bf16 --seed 2 | FileCheck %s
// RUN: %tmc run %s -I %stdlib --kernel padded --check-bounds --check-races | FileCheck %s
// RUN: %tmc %s -I %stdlib --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s -I %stdlib --emit=ptx | FileCheck %s --check-prefix=PTX
// CHECK: unwritten:  0 of
// CHECK: result:     PASS
// The A fragment (plain matrices) of a column tile loads with .trans, the
// B fragment (transposed ones) without.
// PTX: .entry cols(
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x2.shared.b16

import std.mma;

// sk[d, n] = K[n, d]: the transpose of K, read as fragments.
op transposed<T>(K: T[16, 16]) -> (A: f32[16, 16], B: f32[16, 8]) {
  A[i, j] = f32(K[j, i]);
  B[i, j] = f32(K[8 + j, i]);
}

kernel cols<T: type in [f16, bf16]>(K: T[16, 16], A: f32[16, 16], B: f32[16, 8]) implements transposed block(32) {
  shared sk: T[16, 16] col_major;  // column n of sk is row n of K
  for (n, c) in spatial(16, 2) on lane_id { cp_async(sk[c * 8, n], K[n, c * 8], 16); }
  cp_async_commit();
  cp_async_wait(0);
  sync;
  register a: T[16, 16] by mma_a;
  register b: T[16, 8] by mma_b;
  ldmatrix(a, sk, 0, 0);  // a[i, j] = sk[i, j]
  ldmatrix(b, sk, 0, 8);  // b[i, j] = sk[i, 8 + j]
  for (i, j) in mma_a on lane_id { A[i, j] = f32(a[i, j]); }
  for (i, j) in mma_b on lane_id { B[i, j] = f32(b[i, j]); }
}

kernel padded<T: type in [f16, bf16]>(K: T[16, 16], A: f32[16, 16], B: f32[16, 8]) implements transposed block(32) {
  shared sk: T[16, 16] strided(1, 24);  // columns padded to 48 bytes
  for (n, c) in spatial(16, 2) on lane_id { cp_async(sk[c * 8, n], K[n, c * 8], 16); }
  cp_async_commit();
  cp_async_wait(0);
  sync;
  register a: T[16, 16] by mma_a;
  register b: T[16, 8] by mma_b;
  ldmatrix(a, sk, 0, 0);
  ldmatrix(b, sk, 0, 8);
  for (i, j) in mma_a on lane_id { A[i, j] = f32(a[i, j]); }
  for (i, j) in mma_b on lane_id { B[i, j] = f32(b[i, j]); }
}
