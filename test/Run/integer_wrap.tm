// Integer arithmetic in ops wraps in the width of its type, as kernels
// do (found by test/Fuzz/gen_programs.py): the reference of these correct
// kernels once disagreed with them.
// RUN: %tmc run %s --kernel k_sub --shape N=64 | FileCheck %s
// RUN: %tmc run %s --kernel k_mul --shape N=64 | FileCheck %s
// RUN: %tmc run %s --kernel k_sum --shape N=100 | FileCheck %s
// CHECK: result: {{ *}}PASS

op sub(X: u32[N], Y: u32[N]) -> u32[N] {
  out[i] = X[i] - Y[i];
}
kernel k_sub(X: u32[N], Y: u32[N], Z: u32[N]) implements sub grid(cdiv(N, 32)) block(32) {
  let g = blockIdx.x * 32 + threadIdx.x;
  if (g < N) {
    Z[g] = X[g] - Y[g];
  }
}

op mul(X: i8[N]) -> i8[N] {
  out[i] = X[i] * X[i] * X[i] * X[i];
}
kernel k_mul(X: i8[N], Z: i8[N]) implements mul grid(1) block(32) {
  for i in range(threadIdx.x, N, 32) {
    Z[i] = X[i] * X[i] * X[i] * X[i];
  }
}

op total(X: u8[N]) -> u8[1] {
  out[i] = sum(k < N) X[k];
}
kernel k_sum(X: u8[N], Z: u8[1]) implements total grid(1) block(1) {
  var acc: u8 = u8(0);
  for k in range(N) {
    acc += X[k];
  }
  Z[0] = acc;
}
