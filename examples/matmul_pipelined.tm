// Tensor-core matmul with a 128 x 128 block tile: f16 inputs, f32
// accumulation. Four warps (2 x 2) each own a 64 x 64 fragment tile of C,
// which is one register tensor: mma and ldmatrix work on whole fragment
// tiles (32 mma.m16n8k16 and 4 + 4 ldmatrix.x4 per k-step here).
// A 3-stage cp_async pipeline stages 128 x 16 tiles of A and 16 x 128
// tiles of B in shared memory, read through views (sa[stage]); copies past
// the edges of A and B read nothing and fill zeros, so M, N and K need not
// divide the tile. Rows of A and B must be 16-byte aligned for cp_async:
// K and N multiples of 8. Padded rows (24 and 136 halves) keep ldmatrix
// free of bank conflicts.

import std.nn;   // op matmul_f16
import std.mma;  // mma_a, mma_b, mma_c

kernel matmul_pipelined(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    implements matmul_f16
    grid(cdiv(N, 128), cdiv(M, 128)) block(128)
{
  shared sa: f16[3, 128, 24];   // 3 stages of A: 128 x 16, rows padded
  shared sb: f16[3, 16, 136];   // 3 stages of B: 16 x 128, rows padded
  register acc: f32[64, 64] by repeat(4, 8) * mma_c;
  register a: f16[64, 16] by repeat(4, 1) * mma_a;
  register b: f16[16, 64] by repeat(1, 8) * mma_b;
  for (i, j) in repeat(4, 8) * mma_c on lane_id { acc[i, j] = 0.0; }
  let wm = (warp_id / 2) * 64;   // the warp's tile in the block tile
  let wn = (warp_id % 2) * 64;
  let kt_count = cdiv(K, 16);
  // Iteration kt loads k-tile kt + 2 and computes k-tile kt.
  for kt in range(-2, kt_count) {
    if (kt >= 0) { cp_async_wait(1); }  // k-tile kt has landed (this thread's copies)
    sync;  // ... everyone's; and stage (kt + 2) % 3 is no longer read
    let ld = kt + 2;
    if (ld < kt_count) {
      let st = ld % 3;
      // Eight neighbouring lanes copy one 16-byte column chunk of eight
      // rows: each quarter-warp's writes then hit all 32 banks once.
      for (i, c) in repeat(2, 1) * spatial(8, 2) * spatial(8, 1) on threadIdx.x {
        let gi = blockIdx.y * 128 + i;
        let gk = ld * 16 + c * 8;
        cp_async(sa[st][i, c * 8], A[gi, gk], 16, gi < M ? (K - gk) * 2 : 0);
      }
      for (k, c) in repeat(2, 1) * spatial(8, 16) on threadIdx.x {
        let gk = ld * 16 + k;
        let gj = blockIdx.x * 128 + c * 8;
        cp_async(sb[st][k, c * 8], B[gk, gj], 16, gk < K ? (N - gj) * 2 : 0);
      }
    }
    cp_async_commit();
    if (kt >= 0) {
      ldmatrix(a, sa[kt % 3], wm, 0);   // 4 x ldmatrix.x4
      ldmatrix(b, sb[kt % 3], 0, wn);   // 4 x ldmatrix.x4.trans
      mma(acc, a, b, acc);              // 32 x mma.m16n8k16
    }
  }
  for (i, j) in repeat(4, 8) * mma_c on lane_id {
    let gi = blockIdx.y * 128 + wm + i;
    let gj = blockIdx.x * 128 + wn + j;
    if (gi < M && gj < N) { C[gi, gj] = acc[i, j]; }
  }
}
