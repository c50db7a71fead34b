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

// wgmma's A operand in registers (m64k16, f16 or bf16): warp w holds rows
// 16w .. 16w + 15 as mma.m16n8k16's A fragment. An A of 64 * R rows and K
// columns is `repeat(R, K / 16) * wgmma_a`. Since mma_a = repeat(1, 2) *
// mma_c, an accumulator declared `by repeat(1, N / 16) * wgmma_a` (the
// same threads and registers as repeat(1, N / 8) * wgmma_c) can be turned
// into the A operand of a following wgmma in one loop over that mapping,
// as attention does with P = softmax(S).
let wgmma_a = spatial(4, 1) * mma_a;
