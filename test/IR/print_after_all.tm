// --print-after-all prints after each pass that changed the IR;
// --stop-after ends the pipeline; --verify-each checks after every pass.
// RUN: %tmc %s --emit=ir --print-after-all --verify-each | FileCheck %s
// RUN: %tmc %s --emit=ir --stop-after=unroll | FileCheck %s --check-prefix=STOP
// RUN: not %tmc %s --emit=ir --print-after=nonsense 2>&1 | FileCheck %s --check-prefix=BAD

kernel k(Y: f32[32]) block(32) {
  for i in spatial(32) on threadIdx.x { Y[i] = 1.0; }
}
// CHECK: IR after lower-task-mappings
// CHECK: IR after simplify
// CHECK: IR after flatten-buffers
// STOP: if (w < 32)
// STOP: Y[i] = 1.0
// BAD: tmc: error: unknown pass 'nonsense' (passes: lower-task-mappings, split-tails, unroll, simplify, flatten-buffers, check-register-indices, check-register-memory, plan-shared-memory)
