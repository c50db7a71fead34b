// std.reduce: reductions of f32, f16 and bf16 tensors, with f32 results.
// Over the last axis: a warp per row (4 rows per block, for short rows) or
// a block of 256 per row (warp shuffles, then a shared tree of the 8 warp
// results). Over the first axis: a thread per kept column, so that each
// step of the loop over rows reads consecutive elements (coalesced). Over
// the middle axis of X[A, R, B], which is any axis of any tensor viewed as
// (the axes before it, the axis, the axes after it): 8 warps split the
// reduced axis, each lane keeps one of 32 consecutive kept elements, and a
// shared tree adds the 8 partial results.

op sum_rows<T>(X: T[R, C]) -> f32[R] { out[r] = sum(c < C) f32(X[r, c]); }
op max_rows<T>(X: T[R, C]) -> f32[R] { out[r] = max(c < C) f32(X[r, c]); }
op min_rows<T>(X: T[R, C]) -> f32[R] { out[r] = min(c < C) f32(X[r, c]); }
op mean_rows<T>(X: T[R, C]) -> f32[R] { out[r] = (sum(c < C) f32(X[r, c])) / f32(C); }
op sum_cols<T>(X: T[R, C]) -> f32[C] { out[c] = sum(r < R) f32(X[r, c]); }
op max_cols<T>(X: T[R, C]) -> f32[C] { out[c] = max(r < R) f32(X[r, c]); }
op sum_mid<T>(X: T[A, R, B]) -> f32[A, B] { out[a, b] = sum(r < R) f32(X[a, r, b]); }
op max_mid<T>(X: T[A, R, B]) -> f32[A, B] { out[a, b] = max(r < R) f32(X[a, r, b]); }
op min_mid<T>(X: T[A, R, B]) -> f32[A, B] { out[a, b] = min(r < R) f32(X[a, r, b]); }
op mean_mid<T>(X: T[A, R, B]) -> f32[A, B] { out[a, b] = (sum(r < R) f32(X[a, r, b])) / f32(R); }

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

kernel min_rows_warp<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements min_rows grid(cdiv(R, 4)) block(128) {
  let r = blockIdx.x * 4 + warp_id;
  if (r < R) {
    var m: f32 = inf;
    for c in range(lane_id, C, 32) { m = min(m, f32(X[r, c])); }
    for k in unroll(5) { m = min(m, shfl_xor(m, 1 << k)); }
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

kernel min_rows_block<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements min_rows grid(R) block(256) {
  shared red: f32[8];
  var m: f32 = inf;
  for c in range(threadIdx.x, C, 256) { m = min(m, f32(X[blockIdx.x, c])); }
  for k in unroll(5) { m = min(m, shfl_xor(m, 1 << k)); }
  if (lane_id == 0) { red[warp_id] = m; }
  sync;
  if (threadIdx.x == 0) {
    var t: f32 = inf;
    for w in unroll(8) { t = min(t, red[w]); }
    Y[blockIdx.x] = t;
  }
}

kernel mean_rows_block<T: type in [f32, f16, bf16]>(X: T[R, C], Y: f32[R]) implements mean_rows grid(R) block(256) {
  shared red: f32[8];
  var s: f32 = 0.0;
  for c in range(threadIdx.x, C, 256) { s += f32(X[blockIdx.x, c]); }
  for k in unroll(5) { s += shfl_xor(s, 1 << k); }
  if (lane_id == 0) { red[warp_id] = s; }
  sync;
  if (threadIdx.x == 0) {
    var t: f32 = 0.0;
    for w in unroll(8) { t += red[w]; }
    Y[blockIdx.x] = t / f32(C);
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

// ------------------------------------------------------------ middle axis
// The grid is one-dimensional (A * cdiv(B, 32) blocks) so that A may
// exceed the 65535 blocks of a grid's y dimension.

kernel sum_mid_tree<T: type in [f32, f16, bf16]>(X: T[A, R, B], Y: f32[A, B])
    implements sum_mid grid(A * cdiv(B, 32)) block(256)
{
  shared part: f32[8, 32];  // a row per warp: both phases are conflict-free
  let a = blockIdx.x / cdiv(B, 32);
  let b = (blockIdx.x % cdiv(B, 32)) * 32 + lane_id;
  var s: f32 = 0.0;
  if (b < B) { for r in range(warp_id, R, 8) { s += f32(X[a, r, b]); } }
  part[warp_id, lane_id] = s;
  sync;
  if (warp_id == 0 && b < B) {
    var t: f32 = 0.0;
    for w in unroll(8) { t += part[w, lane_id]; }
    Y[a, b] = t;
  }
}

kernel mean_mid_tree<T: type in [f32, f16, bf16]>(X: T[A, R, B], Y: f32[A, B])
    implements mean_mid grid(A * cdiv(B, 32)) block(256)
{
  shared part: f32[8, 32];
  let a = blockIdx.x / cdiv(B, 32);
  let b = (blockIdx.x % cdiv(B, 32)) * 32 + lane_id;
  var s: f32 = 0.0;
  if (b < B) { for r in range(warp_id, R, 8) { s += f32(X[a, r, b]); } }
  part[warp_id, lane_id] = s;
  sync;
  if (warp_id == 0 && b < B) {
    var t: f32 = 0.0;
    for w in unroll(8) { t += part[w, lane_id]; }
    Y[a, b] = t / f32(R);
  }
}

kernel max_mid_tree<T: type in [f32, f16, bf16]>(X: T[A, R, B], Y: f32[A, B])
    implements max_mid grid(A * cdiv(B, 32)) block(256)
{
  shared part: f32[8, 32];
  let a = blockIdx.x / cdiv(B, 32);
  let b = (blockIdx.x % cdiv(B, 32)) * 32 + lane_id;
  var m: f32 = -inf;
  if (b < B) { for r in range(warp_id, R, 8) { m = max(m, f32(X[a, r, b])); } }
  part[warp_id, lane_id] = m;
  sync;
  if (warp_id == 0 && b < B) {
    var t: f32 = -inf;
    for w in unroll(8) { t = max(t, part[w, lane_id]); }
    Y[a, b] = t;
  }
}

kernel min_mid_tree<T: type in [f32, f16, bf16]>(X: T[A, R, B], Y: f32[A, B])
    implements min_mid grid(A * cdiv(B, 32)) block(256)
{
  shared part: f32[8, 32];
  let a = blockIdx.x / cdiv(B, 32);
  let b = (blockIdx.x % cdiv(B, 32)) * 32 + lane_id;
  var m: f32 = inf;
  if (b < B) { for r in range(warp_id, R, 8) { m = min(m, f32(X[a, r, b])); } }
  part[warp_id, lane_id] = m;
  sync;
  if (warp_id == 0 && b < B) {
    var t: f32 = inf;
    for w in unroll(8) { t = min(t, part[w, lane_id]); }
    Y[a, b] = t;
  }
}
