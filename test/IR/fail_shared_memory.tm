// More shared memory than a block may have is an error for the target,
// named as --arch spells it. A plain check (no --emit) reports it too, for
// the default sm_80 unless --arch says otherwise.
// RUN: %tmc %s --emit=ir --arch=sm_90a --verify-diagnostics
// RUN: %tmc %s --emit=ir --arch=sm_80 -D ROWS=256 > /dev/null
// RUN: not %tmc %s --arch=sm_90a 2>&1 | FileCheck %s --check-prefix=CHECK90A
// RUN: not %tmc %s --arch=sm_90 2>&1 | FileCheck %s --check-prefix=CHECK90
// RUN: not %tmc %s 2>&1 | FileCheck %s --check-prefix=CHECK80
// RUN: %tmc %s -D ROWS=256 --arch=sm_90a

kernel big<ROWS: int = 512>() block(32) {  // expected-error {{kernel 'big' uses 262144 bytes of shared memory, more than the 232448 bytes a block may have on sm_90a}}
  shared s: f32[ROWS, 128];
  s[0, 0] = 1.0;
}
// CHECK90A: fail_shared_memory.tm:[[@LINE-4]]:8: error: kernel 'big' uses 262144 bytes of shared memory, more than the 232448 bytes a block may have on sm_90a
// CHECK90A: 1 error generated.
// CHECK90: error: kernel 'big' uses 262144 bytes of shared memory, more than the 232448 bytes a block may have on sm_90{{$}}
// CHECK80: error: kernel 'big' uses 262144 bytes of shared memory, more than the 166912 bytes a block may have on sm_80
