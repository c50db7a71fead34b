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
// Geometry. Stride, padding and dilation are run-time scalars, so one
// compiled kernel serves every geometry; the output size P x Q is a free
// result dimension (docs/language.md §13), the shape of the output the
// caller passes. Any P, Q are valid (pixels whose window lies entirely in
// the padding are 0); the usual ones are
//   P = (H + 2 * ph - dh * (KH - 1) - 1) / sh + 1, likewise Q.

import std.mma;  // mma_a, mma_b, mma_c

op conv2d<T>(X: T[N, H, W, C], Wt: T[KH, KW, C, F],
             sh: i32, sw: i32, ph: i32, pw: i32, dh: i32, dw: i32) -> f32[N, P, Q, F] {
  out[n, p, q, f] = sum(kh < KH, kw < KW, c < C)
      (p * sh - ph + kh * dh >= 0 && p * sh - ph + kh * dh < H && q * sw - pw + kw * dw >= 0 && q * sw - pw + kw * dw < W)
        ? f32(X[n, p * sh - ph + kh * dh, q * sw - pw + kw * dw, c]) * f32(Wt[kh, kw, c, f]) : 0.0;
}

// Four warps as 2 x 2, each a BM/2 x BN/2 fragment tile of the BM x BN
// block tile (output pixels x filters); a STAGES-deep pipeline of
// zero-filling cp_async copies of BM x 16 tiles of the implicit A and
// 16 x BN tiles of the weights, as std.matmul's matmul_tc.
kernel conv2d_tc<T: type in [f16, bf16], BM: int in [64, 128] = 128, BN: int in [64, 128] = 128,
                 STAGES: int in [2, 3] = 3>
    (X: T[N, H, W, C], Wt: T[KH, KW, C, F],
     sh: i32, sw: i32, ph: i32, pw: i32, dh: i32, dw: i32, Y: f32[N, P, Q, F])
    implements conv2d
    where C % 8 == 0, F % 8 == 0
    grid(cdiv(F, BN), cdiv(N * P * Q, BM)) block(128)
{
  shared sa: T[STAGES, BM, 24];
  shared sb: T[STAGES, 16, BN + 8];
  shared pix: i32[BM, 3];  // (n, p, q) of each row of the block tile
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
  // The epilogue finds each row's pixel in `pix` (written here, read
  // after the main loop's barriers) instead of dividing again.
  register rn: i32[BM / 64];
  register rh: i32[BM / 64];
  register rw: i32[BM / 64];
  for r in unroll(BM / 64) {
    let m = blockIdx.y * BM + ar + 64 * r;
    let n = m / (P * Q);
    let pq = m - n * (P * Q);
    let p = pq / Q;
    let q = pq - p * Q;
    rn[r] = m < M ? n : 0;
    rh[r] = m < M ? p * sh - ph : -H - (KH - 1) * dh;
    rw[r] = q * sw - pw;
    if (ac == 0) {
      pix[ar + 64 * r, 0] = n;
      pix[ar + 64 * r, 1] = p;
      pix[ar + 64 * r, 2] = q;
    }
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
  for (i, j) in repeat(BM / 32, BN / 16) * mma_c on lane_id {
    let gi = blockIdx.y * BM + wm + i;
    let gj = blockIdx.x * BN + wn + j;
    if (gi < M && gj < F) { Y[pix[wm + i, 0], pix[wm + i, 1], pix[wm + i, 2], gj] = acc[i, j]; }
  }
}

// ------------------------------------------------------------ pooling
//
// Max and average pooling over windows of kh x kw input pixels, stride
// (sh, sw), padding (ph, pw); as for conv2d, P x Q is the output's shape,
// given by the caller. The ops state a
// window as the input pixels inside it (the padding never wins a max and
// adds nothing to a sum). Average pooling counts the padding in the
// divisor, as PyTorch's count_include_pad=True: the divisor is the window
// clipped to the padded input, (min(hs + kh, H + ph) - hs) *
// (min(ws + kw, W + pw) - ws) with hs = p * sh - ph, which is kh * kw for
// every window when P = (H + 2 * ph - kh) / sh + 1 (floor mode) and
// matches ceil_mode's smaller last windows; it is at least 1. A max over a
// window with no input pixel is -inf.

op maxpool2d<T>(X: T[N, H, W, C],
                kh: i32, kw: i32, sh: i32, sw: i32, ph: i32, pw: i32) -> T[N, P, Q, C] {
  out[n, p, q, c] = (max(h < H, w < W)
      (h >= p * sh - ph && h < p * sh - ph + kh && w >= q * sw - pw && w < q * sw - pw + kw)
        ? f32(X[n, h, w, c]) : -inf);
}

op avgpool2d<T>(X: T[N, H, W, C],
                kh: i32, kw: i32, sh: i32, sw: i32, ph: i32, pw: i32) -> T[N, P, Q, C] {
  out[n, p, q, c] = (sum(h < H, w < W)
      (h >= p * sh - ph && h < p * sh - ph + kh && w >= q * sw - pw && w < q * sw - pw + kw)
        ? f32(X[n, h, w, c]) : 0.0)
      / f32(max((min(p * sh - ph + kh, H + ph) - (p * sh - ph)) * (min(q * sw - pw + kw, W + pw) - (q * sw - pw)), 1));
}

// A block of 256 threads as spatial(256 / CT, CT): CT threads along the
// channels of each of 256 / CT output pixels, each thread V = 8
// consecutive channels, so that a pixel's channels are one 16-byte access
// per thread for 16-bit types and two for f32 (where C % 8 == 0 and the
// chunk lies inside C; element by element at the edge). The launch picks
// the smallest CT whose CT * 8 channels cover C (CT = 32 and more channel
// tiles above). V is 8 for f32 too, as a launch condition cannot use
// sizeof(T) to scale the channels a thread covers.
kernel maxpool2d_nhwc<T: type in [f32, f16, bf16], CT: int in [4, 8, 16, 32]>
    (X: T[N, H, W, C],
     kh: i32, kw: i32, sh: i32, sw: i32, ph: i32, pw: i32, Y: T[N, P, Q, C])
    implements maxpool2d
    where CT * 8 >= C || CT == 32
    grid(cdiv(N * P * Q, 256 / CT), cdiv(C, CT * 8)) block(256)
{
  let V = 8;
  let m = spatial(256 / CT, CT) * repeat(1, V);
  register acc: f32[256 / CT, CT * V] by m;
  let pix = blockIdx.x * (256 / CT) + threadIdx.x / CT;
  if (pix < N * P * Q) {
    let n = pix / (P * Q);
    let pq = pix - n * (P * Q);
    let p = pq / Q;
    let q = pq - p * Q;
    let hs = p * sh - ph;
    let ws = q * sw - pw;
    for (x, c) in m on threadIdx.x { acc[x, c] = -inf; }
    for h in range(max(hs, 0), min(hs + kh, H)) {
      for w in range(max(ws, 0), min(ws + kw, W)) {
        for (x, c) in m on threadIdx.x {
          let ch = blockIdx.y * (CT * V) + c;
          if (ch < C) { acc[x, c] = max(acc[x, c], f32(X[n, h, w, ch])); }
        }
      }
    }
    for (x, c) in m on threadIdx.x {
      let ch = blockIdx.y * (CT * V) + c;
      if (ch < C) { Y[n, p, q, ch] = T(acc[x, c]); }
    }
  }
}

// As maxpool2d_nhwc, summing in f32 and dividing by the padded window.
kernel avgpool2d_nhwc<T: type in [f32, f16, bf16], CT: int in [4, 8, 16, 32]>
    (X: T[N, H, W, C],
     kh: i32, kw: i32, sh: i32, sw: i32, ph: i32, pw: i32, Y: T[N, P, Q, C])
    implements avgpool2d
    where CT * 8 >= C || CT == 32
    grid(cdiv(N * P * Q, 256 / CT), cdiv(C, CT * 8)) block(256)
{
  let V = 8;
  let m = spatial(256 / CT, CT) * repeat(1, V);
  register acc: f32[256 / CT, CT * V] by m;
  let pix = blockIdx.x * (256 / CT) + threadIdx.x / CT;
  if (pix < N * P * Q) {
    let n = pix / (P * Q);
    let pq = pix - n * (P * Q);
    let p = pq / Q;
    let q = pq - p * Q;
    let hs = p * sh - ph;
    let ws = q * sw - pw;
    // The divisor: the window clipped to the padded input.
    let inv = 1.0 / f32(max((min(hs + kh, H + ph) - hs) * (min(ws + kw, W + pw) - ws), 1));
    for (x, c) in m on threadIdx.x { acc[x, c] = 0.0; }
    for h in range(max(hs, 0), min(hs + kh, H)) {
      for w in range(max(ws, 0), min(ws + kw, W)) {
        for (x, c) in m on threadIdx.x {
          let ch = blockIdx.y * (CT * V) + c;
          if (ch < C) { acc[x, c] += f32(X[n, h, w, ch]); }
        }
      }
    }
    for (x, c) in m on threadIdx.x { acc[x, c] *= inv; }
    for (x, c) in m on threadIdx.x {
      let ch = blockIdx.y * (CT * V) + c;
      if (ch < C) { Y[n, p, q, ch] = T(acc[x, c]); }
    }
  }
}
