// Row reduction with warp shuffles: one warp per row. Each lane strides
// over the row, then the 32 partial sums are combined with a butterfly of
// shfl_xor, after which every lane holds the total.

import std.nn;  // op row_sum

kernel row_sum_warp(X: f32[R, C], Y: f32[R])
    implements row_sum
    grid(cdiv(R, 8)) block(256)
{
  let row = blockIdx.x * 8 + warp_id;
  if (row < R) {
    var acc: f32 = 0.0;
    for c in range(lane_id, C, 32) {
      acc += X[row, c];
    }
    for s in unroll(5) {
      acc += shfl_xor(acc, 16 >> s);
    }
    if (lane_id == 0) {
      Y[row] = acc;
    }
  }
}
