// The register layouts of tensor-core fragments, as task mappings over the
// 32 lanes of a warp (PTX ISA, "Matrix Fragments for mma.m16n8k16 with
// floating point type"). A fragment tensor must be distributed by a
// mapping that assigns every lane the same tasks, in the same (register)
// order, as these.
#pragma once

#include <optional>
#include <vector>

#include "support/task_mapping.h"

namespace tmc {

/// A (16 x 16, row-major, f16/bf16): lane l = 4g + t holds a0..a7 at
/// (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1), then the same 8 columns on:
/// repeat(1, 2) * repeat(2, 1) * spatial(8, 4) * repeat(1, 2).
TaskMapping MmaM16N8K16A();
/// B (16 x 8, K x N, "col"): b0..b3 at (2t, g), (2t+1, g), (2t+8, g),
/// (2t+9, g): repeat(2, 1) * col_spatial(4, 8) * repeat(2, 1).
TaskMapping MmaM16N8K16B();
/// C and D (16 x 8, f32): c0..c3 at (g, 2t), (g, 2t+1), (g+8, 2t),
/// (g+8, 2t+1): repeat(2, 1) * spatial(8, 4) * repeat(1, 2).
TaskMapping MmaM16N8K16C();

/// The accumulator D of wgmma.mma_async m64nNk16 (f32), over the 128
/// threads of a warpgroup (PTX ISA, "Register Fragments ... for
/// wgmma.m64nNk16"): warp w holds rows 16w .. 16w + 15 as the C fragment
/// of mma.m16n8k16 repeated over the N / 8 column blocks, block by block:
/// repeat(1, N / 8) * spatial(4, 1) * mma_c. `n` is 8 .. 256, a multiple of 8.
TaskMapping WgmmaD(int64_t n);
/// wgmma's A fragment in registers (m64k16, f16/bf16): warp w of the
/// warpgroup holds rows 16w .. 16w + 15 as mma.m16n8k16's A fragment
/// (std.wgmma's wgmma_a = spatial(4, 1) * mma_a).
TaskMapping WgmmaA();

/// True when `m` gives every worker the same ordered tasks as `layout`
/// (which can be written as a different composition).
bool SameAssignment(const TaskMapping& m, const TaskMapping& layout);

/// One hardware fragment inside a larger register tensor (a fragment tile):
/// its top-left element and the first of its consecutive registers.
struct FragmentPiece {
  int64_t row = 0, col = 0;
  int64_t reg = 0;
  bool trans = false;  // ldmatrix pieces: the transposed 8x8 layout
  friend bool operator==(const FragmentPiece&, const FragmentPiece&) = default;
};

/// Splits the tensor distributed by `m` (rank 2, 32 workers) into copies of
/// the fragment `layout`: every run of layout-many registers of every lane
/// must hold exactly one copy, shifted by a common origin, in the
/// hardware's register order. Pieces come in register order; nullopt when
/// `m` is not such a tiling (`repeat(4, 2) * mma_c` is: 8 C fragments).
std::optional<std::vector<FragmentPiece>> SplitIntoFragments(const TaskMapping& m, const TaskMapping& layout);

/// The 8x8 matrices of ldmatrix (PTX ISA, "ldmatrix"): lane 4g + t holds
/// (g, 2t), (g, 2t + 1), or with .trans (2t, g), (2t + 1, g).
TaskMapping LdMatrixLayout(bool trans);
/// Splits the tensor distributed by `m` into 8x8 ldmatrix matrices, each
/// plain or transposed (two consecutive registers per lane per matrix).
std::optional<std::vector<FragmentPiece>> SplitIntoLdMatrices(const TaskMapping& m);

/// The pieces inside rows [row, row + rows) and columns [col, col + cols),
/// when they tile that region exactly (`piece_rows` x `piece_cols` each);
/// nullopt otherwise.
std::optional<std::vector<FragmentPiece>> PiecesInRegion(const std::vector<FragmentPiece>& pieces, int64_t piece_rows,
                                                         int64_t piece_cols, int64_t row, int64_t col, int64_t rows,
                                                         int64_t cols);

/// The regions of a fragment tile: for region (i, j) of shape rows x cols
/// of a tensor of shape tensor_rows x tensor_cols split into `pieces`, the
/// pieces inside it, with origins relative to the region and registers
/// relative to region (0, 0); region (i, j) adds i * row_stride + j *
/// col_stride to each register. nullopt unless every region is tiled the
/// same way (which is what lets `tile(acc, 16, 8, i, j)` take a run-time i).
struct RegionPieces {
  std::vector<FragmentPiece> pieces;
  int64_t row_stride = 0, col_stride = 0;
};
std::optional<RegionPieces> UniformRegions(const std::vector<FragmentPiece>& pieces, int64_t piece_rows,
                                           int64_t piece_cols, int64_t tensor_rows, int64_t tensor_cols, int64_t rows,
                                           int64_t cols);

}  // namespace tmc
