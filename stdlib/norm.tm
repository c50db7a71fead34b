// std.norm: softmax, layernorm and rmsnorm over the last axis, with
// kernels for f32, f16 and bf16 rows. Statistics are f32 for every input
// type. Three shapes of kernel, as Triton's tutorials have them:
//   *_warp:   a warp per row, the row in registers (C up to 1024);
//   *_block:  a block per row, the row in shared memory (C up to 16384:
//             the smallest listed capacity BC >= C is chosen at launch);
//   *_online: a block per row for any C, reading the row from global
//             memory twice (softmax: online max and sum in one pass).
// Each reads the input once where the row fits on chip.

import std.nn;  // op softmax

op layernorm<T>(X: T[R, C], g: T[C], b: T[C], eps: f32) -> (Y: T[R, C], mean: f32[R], rstd: f32[R]) {
  let m[r] = sum(c < C) f32(X[r, c]) / f32(C);
  let v[r] = sum(c < C) (f32(X[r, c]) - m[r]) * (f32(X[r, c]) - m[r]) / f32(C);
  let s[r] = rsqrt(v[r] + eps);
  Y[r, c] = (f32(X[r, c]) - m[r]) * s[r] * f32(g[c]) + f32(b[c]);
  mean[r] = m[r];
  rstd[r] = s[r];
}

op rmsnorm<T>(X: T[R, C], g: T[C], eps: f32) -> (Y: T[R, C], rstd: f32[R]) {
  let s[r] = rsqrt((sum(c < C) f32(X[r, c]) * f32(X[r, c])) / f32(C) + eps);
  Y[r, c] = f32(X[r, c]) * s[r] * f32(g[c]);
  rstd[r] = s[r];
}

// ------------------------------------------------------------ softmax

// A warp per row, four rows per block; each lane keeps BC / 32 elements of
// its row in registers (columns lane, lane + 32, ...).
kernel softmax_warp<T: type in [f32, f16, bf16], BC: int in [32, 64, 128, 256, 512, 1024]>(X: T[R, C], Y: T[R, C])
    implements softmax where BC >= C grid(cdiv(R, 4)) block(128)
{
  register v: f32[BC / 32];
  let r = blockIdx.x * 4 + warp_id;
  if (r < R) {
    var m: f32 = -inf;
    for i in unroll(BC / 32) {
      let c = i * 32 + lane_id;
      v[i] = c < C ? f32(X[r, c]) : -inf;
      m = max(m, v[i]);
    }
    for k in unroll(5) { m = max(m, shfl_xor(m, 1 << k)); }
    var s: f32 = 0.0;
    for i in unroll(BC / 32) {
      v[i] = exp(v[i] - m);
      s += v[i];
    }
    for k in unroll(5) { s += shfl_xor(s, 1 << k); }
    let inv = 1.0 / s;
    for i in unroll(BC / 32) {
      let c = i * 32 + lane_id;
      if (c < C) { Y[r, c] = T(v[i] * inv); }
    }
  }
}

// A block of 256 threads per row; the row (as f32) in shared memory.
kernel softmax_block<T: type in [f32, f16, bf16], BC: int in [2048, 4096, 8192, 16384]>(X: T[R, C], Y: T[R, C])
    implements softmax where BC >= C grid(R) block(256)
{
  shared row: f32[BC];
  shared red: f32[2, 8];
  let r = blockIdx.x;
  var m: f32 = -inf;
  for c in range(threadIdx.x, C, 256) {
    let x = f32(X[r, c]);
    row[c] = x;
    m = max(m, x);
  }
  // Block maximum: warps, then the 8 warp results.
  for k in unroll(5) { m = max(m, shfl_xor(m, 1 << k)); }
  if (lane_id == 0) { red[0, warp_id] = m; }
  sync;
  m = red[0, 0];
  for w in unroll(8) { m = max(m, red[0, w]); }
  var s: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) {
    let e = exp(row[c] - m);
    row[c] = e;
    s += e;
  }
  for k in unroll(5) { s += shfl_xor(s, 1 << k); }
  if (lane_id == 0) { red[1, warp_id] = s; }
  sync;
  s = 0.0;
  for w in unroll(8) { s += red[1, w]; }
  let inv = 1.0 / s;
  for c in range(threadIdx.x, C, 256) { Y[r, c] = T(row[c] * inv); }
}

// Any row length: each thread keeps a running maximum and a sum rescaled
// to it (online softmax), the block combines the pairs, and a second pass
// writes the result.
kernel softmax_online<T: type in [f32, f16, bf16]>(X: T[R, C], Y: T[R, C])
    implements softmax grid(R) block(256)
{
  shared red: f32[2, 8];
  let r = blockIdx.x;
  var m: f32 = -inf;
  var s: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) {
    let x = f32(X[r, c]);
    let m2 = max(m, x);
    s = s * exp(m - m2) + exp(x - m2);
    m = m2;
  }
  // Combine (m, s) pairs: s' = s * exp(m - M) + s2 * exp(m2 - M).
  for k in unroll(5) {
    let m2 = shfl_xor(m, 1 << k);
    let s2 = shfl_xor(s, 1 << k);
    let mm = max(m, m2);
    s = (m == -inf ? 0.0 : s * exp(m - mm)) + (m2 == -inf ? 0.0 : s2 * exp(m2 - mm));
    m = mm;
  }
  if (lane_id == 0) {
    red[0, warp_id] = m;
    red[1, warp_id] = s;
  }
  sync;
  m = red[0, 0];
  for w in unroll(8) { m = max(m, red[0, w]); }
  s = 0.0;
  for w in unroll(8) { s += red[0, w] == -inf ? 0.0 : red[1, w] * exp(red[0, w] - m); }
  let inv = 1.0 / s;
  for c in range(threadIdx.x, C, 256) { Y[r, c] = T(exp(f32(X[r, c]) - m) * inv); }
}

// ------------------------------------------------------------ layernorm

// A warp per row, the row in registers; two reductions (mean, then the
// centred sum of squares, which is exact where sum(x^2) - mean^2 cancels).
kernel layernorm_warp<T: type in [f32, f16, bf16], BC: int in [32, 64, 128, 256, 512, 1024]>(
    X: T[R, C], g: T[C], b: T[C], eps: f32, Y: T[R, C], mean: f32[R], rstd: f32[R])
    implements layernorm where BC >= C grid(cdiv(R, 4)) block(128)
{
  register v: f32[BC / 32];
  let r = blockIdx.x * 4 + warp_id;
  if (r < R) {
    var s: f32 = 0.0;
    for i in unroll(BC / 32) {
      let c = i * 32 + lane_id;
      v[i] = c < C ? f32(X[r, c]) : 0.0;
      s += v[i];
    }
    for k in unroll(5) { s += shfl_xor(s, 1 << k); }
    let mu = s / f32(C);
    var q: f32 = 0.0;
    for i in unroll(BC / 32) {
      let c = i * 32 + lane_id;
      let d = c < C ? v[i] - mu : 0.0;
      q += d * d;
    }
    for k in unroll(5) { q += shfl_xor(q, 1 << k); }
    let rs = rsqrt(q / f32(C) + eps);
    for i in unroll(BC / 32) {
      let c = i * 32 + lane_id;
      if (c < C) { Y[r, c] = T((v[i] - mu) * rs * f32(g[c]) + f32(b[c])); }
    }
    if (lane_id == 0) {
      mean[r] = mu;
      rstd[r] = rs;
    }
  }
}

// A block per row, the row in shared memory.
kernel layernorm_block<T: type in [f32, f16, bf16], BC: int in [2048, 4096, 8192, 16384]>(
    X: T[R, C], g: T[C], b: T[C], eps: f32, Y: T[R, C], mean: f32[R], rstd: f32[R])
    implements layernorm where BC >= C grid(R) block(256)
{
  shared row: f32[BC];
  shared red: f32[2, 8];
  let r = blockIdx.x;
  var s: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) {
    let x = f32(X[r, c]);
    row[c] = x;
    s += x;
  }
  for k in unroll(5) { s += shfl_xor(s, 1 << k); }
  if (lane_id == 0) { red[0, warp_id] = s; }
  sync;
  s = 0.0;
  for w in unroll(8) { s += red[0, w]; }
  let mu = s / f32(C);
  var q: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) {
    let d = row[c] - mu;
    q += d * d;
  }
  for k in unroll(5) { q += shfl_xor(q, 1 << k); }
  if (lane_id == 0) { red[1, warp_id] = q; }
  sync;
  q = 0.0;
  for w in unroll(8) { q += red[1, w]; }
  let rs = rsqrt(q / f32(C) + eps);
  for c in range(threadIdx.x, C, 256) { Y[r, c] = T((row[c] - mu) * rs * f32(g[c]) + f32(b[c])); }
  if (threadIdx.x == 0) {
    mean[r] = mu;
    rstd[r] = rs;
  }
}

// ------------------------------------------------------------ rmsnorm

// A warp per row, the row in registers.
kernel rmsnorm_warp<T: type in [f32, f16, bf16], BC: int in [32, 64, 128, 256, 512, 1024]>(
    X: T[R, C], g: T[C], eps: f32, Y: T[R, C], rstd: f32[R])
    implements rmsnorm where BC >= C grid(cdiv(R, 4)) block(128)
{
  register v: f32[BC / 32];
  let r = blockIdx.x * 4 + warp_id;
  if (r < R) {
    var q: f32 = 0.0;
    for i in unroll(BC / 32) {
      let c = i * 32 + lane_id;
      v[i] = c < C ? f32(X[r, c]) : 0.0;
      q += v[i] * v[i];
    }
    for k in unroll(5) { q += shfl_xor(q, 1 << k); }
    let rs = rsqrt(q / f32(C) + eps);
    for i in unroll(BC / 32) {
      let c = i * 32 + lane_id;
      if (c < C) { Y[r, c] = T(v[i] * rs * f32(g[c])); }
    }
    if (lane_id == 0) { rstd[r] = rs; }
  }
}

// A block per row for any C: the sum of squares, then a second read.
kernel rmsnorm_block<T: type in [f32, f16, bf16]>(X: T[R, C], g: T[C], eps: f32, Y: T[R, C], rstd: f32[R])
    implements rmsnorm grid(R) block(256)
{
  shared red: f32[8];
  let r = blockIdx.x;
  var q: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) {
    let x = f32(X[r, c]);
    q += x * x;
  }
  for k in unroll(5) { q += shfl_xor(q, 1 << k); }
  if (lane_id == 0) { red[warp_id] = q; }
  sync;
  q = 0.0;
  for w in unroll(8) { q += red[w]; }
  let rs = rsqrt(q / f32(C) + eps);
  for c in range(threadIdx.x, C, 256) { Y[r, c] = T(f32(X[r, c]) * rs * f32(g[c])); }
  if (threadIdx.x == 0) { rstd[r] = rs; }
}
