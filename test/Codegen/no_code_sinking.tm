// InstCombine's code sinking is off (nvptx_backend.cpp, docs/codegen.md):
// a value whose only user is the loop's phi stays beside what feeds it
// instead of moving to the latch, after the rest of the body. In
// attention_tma that move kept 32 exponentials live across a wgmma.
// RUN: %tmc %s --emit=llvm -o - | FileCheck %s
// The same compile with LLVM's default shows the move this test guards.
// RUN: env TMC_LLVM_OPTIONS=-instcombine-code-sinking=true %tmc %s --emit=llvm -o - | FileCheck %s --check-prefix=SUNK

kernel running_sum(X: f32[N], Y: f32[N], Z: f32[1]) grid(1) block(1) {
  var acc: f32 = 0.0;
  for n in range(N) {
    let e = exp2(X[n]);
    acc += e;
    Y[n] = e * 2.0;
  }
  Z[0] = acc;
}
// CHECK-LABEL: for.body:
// CHECK: [[E:%[0-9]+]] = call float @llvm.nvvm.ex2.approx.f(
// CHECK-NEXT: fadd float %acc{{.*}}, [[E]]
// CHECK: store float

// SUNK-LABEL: for.body:
// SUNK: [[E:%[0-9]+]] = call float @llvm.nvvm.ex2.approx.f(
// SUNK-NOT: fadd
// SUNK: store float
// SUNK-NEXT: fadd float %acc{{.*}}, [[E]]
