// Bounds are checked per dimension, not per flat buffer: an index past the
// end of its own dimension is a fault even when the flat offset still lies
// inside the tensor (it would read the next row). The caret is on the index.
// RUN: not %tmc run %s --kernel shift_global --shape R=5,C=40 --check-bounds 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: not %tmc run %s --kernel shift_shared --shape R=16,C=32 --check-bounds 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not %tmc run %s --kernel window_register --shape R=16,C=32 --check-bounds 2>&1 | FileCheck %s --check-prefix=REGISTER
// RUN: not %tmc run %s --kernel negative_3d --shape B=2,R=3,C=4 --check-bounds 2>&1 | FileCheck %s --check-prefix=NEG3D
// Without --check-bounds the same kernel runs (and reads the neighbour row).
// RUN: not %tmc run %s --kernel shift_global --shape R=5,C=40 2>&1 | FileCheck %s --check-prefix=UNCHECKED

op copy2(X: f32[R, C]) -> f32[R, C] { out[r, c] = X[r, c]; }
op copy3(X: f32[B, R, C]) -> f32[B, R, C] { out[b, r, c] = X[b, r, c]; }

kernel shift_global(X: f32[R, C], Y: f32[R, C]) implements copy2 grid(cdiv(C, 32), cdiv(R, 8)) block(32, 8) {
  let r = blockIdx.y * 8 + threadIdx.y;
  let c = blockIdx.x * 32 + threadIdx.x;
  if (r < R && c < C) {
    Y[r, c] = X[r, c + 1];
  }
}
// GLOBAL: fault_bounds_per_dim.tm:[[@LINE-3]]:20: error: out-of-bounds read of 'X' in kernel 'shift_global': X[0, 40]: index 40 of dimension 1 is outside [0, 40) (thread 7 of block (1, 0, 0); 5 such accesses)
// GLOBAL-NEXT: Y[r, c] = X[r, c + 1];
// GLOBAL-NEXT: {{^ *}}^~~~~{{$}}
// GLOBAL: 1 error generated.
// UNCHECKED: result: {{ *}}FAIL

kernel shift_shared(X: f32[R, C], Y: f32[R, C]) implements copy2 grid(cdiv(C, 16), cdiv(R, 16)) block(16, 16) {
  shared tile: f32[16, 16];
  let r = blockIdx.y * 16 + threadIdx.y;
  let c = blockIdx.x * 16 + threadIdx.x;
  if (r < R && c < C) {
    tile[threadIdx.y, threadIdx.x] = X[r, c];
  }
  sync;
  if (r < R && c < C) {
    Y[r, c] = tile[threadIdx.y, threadIdx.x + 1];
  }
}
// SHARED: fault_bounds_per_dim.tm:[[@LINE-3]]:33: error: out-of-bounds read of 'tile' in kernel 'shift_shared': tile[0, 16]: index 16 of dimension 1 is outside [0, 16) (thread 15 of block (0, 0, 0); 32 such accesses)

kernel window_register(X: f32[R, C], Y: f32[R, C]) implements copy2 grid(cdiv(C, 32), R) block(32) {
  register w: f32[2, 3];
  let c = blockIdx.x * 32 + threadIdx.x;
  if (c < C) {
    for i in unroll(2) {
      for j in unroll(3) {
        w[i, j] = X[blockIdx.y, c];
      }
    }
    Y[blockIdx.y, c] = w[threadIdx.x % 3, 0];
  }
}
// REGISTER: fault_bounds_per_dim.tm:[[@LINE-3]]:26: error: out-of-bounds read of 'w' in kernel 'window_register': w[2, 0]: index 2 of dimension 0 is outside [0, 2) (thread 2 of block (0, 0, 0)

kernel negative_3d(X: f32[B, R, C], Y: f32[B, R, C]) implements copy3 grid(B) block(4, 4) {
  if (threadIdx.x < R && threadIdx.y < C) {
    Y[blockIdx.x, threadIdx.x, threadIdx.y] = X[blockIdx.x, threadIdx.x - 1, threadIdx.y];
  }
}
// NEG3D: fault_bounds_per_dim.tm:[[@LINE-3]]:61: error: out-of-bounds read of 'X' in kernel 'negative_3d': X[0, -1, 0]: index -1 of dimension 1 is outside [0, 3) (thread 0 of block (0, 0, 0); 8 such accesses)
