// The register layouts of tensor-core fragments, as task mappings over the
// 32 lanes of a warp (PTX ISA, "Matrix Fragments for mma.m16n8k16 with
// floating point type"). A fragment tensor must be distributed by a
// mapping that assigns every lane the same tasks, in the same (register)
// order, as these.
#pragma once

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

/// True when `m` gives every worker the same ordered tasks as `layout`
/// (which can be written as a different composition).
bool SameAssignment(const TaskMapping& m, const TaskMapping& layout);

}  // namespace tmc
