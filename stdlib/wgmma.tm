// std.wgmma: the accumulator layout of Hopper's warpgroup MMA
// (wgmma.mma_async m64nNk16, f32 accumulate, sm_90a), as a task mapping
// over the 128 threads of a warpgroup. Warp w of the warpgroup holds rows
// 16w .. 16w + 15 of each 64-row block, laid out as the C fragment of
// mma.m16n8k16 (std.mma) repeated over the columns. Declare an accumulator
// of R x 64 rows and N columns with
//   register acc: f32[64 * R, N] by repeat(R, N / 8) * wgmma_c;
// and index it inside `for (i, j) in repeat(R, N / 8) * wgmma_c on threadIdx.x % 128`.
import std.mma;

// m64n8: warp w, lane 4g + t holds (16w + g, 2t), (16w + g, 2t + 1),
// (16w + g + 8, 2t), (16w + g + 8, 2t + 1).
let wgmma_c = spatial(4, 1) * mma_c;
