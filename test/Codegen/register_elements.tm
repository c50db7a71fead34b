// A register array in device code is emitted as one alloca per element
// while its indices are constants (after unrolling, nearly always), which
// LLVM's mem2reg promotes without SROA's splitting
// (codegen/nvptx/llvm_emitter.cpp, ElementSlot). An index known only at
// run time, or the whole array passed to a function, turns the elements
// made so far back into the array's: both orders give the same values.
// -O0 shows the emitter's allocas (no promotion); -O3 promotes them all.
// RUN: %tmc %s --emit=llvm -O0 -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=CONST < %t.O0.ll
// RUN: FileCheck %s --check-prefix=MIXED < %t.O0.ll
// RUN: FileCheck %s --check-prefix=CALL < %t.O0.ll
// RUN: FileCheck %s --check-prefix=ORDER < %t.O0.ll
// RUN: %tmc %s --emit=llvm -o %t.O3.ll
// RUN: FileCheck %s --check-prefix=O3 < %t.O3.ll
// RUN: %tmc %s --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// The CPU executor against the op's reference, at a size that is not a
// multiple of the block (host code: register arrays stay arrays there, so
// these check the kernels, and the IR checks above the device code).
// RUN: %tmc run %s --kernel mixed --shape N=300 | FileCheck %s --check-prefix=EXEC
// RUN: %tmc run %s --kernel constant --shape N=77 | FileCheck %s --check-prefix=EXEC
// RUN: %tmc run %s --kernel passed --shape N=130 | FileCheck %s --check-prefix=EXEC
// RUN: %tmc run %s --kernel ordered --shape N=100 | FileCheck %s --check-prefix=EXEC
// EXEC: result: PASS

op scaled_sum(X: f32[N]) -> f32[N] {
  out[i] = X[i] + X[i] * 2.0 + X[i] * 3.0 + X[i] * 4.0;
}

// Constant indices only: four float allocas, no array.
// CONST-LABEL: define ptx_kernel void @constant(
// CONST-NOT: alloca [4 x float]
// CONST-COUNT-4: %r{{[0-9]*}} = alloca float
// CONST-NOT: alloca [4 x float]
// CONST: ret void
kernel constant(X: f32[N], Y: f32[N]) implements scaled_sum grid(cdiv(N, 64)) block(64) {
  let g = blockIdx.x * 64 + threadIdx.x;
  if (g >= N) { return; }
  register r: f32[4];
  for k in unroll(4) { r[k] = X[g] * f32(k + 1); }
  var acc = 0.0;
  for k in unroll(4) { acc += r[k]; }
  Y[g] = acc;
}

// Constant indices first, then one known at run time: the elements already
// made become addresses into the array.
// (The emitter puts each new alloca first: elements would come before %r.)
// MIXED-LABEL: define ptx_kernel void @mixed(
// MIXED-NOT: %r{{[0-9]+}} = alloca
// MIXED: %r = alloca [4 x float]
// MIXED: getelementptr inbounds [4 x float], ptr %r, i32 0, i32 0
// MIXED: ret void
kernel mixed(X: f32[N], Y: f32[N]) implements scaled_sum grid(cdiv(N, 64)) block(64) {
  let g = blockIdx.x * 64 + threadIdx.x;
  if (g >= N) { return; }
  register r: f32[4];
  for k in unroll(4) { r[k] = X[g] * f32(k + 1); }
  var acc = 0.0;
  for k in range(4) { acc += r[k]; }
  Y[g] = acc;
}

func fill(r: f32[128] by repeat(4) * spatial(32), x: f32) {
  for i in repeat(4) * spatial(32) on lane_id { r[i] = x * f32(i / 32 + 1); }
}

// The whole array passed to a function (a fragment parameter), after
// constant accesses.
// CALL-LABEL: define ptx_kernel void @passed(
// CALL-NOT: %r{{[0-9]+}} = alloca
// CALL: %r = alloca [4 x float]
// CALL: getelementptr inbounds [4 x float], ptr %r, i32 0, i32 3
// CALL: call {{.*}}@fill(ptr
// CALL: ret void
kernel passed(X: f32[N], Y: f32[N]) implements scaled_sum grid(cdiv(N, 32)) block(32) {
  register r: f32[128] by repeat(4) * spatial(32);
  for i in repeat(4) * spatial(32) on lane_id { r[i] = 0.0; }
  let g = blockIdx.x * 32 + threadIdx.x;
  let x = g < N ? X[g] : 0.0;
  fill(r, x);
  var acc = 0.0;
  for i in repeat(4) * spatial(32) on lane_id { acc += r[i]; }
  if (g < N) { Y[g] = acc; }
}

// A store at a run-time index between a constant-index store and a read
// of the same element: the read loads from the array, it does not reuse
// the value stored first (g / N is 0, which the compiler cannot know).
// ORDER-LABEL: define ptx_kernel void @ordered(
// ORDER: getelementptr [4 x float], ptr %r, i32 0, i32 %{{.*}}
// ORDER-NEXT: store float
// ORDER: = load float, ptr %{{[0-9]+}}, align 4
// ORDER: ret void
op doubled(X: f32[N]) -> f32[N] {
  out[i] = X[i] * 2.0;
}
kernel ordered(X: f32[N], Y: f32[N]) implements doubled grid(cdiv(N, 64)) block(64) {
  let g = blockIdx.x * 64 + threadIdx.x;
  if (g >= N) { return; }
  register r: f32[4];
  r[0] = X[g];
  r[g / N] = X[g] * 2.0;
  Y[g] = r[0];
}

// At -O3 only the array indexed at run time stays in memory.
// O3-NOT: alloca
// O3-LABEL: define ptx_kernel void @ordered(
// O3: %r = alloca [4 x float]
