// tmc's own pass pipeline at -O2/-O3 (codegen/nvptx/nvptx_backend.cpp,
// kTmcPipeline; docs/codegen.md): it leaves out most of LLVM's -O3, so
// this pins what it must still do. Device functions are inlined (a
// recursive one stays a call and assembles, where LLVM's -O3 turns
// it into a loop); libdevice's functions are
// inlined; read-only inputs load through the non-coherent cache; no
// allocas are left (test/Codegen/vectorize.tm pins the vector accesses).
// TMC_LLVM_PIPELINE replaces the pipeline ('default<O3>' is LLVM's own),
// and a bad one is a clear error.
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefixes=CHECK,GELU
// RUN: %tmc %s --emit=llvm | FileCheck %s --check-prefix=IR
// RUN: %if ptxas %{ %tmc %s --emit=ptx | %ptxas-verify sm_80 %}
// RUN: env TMC_LLVM_PIPELINE='default<O3>' %tmc %s --emit=ptx | FileCheck %s --check-prefix=GELU
// RUN: env TMC_LLVM_PIPELINE='function(no-such-pass)' not %tmc %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=BAD
// The results: on the CPU executor, at sizes that divide no tile.
// RUN: %tmc run %s --kernel gelu_rows --shape N=1003 | FileCheck %s --check-prefix=PASS
// RUN: %tmc run %s --kernel countdown --shape N=77 | FileCheck %s --check-prefix=PASS
// PASS: result: PASS

// CHECK: .func {{.*}} depth(
// CHECK: call.uni
// GELU-LABEL: .entry gelu_rows(
// GELU-NOT: call
// GELU: ld.global.nc.f32
// GELU-NOT: call
// CHECK-LABEL: .entry countdown(
// CHECK: ld.global.nc.f32
// CHECK: call.uni
// CHECK-NEXT: depth
// IR-NOT: alloca
// IR-NOT: call float @gelu_erf
// IR-NOT: call float @__nv_erff
// BAD: error: code generation failed: TMC_LLVM_PIPELINE: unknown function pass 'no-such-pass'

op gelu(X: f32[N]) -> f32[N] { out[i] = 0.5 * X[i] * (1.0 + erf(X[i] * 0.7071067811865476)); }

func gelu_erf(x: f32) -> f32 { return 0.5 * x * (1.0 + erf(x * 0.7071067811865476)); }

kernel gelu_rows(X: f32[N], Y: f32[N]) implements gelu grid(cdiv(N, 256)) block(256) {
  let i = blockIdx.x * 256 + threadIdx.x;
  if (i < N) {
    Y[i] = gelu_erf(X[i]);
  }
}

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }

func depth(n: i32) -> i32 {
  if (n <= 0) { return 0; }
  return depth(n - 1) + 1;
}

kernel countdown(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 64)) block(64) {
  let i = blockIdx.x * 64 + threadIdx.x;
  if (i < N) {
    Y[i] = X[i] + f32(depth(i % 3) - i % 3);
  }
}
