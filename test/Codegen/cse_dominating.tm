// The emitter builds a pure instruction (and a read of %tid.x) once along
// each chain of dominating blocks (codegen/nvptx/local_cse.h): the warp
// and lane arithmetic of the entry serves in the loops and branches below
// it, while what a loop body or an if arm built does not serve after it.
// Returns, break, continue and both loop kinds; the module verified after
// emission (-O0 shows the emitter's IR) and through the whole pipeline.
// REQUIRES: ptxas
// RUN: %tmc %s --verify-each -O0 --emit=llvm -o %t.O0.ll
// RUN: FileCheck %s < %t.O0.ll
// RUN: FileCheck %s --check-prefix=ONCE < %t.O0.ll
// RUN: %tmc %s --verify-each --emit=ptx | %ptxas-verify sm_80 sm_90a

kernel k(X: f32[N], Y: f32[N], n: i32) grid(cdiv(N, 128)) block(128) {
  let g = blockIdx.x * 128 + threadIdx.x;
  if (g >= N) { return; }
  var acc = X[g] * f32(threadIdx.x % 32);
  for i in range(n) {
    if (i % 3 == 0) { continue; }
    if (i > 50 + threadIdx.x / 32) { break; }
    acc += X[(g + i) % N] * f32(threadIdx.x % 32);
  }
  var j = 0;
  while (j < n) {
    if (threadIdx.x / 32 == 1) { acc -= f32(j); } else { acc += f32(threadIdx.x % 32 + j); }
    j += 1;
  }
  Y[g] = acc + f32(threadIdx.x / 32);
}

// One read of %tid.x and one lane index for the whole kernel.
// ONCE: [[TID:%[0-9]+]] = call {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()
// ONCE: srem i32 [[TID]], 32
// ONCE-NOT: srem i32 [[TID]], 32
// ONCE-NOT: call {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()

// The warp index is first needed inside the for loop's body, then in the
// while loop's body and after it: none of the three dominates another.
// CHECK: [[TID:%[0-9]+]] = call {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK: for.body:
// CHECK: sdiv i32 [[TID]], 32
// CHECK: while.body:
// CHECK: sdiv i32 [[TID]], 32
// CHECK: while.end:
// CHECK: sdiv i32 [[TID]], 32
// CHECK-NOT: sdiv i32 [[TID]], 32
