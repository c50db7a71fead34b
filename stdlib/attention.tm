// std.attention: scaled dot-product attention, forward, in the manner of
// FlashAttention-2. A block of NW warps (4 or 8) owns BM query rows of one
// (batch, head) and walks the keys BN at a time; each warp keeps its BM/NW
// rows (16 or 32) of Q in registers and, per key block, computes S = Q K^T
// and O += P V with mma (f32 accumulation), the softmax online (running row
// maximum m and sum l, O rescaled when m grows), so no score matrix reaches
// global memory. K and V pass through double-buffered shared memory by
// zero-filling cp_async copies. The result is O / l, written through
// shared memory as 16-byte rows. D (the head dimension) is 64 or 128: the
// candidate with HD == D serves a launch.

import std.mma;  // mma_a, mma_b, mma_c

// out[b, h, i, :] = softmax_j(scale * Q[b, h, i, :] . K[b, h, j, :]) V[b, h, :, :],
// with the statistics in f32.
op attention<T>(Q: T[B, H, S, D], K: T[B, H, SK, D], V: T[B, H, SK, D], scale: f32) -> T[B, H, S, D] {
  let sc[b, h, i, j] = scale * (sum(d < D) f32(Q[b, h, i, d]) * f32(K[b, h, j, d]));
  let m[b, h, i] = max(j < SK) sc[b, h, i, j];
  let l[b, h, i] = sum(j < SK) exp(sc[b, h, i, j] - m[b, h, i]);
  out[b, h, i, e] = (sum(j < SK) exp(sc[b, h, i, j] - m[b, h, i]) * f32(V[b, h, j, e])) / l[b, h, i];
}

// Causal: query i sees the keys j <= i + SK - S (the last query row sees
// every key: the diagonal is aligned to the bottom right, as in
// FlashAttention 2.1 and later). With SK < S the first S - SK rows see no
// key; their output is 0.
op attention_causal<T>(Q: T[B, H, S, D], K: T[B, H, SK, D], V: T[B, H, SK, D], scale: f32) -> T[B, H, S, D] {
  let sc[b, h, i, j] = scale * (sum(d < D) f32(Q[b, h, i, d]) * f32(K[b, h, j, d]));
  let m[b, h, i] = max(j < SK) select(j <= i + SK - S, sc[b, h, i, j], -inf);
  let l[b, h, i] = sum(j < SK) select(j <= i + SK - S, exp(sc[b, h, i, j] - m[b, h, i]), 0.0);
  out[b, h, i, e] = select(l[b, h, i] > 0.0,
      (sum(j < SK) select(j <= i + SK - S, exp(sc[b, h, i, j] - m[b, h, i]), 0.0) * f32(V[b, h, j, e])) / l[b, h, i],
      0.0);
}

kernel attention_fwd<T: type in [f16, bf16], HD: int in [64, 128], BM: int in [64, 128] = 64,
                    BN: int in [64] = 64, NW: int in [4, 8] = 4>
    (Q: T[B, H, S, D], K: T[B, H, SK, D], V: T[B, H, SK, D], scale: f32, O: T[B, H, S, D])
    implements attention
    // A warp owns 16 or 32 query rows; D = 128 with 32 rows would hold O (128
    // registers) and Q (64) beside S: more than a thread's 255.
    where HD == D, BM / NW >= 16, BM / NW <= 32, HD * (BM / NW) <= 2048
    grid(cdiv(S, BM), H, B) block(32 * NW)
{
  let WR = BM / NW;                              // query rows per warp
  let CT = 8 * 32 * NW;                          // elements a round of 16-byte copies moves
  shared sq: T[BM, HD + 8];                      // Q, later the output tile
  shared sk: T[2, BN, HD + 8];                   // K, two stages
  shared sv: T[2, BN, HD + 8];                   // V, two stages
  register q: T[WR, HD] by repeat(WR / 16, HD / 16) * mma_a;
  let kmap = repeat(1, BN / 8) * mma_b;
  register kb: T[16, BN] by kmap;                // 16 rows of K^T
  register vb: T[16, HD] by repeat(1, HD / 8) * mma_b;
  // S's C fragments spelled as pairs (16 x 16), so that P's A fragments
  // (mma_a = repeat(1, 2) * mma_c) index them in one loop.
  let smap = repeat(WR / 16, BN / 16) * repeat(1, 2) * mma_c;
  let omap = repeat(WR / 16, HD / 8) * mma_c;
  register s: f32[WR, BN] by smap;
  register p: T[WR, BN] by repeat(WR / 16, BN / 16) * mma_a;
  register o: f32[WR, HD] by omap;
  // Row statistics: lane 4g + t keeps those of its rows g, g + 8, g + 16, ...
  // (once per lane of the quad: rmap's column is t), the running maximum m
  // (scaled, in log2 units) and the running sum l of its own columns.
  let rmap = repeat(WR / 16, 1) * repeat(2, 1) * spatial(8, 4);
  register mrow: f32[WR, 4] by rmap;
  register lrow: f32[WR, 4] by rmap;
  register alpha: f32[WR, 4] by rmap;            // exp2(m_old - m_new), the rescaling of O and l
  let bb = blockIdx.z;
  let hh = blockIdx.y;
  let q0 = blockIdx.x * BM;
  let wm = warp_id * WR;
  let c2 = scale * 1.4426950408889634;          // exp(x * scale) = exp2(x * c2)
  let nb = cdiv(SK, BN);

  // Q, K and V of key block 0: 16-byte zero-filling copies, a row's
  // chunks by neighbouring lanes.
  for (i, c) in repeat(BM * HD / CT, 1) * spatial(CT / HD, HD / 8) on threadIdx.x {
    let gi = q0 + i;
    cp_async(sq[i, c * 8], Q[bb, hh, gi, c * 8], 16, gi < S);
  }
  for (j, c) in repeat(BN * HD / CT, 1) * spatial(CT / HD, HD / 8) on threadIdx.x {
    cp_async(sk[0][j, c * 8], K[bb, hh, j, c * 8], 16, j < SK);
    cp_async(sv[0][j, c * 8], V[bb, hh, j, c * 8], 16, j < SK);
  }
  cp_async_commit();
  for (i, j) in omap on lane_id { o[i, j] = 0.0; }
  for (r, t) in rmap on lane_id {
    mrow[r, t] = -inf;
    lrow[r, t] = 0.0;
  }
  cp_async_wait(0);
  sync;
  ldmatrix(q, sq, wm, 0);

  for n in range(nb) {
    let st = n % 2;
    let n0 = n * BN;
    if (n > 0) {
      cp_async_wait(0);   // K and V of block n have landed (this thread's copies)
      sync;               // ... everyone's; and stage 1 - st is no longer read
    }
    if (n + 1 < nb) {
      let n1 = n0 + BN;
      for (j, c) in repeat(BN * HD / CT, 1) * spatial(CT / HD, HD / 8) on threadIdx.x {
        let gj = n1 + j;
        cp_async(sk[1 - st][j, c * 8], K[bb, hh, gj, c * 8], 16, gj < SK);
        cp_async(sv[1 - st][j, c * 8], V[bb, hh, gj, c * 8], 16, gj < SK);
      }
      cp_async_commit();
    }
    // S = Q K^T, 16 rows of K^T at a time. A lane's B registers of K^T are
    // two neighbouring elements of a row of K (kb[d, j] = K[j, d] with d
    // even, then d + 1): 4-byte loads from the row-major tile, free of bank
    // conflicts (rows are 4 banks apart), where ldmatrix would need K^T in
    // shared memory.
    for (i, j) in smap on lane_id { s[i, j] = 0.0; }
    for kk in unroll(HD / 16) {
      for (d, j) in kmap on lane_id { kb[d, j] = sk[st][j, kk * 16 + d]; }
      mma(s, tile(q, WR, 16, 0, kk), kb, s);
    }
    // Scale to log2 units; keys past SK (in the last block) score -inf.
    if (n0 + BN <= SK) {
      for (i, j) in smap on lane_id { s[i, j] *= c2; }
    } else {
      for (i, j) in smap on lane_id { s[i, j] = n0 + j < SK ? s[i, j] * c2 : -inf; }
    }
    // Online softmax, row by row of this lane, in three passes so that each
    // unrolls (the conditions i == r are constants once unrolled: both are
    // the lane's row g plus a constant).
    for (r, t) in rmap on lane_id {
      var mx: f32 = mrow[r, t];
      for (i, j) in smap on lane_id {
        if (i == r) { mx = max(mx, s[i, j]); }
      }
      mx = max(mx, shfl_xor(mx, 1));
      mx = max(mx, shfl_xor(mx, 2));
      let mu = mx == -inf ? 0.0 : mx;          // a row that has seen no key yet
      alpha[r, t] = exp2(mrow[r, t] - mu);
      mrow[r, t] = mx;
    }
    for (r, t) in rmap on lane_id {
      let mu = mrow[r, t] == -inf ? 0.0 : mrow[r, t];
      var ls: f32 = 0.0;
      for (i, j) in smap on lane_id {
        if (i == r) {
          s[i, j] = exp2(s[i, j] - mu);
          ls += s[i, j];
        }
      }
      lrow[r, t] = lrow[r, t] * alpha[r, t] + ls;
    }
    for (r, t) in rmap on lane_id {
      for (i, j) in omap on lane_id {
        if (i == r) { o[i, j] *= alpha[r, t]; }
      }
    }
    // P in T: the C fragments of two neighbouring 16 x 8 tiles are, lane by
    // lane and register by register, the A fragment of the 16 x 16 tile.
    for (i, j) in repeat(WR / 16, BN / 16) * mma_a on lane_id { p[i, j] = T(s[i, j]); }
    // O += P V, 16 keys at a time.
    for kk in unroll(BN / 16) {
      ldmatrix(vb, sv[st], kk * 16, 0);
      mma(o, tile(p, WR, 16, 0, kk), vb, o);
    }
  }

  // O / l: the row sums over the 4 lanes of a row, then the tile through
  // this warp's rows of sq (which only this warp reads) as 16-byte rows.
  // (The barrier orders the rewrite of sq after the ldmatrix of Q by the
  // other lanes when there was no key block to separate them.)
  sync;
  for (r, t) in rmap on lane_id {
    var lt = lrow[r, t];
    lt += shfl_xor(lt, 1);
    lt += shfl_xor(lt, 2);
    let inv = lt > 0.0 ? 1.0 / lt : 0.0;     // 0 for a row that saw no key
    for (i, j) in omap on lane_id {
      if (i == r) { sq[wm + i, j] = T(o[i, j] * inv); }
    }
  }
  sync;
  for (i, c) in repeat(WR * HD / 256, 1) * spatial(256 / HD, HD / 8) on lane_id {
    let gi = q0 + wm + i;
    // (The guard inside the loop lets the compiler split off a 16-byte store.)
    for e in unroll(8) {
      if (gi < S) { O[bb, hh, gi, c * 8 + e] = sq[wm + i, c * 8 + e]; }
    }
  }
}

// As attention_fwd, for attention_causal: the key blocks wholly above the
// diagonal are not visited, and only those that cross it are masked.
kernel attention_causal_fwd<T: type in [f16, bf16], HD: int in [64, 128], BM: int in [64, 128] = 64,
                    BN: int in [64] = 64, NW: int in [4, 8] = 4>
    (Q: T[B, H, S, D], K: T[B, H, SK, D], V: T[B, H, SK, D], scale: f32, O: T[B, H, S, D])
    implements attention_causal
    // A warp owns 16 or 32 query rows; D = 128 with 32 rows would hold O (128
    // registers) and Q (64) beside S: more than a thread's 255.
    where HD == D, BM / NW >= 16, BM / NW <= 32, HD * (BM / NW) <= 2048
    grid(cdiv(S, BM), H, B) block(32 * NW)
{
  let WR = BM / NW;                              // query rows per warp
  let CT = 8 * 32 * NW;                          // elements a round of 16-byte copies moves
  shared sq: T[BM, HD + 8];                      // Q, later the output tile
  shared sk: T[2, BN, HD + 8];                   // K, two stages
  shared sv: T[2, BN, HD + 8];                   // V, two stages
  register q: T[WR, HD] by repeat(WR / 16, HD / 16) * mma_a;
  let kmap = repeat(1, BN / 8) * mma_b;
  register kb: T[16, BN] by kmap;                // 16 rows of K^T
  register vb: T[16, HD] by repeat(1, HD / 8) * mma_b;
  // S's C fragments spelled as pairs (16 x 16), so that P's A fragments
  // (mma_a = repeat(1, 2) * mma_c) index them in one loop.
  let smap = repeat(WR / 16, BN / 16) * repeat(1, 2) * mma_c;
  let omap = repeat(WR / 16, HD / 8) * mma_c;
  register s: f32[WR, BN] by smap;
  register p: T[WR, BN] by repeat(WR / 16, BN / 16) * mma_a;
  register o: f32[WR, HD] by omap;
  // Row statistics: lane 4g + t keeps those of its rows g, g + 8, g + 16, ...
  // (once per lane of the quad: rmap's column is t), the running maximum m
  // (scaled, in log2 units) and the running sum l of its own columns.
  let rmap = repeat(WR / 16, 1) * repeat(2, 1) * spatial(8, 4);
  register mrow: f32[WR, 4] by rmap;
  register lrow: f32[WR, 4] by rmap;
  register alpha: f32[WR, 4] by rmap;            // exp2(m_old - m_new), the rescaling of O and l
  let bb = blockIdx.z;
  let hh = blockIdx.y;
  let q0 = blockIdx.x * BM;
  let wm = warp_id * WR;
  let c2 = scale * 1.4426950408889634;          // exp(x * scale) = exp2(x * c2)
  // The last key any row of the block sees is q0 + BM - 1 + SK - S: the key
  // blocks above the diagonal are skipped (none at all for rows that see no key).
  let kend = min(SK, q0 + BM + SK - S);
  let nb = kend > 0 ? cdiv(kend, BN) : 0;

  // Q, K and V of key block 0: 16-byte zero-filling copies, a row's
  // chunks by neighbouring lanes.
  for (i, c) in repeat(BM * HD / CT, 1) * spatial(CT / HD, HD / 8) on threadIdx.x {
    let gi = q0 + i;
    cp_async(sq[i, c * 8], Q[bb, hh, gi, c * 8], 16, gi < S);
  }
  for (j, c) in repeat(BN * HD / CT, 1) * spatial(CT / HD, HD / 8) on threadIdx.x {
    cp_async(sk[0][j, c * 8], K[bb, hh, j, c * 8], 16, j < SK);
    cp_async(sv[0][j, c * 8], V[bb, hh, j, c * 8], 16, j < SK);
  }
  cp_async_commit();
  for (i, j) in omap on lane_id { o[i, j] = 0.0; }
  for (r, t) in rmap on lane_id {
    mrow[r, t] = -inf;
    lrow[r, t] = 0.0;
  }
  cp_async_wait(0);
  sync;
  ldmatrix(q, sq, wm, 0);

  for n in range(nb) {
    let st = n % 2;
    let n0 = n * BN;
    if (n > 0) {
      cp_async_wait(0);   // K and V of block n have landed (this thread's copies)
      sync;               // ... everyone's; and stage 1 - st is no longer read
    }
    if (n + 1 < nb) {
      let n1 = n0 + BN;
      for (j, c) in repeat(BN * HD / CT, 1) * spatial(CT / HD, HD / 8) on threadIdx.x {
        let gj = n1 + j;
        cp_async(sk[1 - st][j, c * 8], K[bb, hh, gj, c * 8], 16, gj < SK);
        cp_async(sv[1 - st][j, c * 8], V[bb, hh, gj, c * 8], 16, gj < SK);
      }
      cp_async_commit();
    }
    // S = Q K^T, 16 rows of K^T at a time. A lane's B registers of K^T are
    // two neighbouring elements of a row of K (kb[d, j] = K[j, d] with d
    // even, then d + 1): 4-byte loads from the row-major tile, free of bank
    // conflicts (rows are 4 banks apart), where ldmatrix would need K^T in
    // shared memory.
    for (i, j) in smap on lane_id { s[i, j] = 0.0; }
    for kk in unroll(HD / 16) {
      for (d, j) in kmap on lane_id { kb[d, j] = sk[st][j, kk * 16 + d]; }
      mma(s, tile(q, WR, 16, 0, kk), kb, s);
    }
    // Scale to log2 units; keys past SK or above the diagonal score -inf.
    // Only the blocks that cross the diagonal of this warp's rows (or SK) test.
    let dq = q0 + wm + SK - S;                // row i of this warp sees keys <= dq + i
    if (n0 + BN <= SK && n0 + BN - 1 <= dq) {
      for (i, j) in smap on lane_id { s[i, j] *= c2; }
    } else {
      for (i, j) in smap on lane_id {
        let kj = n0 + j;
        s[i, j] = kj < SK && kj <= dq + i ? s[i, j] * c2 : -inf;
      }
    }
    // Online softmax, row by row of this lane, in three passes so that each
    // unrolls (the conditions i == r are constants once unrolled: both are
    // the lane's row g plus a constant).
    for (r, t) in rmap on lane_id {
      var mx: f32 = mrow[r, t];
      for (i, j) in smap on lane_id {
        if (i == r) { mx = max(mx, s[i, j]); }
      }
      mx = max(mx, shfl_xor(mx, 1));
      mx = max(mx, shfl_xor(mx, 2));
      let mu = mx == -inf ? 0.0 : mx;          // a row that has seen no key yet
      alpha[r, t] = exp2(mrow[r, t] - mu);
      mrow[r, t] = mx;
    }
    for (r, t) in rmap on lane_id {
      let mu = mrow[r, t] == -inf ? 0.0 : mrow[r, t];
      var ls: f32 = 0.0;
      for (i, j) in smap on lane_id {
        if (i == r) {
          s[i, j] = exp2(s[i, j] - mu);
          ls += s[i, j];
        }
      }
      lrow[r, t] = lrow[r, t] * alpha[r, t] + ls;
    }
    for (r, t) in rmap on lane_id {
      for (i, j) in omap on lane_id {
        if (i == r) { o[i, j] *= alpha[r, t]; }
      }
    }
    // P in T: the C fragments of two neighbouring 16 x 8 tiles are, lane by
    // lane and register by register, the A fragment of the 16 x 16 tile.
    for (i, j) in repeat(WR / 16, BN / 16) * mma_a on lane_id { p[i, j] = T(s[i, j]); }
    // O += P V, 16 keys at a time.
    for kk in unroll(BN / 16) {
      ldmatrix(vb, sv[st], kk * 16, 0);
      mma(o, tile(p, WR, 16, 0, kk), vb, o);
    }
  }

  // O / l: the row sums over the 4 lanes of a row, then the tile through
  // this warp's rows of sq (which only this warp reads) as 16-byte rows.
  // (The barrier orders the rewrite of sq after the ldmatrix of Q by the
  // other lanes when there was no key block to separate them.)
  sync;
  for (r, t) in rmap on lane_id {
    var lt = lrow[r, t];
    lt += shfl_xor(lt, 1);
    lt += shfl_xor(lt, 2);
    let inv = lt > 0.0 ? 1.0 / lt : 0.0;     // 0 for a row that saw no key
    for (i, j) in omap on lane_id {
      if (i == r) { sq[wm + i, j] = T(o[i, j] * inv); }
    }
  }
  sync;
  for (i, c) in repeat(WR * HD / 256, 1) * spatial(256 / HD, HD / 8) on lane_id {
    let gi = q0 + wm + i;
    // (The guard inside the loop lets the compiler split off a 16-byte store.)
    for e in unroll(8) {
      if (gi < S) { O[bb, hh, gi, c * 8 + e] = sq[wm + i, c * 8 + e]; }
    }
  }
}
