// Launch sizes are computed exactly and checked against the hardware's
// limits, naming the formula: a grid of N * N * N blocks once overflowed,
// and grids past what the GPU allows were launched anyway.
// RUN: %tmc run %s --kernel cube --shape N=1000 | FileCheck %s --check-prefix=FITS
// RUN: not %tmc run %s --kernel cube --shape N=200000 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not %tmc run %s --kernel cube --shape N=3000000 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not %tmc run %s --kernel tall --shape N=70000 2>&1 | FileCheck %s --check-prefix=TALL
// RUN: not %tmc run %s --kernel empty --shape N=5 2>&1 | FileCheck %s --check-prefix=ZERO

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel cube(X: f32[N], Y: f32[N]) implements copy grid(N * N * N / 1000000) block(32) {
  let g = blockIdx.x * 32 + threadIdx.x;
  if (g < N) { Y[g] = X[g]; }
}
// FITS: result:     PASS
// LIMIT: tmc: error: grid dimension 0 (((N * N) * N) / 1000000) is 8000000000 for these shapes, over the limit of 2147483647 blocks in that dimension
// OVERFLOW: tmc: error: grid dimension 0 (((N * N) * N) / 1000000) overflows 64 bits for these shapes

kernel tall(X: f32[N], Y: f32[N]) implements copy grid(1, N) block(32) {
  if (threadIdx.x == 0) { Y[blockIdx.y] = X[blockIdx.y]; }
}
// TALL: tmc: error: grid dimension 1 (N) is 70000 for these shapes, over the limit of 65535 blocks in that dimension

kernel empty(X: f32[N], Y: f32[N]) implements copy grid(N / (N - N)) block(32) {
  Y[0] = X[0];
}
// ZERO: tmc: error: grid dimension 0 (N / (N - N)) divides by zero for these shapes

// A shape whose element count overflows 64 bits is refused before anything
// is allocated.
// RUN: not %tmc run %s --kernel big --shape A=2000000000,B=2000000000,C=2000000000 2>&1 | FileCheck %s --check-prefix=BIG
op copy3(X: f32[A, B, C]) -> f32[A, B, C] { out[i, j, k] = X[i, j, k]; }
kernel big(X: f32[A, B, C], Y: f32[A, B, C]) implements copy3 block(32) {
  Y[0, 0, 0] = X[0, 0, 0];
}
// BIG: tmc: error: the tensors need {{.*}} GiB; tmc run allows 8 GiB
