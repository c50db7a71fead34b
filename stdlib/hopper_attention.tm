// std.hopper_attention: scaled dot-product attention, forward, for Hopper
// (--arch=sm_90a), in the manner of FlashAttention-3: Q, K and V reach the
// kernel as TMA tensor maps (boxes of 64 x 64 with the 128-byte swizzle), a
// producer thread loads Q once and K and V block by block into a
// KV_STAGES-deep ring ordered by `full` and `empty` mbarriers, and two
// consumer warpgroups, 64 query rows each, compute S = Q K^T with wgmma_t
// (K as stored, K-major), the softmax online in registers (running row
// maximum and sum in f32, O rescaled when the maximum grows), and O += P V
// with wgmma, P staying in registers: S is declared by repeat(1, 4) *
// wgmma_a (std.wgmma; the same threads and registers as the accumulator
// layout repeat(1, 8) * wgmma_c), so P, the A operand of the second wgmma,
// is S converted element by element in one loop. No score matrix reaches
// global or shared memory. HD (the head dimension) is 64 or 128: the
// candidate with HD == D serves a launch. Not yet: the two warpgroups'
// GEMMs and softmax overlapped (FA3's ping-pong), causal masking.
//
// A module of its own: it imports std.attention (the op), whose kernels
// `-D` reaches too, so its parameters are named to suit both (T, HD) or
// its own (KV_STAGES).

import std.attention;  // op attention
import std.wgmma;      // wgmma_c

kernel attention_tma<T: type in [f16, bf16] = f16, HD: int in [64, 128] = 64, KV_STAGES: int in [2, 3, 4] = 2>(
    Q: T[B, H, S, D] by tma, K: T[B, H, SK, D] by tma, V: T[B, H, SK, D] by tma, scale: f32, O: T[B, H, S, D])
    implements attention
    // The stages and Q fit in shared memory.
    where HD == D, KV_STAGES * 4 * 64 * HD + 2 * 128 * HD <= 220 * 1024
    grid(cdiv(S, 128), H, B) block(384)
{
  shared sq: T[2, HD / 64, 64, 64] swizzle(3, 3, 3);
  shared sk: T[KV_STAGES, HD / 64, 64, 64] swizzle(3, 3, 3);
  shared sv: T[KV_STAGES, HD / 64, 64, 64] swizzle(3, 3, 3);
  shared qbar: mbarrier[1];
  shared full: mbarrier[KV_STAGES];
  shared empty: mbarrier[KV_STAGES];
  if (threadIdx.x < KV_STAGES) {
    mbarrier_init(full[threadIdx.x], 1);
    mbarrier_init(empty[threadIdx.x], 256);
  }
  if (threadIdx.x == 0) { mbarrier_init(qbar[0], 1); }
  sync;
  let bb = blockIdx.z;
  let hh = blockIdx.y;
  let q0 = blockIdx.x * 128;
  let nb = cdiv(SK, 64);
  let wg = threadIdx.x / 128;
  if (wg == 0) {
    // The producer: Q once, then K and V of each key block into the ring.
    if (threadIdx.x == 0) {
      mbarrier_arrive_expect_tx(qbar[0], 128 * HD * 2);
      for (g, dh) in repeat(2, HD / 64) on 0 { tma_load(sq[g, dh], Q[bb, hh, q0 + g * 64, dh * 64], qbar[0]); }
      for n in range(nb) {
        let st = n % KV_STAGES;
        let use = n / KV_STAGES;
        if (use > 0) { mbarrier_wait(empty[st], (use - 1) % 2); }
        mbarrier_arrive_expect_tx(full[st], 2 * 64 * HD * 2);
        for dh in range(HD / 64) {
          tma_load(sk[st, dh], K[bb, hh, n * 64, dh * 64], full[st]);
          tma_load(sv[st, dh], V[bb, hh, n * 64, dh * 64], full[st]);
        }
      }
    }
  } else {
    // The consumers: warpgroup 1 + half owns query rows q0 + 64 * half ...
    let half = wg - 1;
    let t = threadIdx.x % 128;
    let smap = repeat(1, 4) * wgmma_a;  // S as wgmma's accumulator, P as its A operand
    let omap = repeat(1, HD / 8) * wgmma_c;
    // Row statistics: thread 32w + 4g + c keeps those of its rows
    // 16w + g and 16w + g + 8 (once per thread of the quad: rmap's column is c).
    let rmap = spatial(4, 1) * repeat(2, 1) * spatial(8, 4);
    register s: f32[64, 64] by smap;
    register p: T[64, 64] by smap;
    register o: f32[64, HD] by omap;
    register mrow: f32[64, 4] by rmap;
    register lrow: f32[64, 4] by rmap;
    register alpha: f32[64, 4] by rmap;
    let c2 = scale * 1.4426950408889634;  // exp(x * scale) = exp2(x * c2)
    for (i, j) in omap on t { o[i, j] = 0.0; }
    for (r, c) in rmap on t {
      mrow[r, c] = -inf;
      lrow[r, c] = 0.0;
    }
    mbarrier_wait(qbar[0], 0);
    for n in range(nb) {
      let st = n % KV_STAGES;
      let n0 = n * 64;
      mbarrier_wait(full[st], (n / KV_STAGES) % 2);  // K and V of block n have landed
      // S = Q K^T (HD / 64 steps of 64 along the head dimension).
      wgmma_fence();
      for dh in unroll(HD / 64) { wgmma_t(s, sq[half, dh], sk[st, dh], dh > 0); }
      wgmma_commit();
      wgmma_wait(0);
      // Scale to log2 units; keys past SK (in the last block) score -inf.
      if (n0 + 64 <= SK) {
        for (i, j) in smap on t { s[i, j] *= c2; }
      } else {
        for (i, j) in smap on t { s[i, j] = n0 + j < SK ? s[i, j] * c2 : -inf; }
      }
      // Online softmax, row by row of this thread (the quad's four threads
      // of a row combine by shuffles).
      for (r, c) in rmap on t {
        var mx: f32 = mrow[r, c];
        for (i, j) in smap on t {
          if (i == r) { mx = max(mx, s[i, j]); }
        }
        mx = max(mx, shfl_xor(mx, 1));
        mx = max(mx, shfl_xor(mx, 2));
        let mu = mx == -inf ? 0.0 : mx;  // a row that has seen no key yet
        alpha[r, c] = exp2(mrow[r, c] - mu);
        mrow[r, c] = mx;
      }
      for (r, c) in rmap on t {
        let mu = mrow[r, c] == -inf ? 0.0 : mrow[r, c];
        var ls: f32 = 0.0;
        for (i, j) in smap on t {
          if (i == r) {
            s[i, j] = exp2(s[i, j] - mu);
            ls += s[i, j];
          }
        }
        lrow[r, c] = lrow[r, c] * alpha[r, c] + ls;
      }
      for (r, c) in rmap on t {
        for (i, j) in omap on t {
          if (i == r) { o[i, j] *= alpha[r, c]; }
        }
      }
      // O += P V, P in T in registers.
      for (i, j) in smap on t { p[i, j] = T(s[i, j]); }
      wgmma_fence();
      wgmma(o, p, sv[st]);
      wgmma_commit();
      wgmma_wait(0);
      mbarrier_arrive(empty[st]);  // the stage may be refilled
    }
    // O / l, written by the threads that hold it.
    for (r, c) in rmap on t {
      var lt = lrow[r, c];
      lt += shfl_xor(lt, 1);
      lt += shfl_xor(lt, 2);
      let inv = lt > 0.0 ? 1.0 / lt : 0.0;  // 0 for a row that saw no key
      for (i, j) in omap on t {
        let gi = q0 + half * 64 + i;
        if (i == r && gi < S) { O[bb, hh, gi, j] = T(o[i, j] * inv); }
      }
    }
  }
}
