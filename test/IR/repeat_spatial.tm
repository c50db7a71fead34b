// repeat(2, 2) * spatial(4, 8): the block repeats over the domain; worker 5
// of the sketch owns (0,5) (0,13) (4,5) (4,13).
// RUN: %tmc %s --emit=ir --print-after=lower-task-mappings -o /dev/null 2>&1 | FileCheck %s
// RUN: %tmc %s --emit=ir | FileCheck %s --check-prefix=FINAL

kernel k(Y: i32[8, 16]) block(32) {
  for (i, j) in repeat(2, 2) * spatial(4, 8) on threadIdx.x {
    Y[i, j] = threadIdx.x;
  }
}
// CHECK: let i: i32 = ((r0 * 4) + (w / 8))
// CHECK: let j: i32 = ((r1 * 8) + (w % 8))
// The block covers the mapping: no guard after simplify; four unrolled copies.
// FINAL-NOT: if (w < 32)
// FINAL-COUNT-4: Y[
