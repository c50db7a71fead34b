// A planted fault: the shared-memory transpose without its `sync`. Threads
// read tile elements that other threads write in the same barrier interval.
// RUN: not %tmc run %s --shape R=64,C=64 --check-races 2>&1 | FileCheck %s

op transpose(X: f32[R, C]) -> f32[C, R] { out[i, j] = X[j, i]; }

kernel transpose_racy(X: f32[R, C], Y: f32[C, R])
    implements transpose
    grid(cdiv(C, 32), cdiv(R, 32)) block(256)
{
  shared tile: f32[32, 33];
  let m = repeat(4, 1) * spatial(8, 32);
  for (i, j) in m on threadIdx.x {
    let r = blockIdx.y * 32 + i;
    let c = blockIdx.x * 32 + j;
    if (r < R && c < C) {
      tile[i, j] = X[r, c];
    }
  }
  // sync;  <- missing
  for (i, j) in m on threadIdx.x {
    let r = blockIdx.x * 32 + i;
    let c = blockIdx.y * 32 + j;
    if (r < C && c < R) {
      Y[r, c] = tile[j, i];
    }
  }
}
// CHECK: fault_missing_sync.tm:17:7: error: data race on 'tile' element {{[0-9]+}} in kernel 'transpose_racy': a write by thread {{[0-9]+}} and a read by thread {{[0-9]+}} of block (0, 0, 0) between the same barriers
// CHECK-NEXT: tile[i, j] = X[r, c];
// CHECK: fault_missing_sync.tm:25:17: note: the read by thread
// CHECK: fault_missing_sync.tm:25:17: error: data race on 'tile'
// CHECK: 2 errors generated.
