// std.reduce: reductions of f32, f16 and bf16 rows and columns, with f32
// results. Over the last axis: a warp per row (4 rows per block, for
// short rows) or a block of 256 per row (warp shuffles, then a shared tree
// of the 8 warp results). Over the first axis: a thread per kept column,
// so that each step of the loop over rows reads consecutive elements
// (coalesced).

op sum_rows<T>(X: T[R, C]) -> f32[R] { out[r] = sum(c < C) f32(X[r, c]); }
op max_rows<T>(X: T[R, C]) -> f32[R] { out[r] = max(c < C) f32(X[r, c]); }
op mean_rows<T>(X: T[R, C]) -> f32[R] { out[r] = (sum(c < C) f32(X[r, c])) / f32(C); }
op sum_cols<T>(X: T[R, C]) -> f32[C] { out[c] = sum(r < R) f32(X[r, c]); }
op max_cols<T>(X: T[R, C]) -> f32[C] { out[c] = max(r < R) f32(X[r, c]); }

// ------------------------------------------------------------ last axis

kernel sum_rows_warp<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements sum_rows grid(cdiv(R, 4)) block(128) {
  let r = blockIdx.x * 4 + warp_id;
  if (r < R) {
    var s: f32 = 0.0;
    for c in range(lane_id, C, 32) { s += f32(X[r, c]); }
    for k in unroll(5) { s += shfl_xor(s, 1 << k); }
    if (lane_id == 0) { Y[r] = s; }
  }
}

kernel max_rows_warp<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements max_rows grid(cdiv(R, 4)) block(128) {
  let r = blockIdx.x * 4 + warp_id;
  if (r < R) {
    var m: f32 = -inf;
    for c in range(lane_id, C, 32) { m = max(m, f32(X[r, c])); }
    for k in unroll(5) { m = max(m, shfl_xor(m, 1 << k)); }
    if (lane_id == 0) { Y[r] = m; }
  }
}

kernel mean_rows_warp<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements mean_rows grid(cdiv(R, 4)) block(128) {
  let r = blockIdx.x * 4 + warp_id;
  if (r < R) {
    var s: f32 = 0.0;
    for c in range(lane_id, C, 32) { s += f32(X[r, c]); }
    for k in unroll(5) { s += shfl_xor(s, 1 << k); }
    if (lane_id == 0) { Y[r] = s / f32(C); }
  }
}

kernel sum_rows_block<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements sum_rows grid(R) block(256) {
  shared red: f32[8];
  var s: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) { s += f32(X[blockIdx.x, c]); }
  for k in unroll(5) { s += shfl_xor(s, 1 << k); }
  if (lane_id == 0) { red[warp_id] = s; }
  sync;
  if (threadIdx.x == 0) {
    var t: f32 = 0.0;
    for w in unroll(8) { t += red[w]; }
    Y[blockIdx.x] = t;
  }
}

kernel max_rows_block<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements max_rows grid(R) block(256) {
  shared red: f32[8];
  var m: f32 = -inf;
  for c in range(threadIdx.x, C, 256) { m = max(m, f32(X[blockIdx.x, c])); }
  for k in unroll(5) { m = max(m, shfl_xor(m, 1 << k)); }
  if (lane_id == 0) { red[warp_id] = m; }
  sync;
  if (threadIdx.x == 0) {
    var t: f32 = -inf;
    for w in unroll(8) { t = max(t, red[w]); }
    Y[blockIdx.x] = t;
  }
}

// ------------------------------------------------------------ first axis

kernel sum_cols_threads<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[C]) implements sum_cols grid(cdiv(C, 256)) block(256) {
  let c = blockIdx.x * 256 + threadIdx.x;
  if (c < C) {
    var s: f32 = 0.0;
    for r in range(R) { s += f32(X[r, c]); }
    Y[c] = s;
  }
}

kernel max_cols_threads<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[C]) implements max_cols grid(cdiv(C, 256)) block(256) {
  let c = blockIdx.x * 256 + threadIdx.x;
  if (c < C) {
    var m: f32 = -inf;
    for r in range(R) { m = max(m, f32(X[r, c])); }
    Y[c] = m;
  }
}
