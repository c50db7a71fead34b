// std.conv: 2-D convolution and pooling over NHWC tensors.
//
// conv2d is an implicit GEMM on tensor cores: the output pixels (n, p, q)
// are the GEMM's M = N * P * Q rows, the filters its N_gemm = F columns and
// the taps (kh, kw, c) its K = KH * KW * C reduction. The weights are
// stored [KH, KW, C, F] (HWIO), which is the row-major K x F matrix B, so
// they load exactly as std.matmul's B does (16-byte cp_async along F,
// ldmatrix.trans). A tile of A is gathered from X: each 16-byte chunk is 8
// consecutive channels of one input pixel, zero-filled where the pixel
// lies in the padding or past the tensor, hence C % 8 == 0 and F % 8 == 0.
//
// Geometry. An op cannot take integer compile-time parameters and its
// result dimensions cannot depend on scalar inputs, so stride, padding and
// dilation are run-time scalars and the output extent P x Q comes, as in
// cuDNN (y = conv(x, w) + beta * y), from the prior output Y0 whose shape
// is the output's: out = conv + beta * Y0, and Y0 is not read when
// beta == 0. Any P, Q are valid (pixels whose window lies entirely in the
// padding are 0); the usual ones are
//   P = (H + 2 * ph - dh * (KH - 1) - 1) / sh + 1, likewise Q.

import std.mma;  // mma_a, mma_b, mma_c

op conv2d<T>(X: T[N, H, W, C], Wt: T[KH, KW, C, F], Y0: f32[N, P, Q, F], beta: f32,
             sh: i32, sw: i32, ph: i32, pw: i32, dh: i32, dw: i32) -> f32[N, P, Q, F] {
  out[n, p, q, f] = (sum(kh < KH, kw < KW, c < C)
      (p * sh - ph + kh * dh >= 0 && p * sh - ph + kh * dh < H && q * sw - pw + kw * dw >= 0 && q * sw - pw + kw * dw < W)
        ? f32(X[n, p * sh - ph + kh * dh, q * sw - pw + kw * dw, c]) * f32(Wt[kh, kw, c, f]) : 0.0)
      + beta * Y0[n, p, q, f];
}

// Four warps as 2 x 2, each a BM/2 x BN/2 fragment tile of the BM x BN
// block tile (output pixels x filters); a STAGES-deep pipeline of
// zero-filling cp_async copies of BM x 16 tiles of the implicit A and
// 16 x BN tiles of the weights, as std.matmul's matmul_tc.
kernel conv2d_tc<T: type in [f16, bf16], BM: int in [64, 128] = 128, BN: int in [64, 128] = 128,
                 STAGES: int in [2, 3, 4] = 3>
    (X: T[N, H, W, C], Wt: T[KH, KW, C, F], Y0: f32[N, P, Q, F], beta: f32,
     sh: i32, sw: i32, ph: i32, pw: i32, dh: i32, dw: i32, Y: f32[N, P, Q, F])
    implements conv2d
    where C % 8 == 0, F % 8 == 0
    grid(cdiv(F, BN), cdiv(N * P * Q, BM)) block(128)
{
  shared sa: T[STAGES, BM, 24];
  shared sb: T[STAGES, 16, BN + 8];
  register acc: f32[BM / 2, BN / 2] by repeat(BM / 32, BN / 16) * mma_c;
  register a: T[BM / 2, 16] by repeat(BM / 32, 1) * mma_a;
  register b: T[16, BN / 2] by repeat(1, BN / 16) * mma_b;
  for (i, j) in repeat(BM / 32, BN / 16) * mma_c on lane_id { acc[i, j] = 0.0; }
  let wm = (warp_id / 2) * (BM / 2);
  let wn = (warp_id % 2) * (BN / 2);
  let M = N * P * Q;
  let taps = KH * KW;
  let kt_count = cdiv(taps * C, 16);
  // The A copies: thread t copies the 16-byte chunk ac (channels 8 ac ..
  // 8 ac + 7 of the k-tile) of rows ar + 64 r; eight neighbouring threads
  // cover one chunk column of eight rows. The rows' output pixels are
  // fixed, so their input origin (n, p * sh - ph, q * sw - pw) is
  // computed once; a row past M gets an origin that no tap brings inside.
  let ar = (threadIdx.x / 16) * 8 + threadIdx.x % 8;
  let ac = (threadIdx.x / 8) % 2;
  register rn: i32[BM / 64];
  register rh: i32[BM / 64];
  register rw: i32[BM / 64];
  for r in unroll(BM / 64) {
    let m = blockIdx.y * BM + ar + 64 * r;
    let pq = m % (P * Q);
    rn[r] = m < M ? m / (P * Q) : 0;
    rh[r] = m < M ? (pq / Q) * sh - ph : -H - (KH - 1) * dh;
    rw[r] = (pq % Q) * sw - pw;
  }
  // Iteration kt loads k-tile kt + STAGES - 1 and computes k-tile kt.
  for kt in range(1 - STAGES, kt_count) {
    if (kt >= 0) { cp_async_wait(STAGES - 2); }  // k-tile kt has landed (this thread's copies)
    sync;  // ... everyone's; and the stage about to be refilled is no longer read
    let ld = kt + STAGES - 1;
    if (ld < kt_count) {
      let st = ld % STAGES;
      // A: the chunk's tap (kh, kw) and first channel c0 (C % 8 == 0, so
      // a chunk never straddles two taps).
      let k = ld * 16 + ac * 8;
      let tap = k / C;
      let c0 = k - tap * C;
      let kh = tap / KW;
      let kw = tap - kh * KW;
      for r in unroll(BM / 64) {
        let h = rh[r] + kh * dh;
        let w = rw[r] + kw * dw;
        let ok = tap < taps && h >= 0 && h < H && w >= 0 && w < W;
        cp_async(sa[st][ar + 64 * r, ac * 8], X[rn[r], ok ? h : 0, ok ? w : 0, ok ? c0 : 0], 16, ok);
      }
      // B: rows of the K x F weight matrix, 16-byte chunks along F.
      for (kk, c) in repeat(BN / 64, 1) * spatial(1024 / BN, BN / 8) on threadIdx.x {
        let gk = ld * 16 + kk;
        let gj = blockIdx.x * BN + c * 8;
        let ok = gk < taps * C && gj < F;
        let t = ok ? gk / C : 0;
        let ci = ok ? gk - (gk / C) * C : 0;
        cp_async(sb[st][kk, c * 8], Wt[t / KW, t % KW, ci, ok ? gj : 0], 16, ok);
      }
    }
    cp_async_commit();
    if (kt >= 0) {
      ldmatrix(a, sa[kt % STAGES], wm, 0);
      ldmatrix(b, sb[kt % STAGES], 0, wn);
      mma(acc, a, b, acc);
    }
  }
  // The pixel of each row is computed outside the guard, so that the
  // divisions are shared by the row's elements.
  for (i, j) in repeat(BM / 32, BN / 16) * mma_c on lane_id {
    let gi = blockIdx.y * BM + wm + i;
    let gj = blockIdx.x * BN + wn + j;
    let n = gi / (P * Q);
    let pq = gi - n * (P * Q);
    let p = pq / Q;
    let q = pq - p * Q;
    if (gi < M && gj < F) {
      if (beta != 0.0) {
        Y[n, p, q, gj] = acc[i, j] + beta * Y0[n, p, q, gj];
      } else {
        Y[n, p, q, gj] = acc[i, j];
      }
    }
  }
}
