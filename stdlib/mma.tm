// std.mma: the register layouts of tensor-core fragments, as task mappings
// over the 32 lanes of a warp (PTX ISA, mma.m16n8k16 with f16 inputs and
// f32 accumulators). Declare fragments with them:
//   register a: f16[16, 16] by mma_a;
//   register b: f16[16, 8] by mma_b;
//   register c: f32[16, 8] by mma_c;
// and index them inside `for (i, j) in mma_c on lane_id { ... }`.

// A, 16 x 16 row-major: lane 4g + t holds rows g and g + 8, columns 2t, 2t + 1
// and 2t + 8, 2t + 9, in register order a0..a7.
let mma_a = repeat(1, 2) * repeat(2, 1) * spatial(8, 4) * repeat(1, 2);

// B, 16 x 8 (K x N): lane 4g + t holds rows 2t, 2t + 1, 2t + 8, 2t + 9 of column g.
let mma_b = repeat(2, 1) * col_spatial(4, 8) * repeat(2, 1);

// C and D, 16 x 8 f32: lane 4g + t holds rows g and g + 8, columns 2t and 2t + 1.
let mma_c = repeat(2, 1) * spatial(8, 4) * repeat(1, 2);
