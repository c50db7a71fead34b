// --print-after-all prints after each pass that changed the IR;
// --stop-after ends the pipeline; --verify-each checks after every pass.
// RUN: %tmc %s --emit=ir --print-after-all --verify-each -o /dev/null 2>&1 | FileCheck %s
// RUN: %tmc %s --emit=ir --stop-after=unroll | FileCheck %s --check-prefix=STOP
// RUN: not %tmc %s --emit=ir --print-after=nonsense 2>&1 | FileCheck %s --check-prefix=BAD
// --print-after* works with every --emit and writes to standard error, as
// in LLVM's tools: the output itself stays clean.
// RUN: %tmc %s --print-after=unroll 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: %tmc %s --emit=ptx --print-after=unroll -o %t.ptx 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %tmc %s --emit=cuda --print-after=unroll 2>%t.err | FileCheck %s --check-prefix=CUDA
// RUN: FileCheck %s --check-prefix=ANY < %t.err
// RUN: %tmc %s --emit=ast --print-after=unroll 2>&1 | FileCheck %s --check-prefix=ANY

kernel k(Y: f32[2, 32]) block(32) {
  for i in spatial(32) on threadIdx.x { Y[1, i] = 1.0; }
}
// CHECK: IR after lower-task-mappings
// CHECK: IR after simplify
// CHECK: IR after flatten-buffers
// ANY: IR after unroll
// ANY-NEXT: kernel k(
// PTX-NOT: IR after
// PTX: .entry k(
// CUDA-NOT: IR after
// CUDA: __global__
// STOP: if (w < 32)
// STOP: Y[1, i] = 1.0
// BAD: tmc: error: unknown pass 'nonsense' (passes: check-target-features, lower-task-mappings, split-tails, unroll, simplify, sink-wgmma-fences, flatten-buffers, check-register-indices, check-register-memory, plan-shared-memory)
