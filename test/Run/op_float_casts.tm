// A written conversion to a narrower float in an op rounds in the
// reference, as it does in kernels: out = f32(bf16(X)) quantizes X, so a
// kernel that forgets the rounding fails and one that rounds passes (at the
// f32 tolerance). The same for f16.
// RUN: %tmc run %s --kernel rounds_bf16 --shape N=1000 | FileCheck %s --check-prefix=PASS
// RUN: %tmc run %s --kernel rounds_f16 --shape N=1000 --seed 3 | FileCheck %s --check-prefix=PASS
// RUN: %expect-exit 1 %tmc run %s --kernel forgets --shape N=1000
// RUN: not %tmc run %s --kernel forgets --shape N=1000 | FileCheck %s --check-prefix=FAIL
// PASS: result: PASS
// FAIL: result: FAIL

op quantize_bf16(X: f32[N]) -> f32[N] { out[i] = f32(bf16(X[i])); }
op quantize_f16(X: f32[N]) -> f32[N] { out[i] = f32(f16(X[i] * 3.0)); }

kernel forgets(X: f32[N], Y: f32[N]) implements quantize_bf16 grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) { Y[i] = X[i]; }
}

kernel rounds_bf16(X: f32[N], Y: f32[N]) implements quantize_bf16 grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) { Y[i] = f32(bf16(X[i])); }
}

kernel rounds_f16(X: f32[N], Y: f32[N]) implements quantize_f16 grid(cdiv(N, 128)) block(128) {
  let i = blockIdx.x * 128 + threadIdx.x;
  if (i < N) { Y[i] = f32(f16(X[i] * 3.0)); }
}
